"""The embedded store's one-query ``sources_of`` answers as the two-read default does, and its
in-process copies (sources, hub counts, hit rows) stay right through writes, a forget, change
sets and other processes."""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta

from dualmem_core import Writer, open_store
from dualmem_core.providers import HashingEmbedder
from dualmem_core.store import Edge, EdgeType, SearchFilter, SearchHit, WriteBatch
from dualmem_core.store import changes as ch
from dualmem_core.store.base import Store
from dualmem_core.store.sqlite import access


def test_sources_of_equals_the_default_through_edges_and_episodes(tmp_path) -> None:
    store = open_store(f"sqlite:///{tmp_path / 's.db'}", dimension=64)
    writer = Writer(store, embedder=HashingEmbedder(64))
    t0 = datetime(2025, 3, 1, tzinfo=UTC)
    said = ["I love sushi.", "I moved to Lisbon last year.", "I love sushi.", "Morning!", "I love sushi."]
    for i, text in enumerate(said):  # a repeated message: one memory, several sources
        writer.remember(text, user_id="u1", source_id=f"m{i}" if i != 3 else None,
                        at=t0 + timedelta(hours=5 - i))  # said in the reverse order of the ids
    writer.remember("I love sushi.", user_id="u2", source_id="other", at=t0)  # another tenant
    memory_ids = [m.id for m in store.export_graph("u1").memories] + ["mem_unknown"]
    found = store.sources_of("u1", memory_ids)
    assert found == Store._sources_of(store, "u1", memory_ids)
    assert ["m4", "m2", "m0"] in found.values()  # in the order said, not the order written
    assert all("other" not in s for s in found.values())
    assert any(s and s[0].startswith("ep_") for s in found.values())  # no source id: the episode's
    store.close()


def test_kept_sources_follow_writes_forgets_and_other_processes(tmp_path) -> None:
    url = f"sqlite:///{tmp_path / 's.db'}"
    store, other = open_store(url, dimension=64), open_store(url, dimension=64)
    writer = Writer(store, embedder=HashingEmbedder(64))
    elsewhere = Writer(other, embedder=HashingEmbedder(64))
    t0 = datetime(2025, 3, 1, tzinfo=UTC)

    def said(w: Writer, source: str, hours: int) -> None:
        w.remember("I love sushi.", user_id="u1", source_id=source, at=t0 + timedelta(hours=hours))

    said(writer, "a", 5)
    said(writer, "b", 7)
    memory_id = writer.recall("sushi", user_id="u1", k=1)[0].memory_id  # recall keeps its sources

    def truth() -> list[str]:
        return Store._sources_of(store, "u1", [memory_id]).get(memory_id, [])

    assert store.sources_of("u1", [memory_id])[memory_id] == ["a", "b"] == truth()  # now kept
    said(writer, "c", 6)  # this store's write, told earlier than "b": kept in time order
    assert store.sources_of("u1", [memory_id])[memory_id] == ["a", "c", "b"] == truth()
    said(elsewhere, "d", 1)  # another process: the kept copy is stale and must be read again
    assert store.sources_of("u1", [memory_id])[memory_id] == ["d", "a", "c", "b"] == truth()
    writer.forget(user_id="u1", source_ids=["c"])
    assert store.sources_of("u1", [memory_id])[memory_id] == ["d", "a", "b"] == truth()
    writer.forget(user_id="u1", source_ids=["a", "b", "d"])
    assert store.sources_of("u1", [memory_id]) == {}
    store.close()
    other.close()


def test_kept_hub_counts_follow_writes(tmp_path) -> None:
    """An entity that crosses the hub limit through this store's writes stops being expanded."""
    url = f"sqlite:///{tmp_path / 's.db'}"
    store, other = open_store(url, dimension=64), open_store(url, dimension=64)
    writer = Writer(store, embedder=HashingEmbedder(64))
    t0 = datetime(2025, 3, 1, tzinfo=UTC)
    said = ["My sister Ana lives in Lisbon.", "My sister Ana is a nurse.", "I visited Lisbon last week.",
            "Lisbon was sunny."]
    for i, text in enumerate(said[:2]):
        writer.remember(text, user_id="u1", source_id=f"m{i}", at=t0 + timedelta(hours=i))
    seed = writer.recall("Ana Lisbon", user_id="u1", k=1)[0].memory_id

    def neighbours(s) -> set[str]:
        return {n.memory_id for n in s.entity_neighbours("u1", [seed], max_entity_degree=2)}

    before = neighbours(store)
    assert before and before == neighbours(other)  # counted and kept
    # Lisbon's mentions (2: the seed and its message) pass 2: a hub now
    for i, text in enumerate(said[2:], 2):
        writer.remember(text, user_id="u1", source_id=f"m{i}", at=t0 + timedelta(hours=i))
    assert neighbours(store) == neighbours(other) != before
    store.close()
    other.close()


def test_kept_hit_rows_follow_counts_changes_and_other_processes(tmp_path) -> None:
    """Search hits come through kept rows: their access counts, a change set of this store or of
    another process, and a caller changing what it was given all show as a fresh read would."""
    url = f"sqlite:///{tmp_path / 's.db'}"
    store, other = open_store(url, dimension=64), open_store(url, dimension=64)
    writer = Writer(store, embedder=HashingEmbedder(64))
    t0 = datetime(2025, 3, 1, tzinfo=UTC)
    writer.remember("I love sushi.", user_id="u1", source_id="a", at=t0)
    query = HashingEmbedder(64).embed(["I love sushi."])[0]

    def hit() -> SearchHit:
        [found] = [h for h in store.vector_search(query, SearchFilter("u1"), 10)
                   if h.version.text == "I love sushi." and h.memory.kind == "observation"]
        return found

    def fresh(s: Store, memory_id: str) -> tuple:
        [m] = s.get_memories("u1", [memory_id])
        return m.access_count, m.last_accessed_at, m.review_state

    first = hit()  # read, and kept
    memory_id = first.memory.id
    first.memory.access_count, first.version.text = 99, "changed by the caller"
    assert hit().version.text == "I love sushi." and hit().memory.access_count == 0
    store.record_access("u1", [memory_id], at=t0 + timedelta(hours=1))  # pending, seen at once
    assert (hit().memory.access_count, hit().memory.last_accessed_at) == (1, t0 + timedelta(hours=1))
    writer.remember("I play chess.", user_id="u1", source_id="b", at=t0)  # the count is written with it
    store.record_access("u1", [memory_id], at=t0 + timedelta(hours=2))
    writer.remember("I play go.", user_id="u1", source_id="c", at=t0)
    got = hit().memory
    assert (got.access_count, got.last_accessed_at, got.review_state) == fresh(store, memory_id)
    assert fresh(store, memory_id) == fresh(other, memory_id) == (2, t0 + timedelta(hours=2), "new")
    store.apply_changes(ch.ChangeSet("u1", "run-1", [ch.SetReviewState(memory_id, "reviewed", "new")]))
    assert hit().memory.review_state == "reviewed"
    other.apply_changes(ch.ChangeSet("u1", "run-2", [ch.SetReviewState(memory_id, "new", "reviewed")]))
    assert hit().memory.review_state == "new" == fresh(other, memory_id)[2]  # another process's change
    store.close()
    other.close()


def test_a_hit_row_read_in_a_snapshot_older_than_a_count_write_is_not_kept(tmp_path, monkeypatch) -> None:
    """A recall's read transaction began before another thread wrote recall counts: the rows it
    reads lack them, so they are returned but not kept (later searches read them again)."""
    store = open_store(f"sqlite:///{tmp_path / 's.db'}", dimension=64)
    writer = Writer(store, embedder=HashingEmbedder(64))
    t0 = datetime(2025, 3, 1, tzinfo=UTC)
    writer.remember("I love sushi.", user_id="u1", source_id="a", at=t0)
    [memory] = [m for m in store.export_graph("u1").memories if m.kind == "observation"]
    query = HashingEmbedder(64).embed(["I love sushi."])[0]

    def count() -> int:
        return next(h.memory.access_count for h in store.vector_search(query, SearchFilter("u1"), 10)
                    if h.memory.id == memory.id)

    def elsewhere() -> None:  # a count, due at once: written in a transaction of its own
        store.record_access("u1", [memory.id], at=t0 + timedelta(hours=1))

    monkeypatch.setattr(access, "FLUSH_AFTER_S", 0.0)

    with store.reading():
        store.counts("u1")  # the snapshot begins here
        worker = threading.Thread(target=elsewhere)
        worker.start()
        worker.join()
        assert count() == 0  # the snapshot's row: the count was written after it began
    assert count() == 1  # read again, not the snapshot's row kept
    store.close()


def test_kept_supersedes_edges_follow_writes_changes_and_other_processes(tmp_path) -> None:
    """Recall's read of its candidates' SUPERSEDES edges comes through kept rows, and answers as
    a read of the table does after this store's writes, a change set and another process's write."""
    url = f"sqlite:///{tmp_path / 's.db'}"
    store, other = open_store(url, dimension=64), open_store(url, dimension=64)
    writer = Writer(store, embedder=HashingEmbedder(64))
    t0 = datetime(2025, 3, 1, tzinfo=UTC)
    for i, text in enumerate(["I live in Leeds.", "I live in York.", "I live in Hull."]):
        writer.remember(text, user_id="u1", source_id=f"m{i}", at=t0 + timedelta(hours=i))
    ids = sorted(m.id for m in store.export_graph("u1").memories)
    types = [EdgeType.SUPERSEDES]

    def read(nodes: list[str]) -> list[tuple]:
        found = store.get_edges("u1", node_ids=nodes, types=types)
        truth = store._edge_rows(store._conn(), "u1", nodes, types, None, False)
        assert [e.id for e in found] == [r[0] for r in truth]
        return [(e.src_id, e.dst_id) for e in found]

    assert read(ids) == []  # read, and kept
    store.write(WriteBatch(edges=[Edge("u1", EdgeType.SUPERSEDES, ids[1], ids[0])]))
    assert read(ids) == read(ids[:1]) == read(ids[1:2]) == [(ids[1], ids[0])]  # both ends
    other.write(WriteBatch(edges=[Edge("u1", EdgeType.SUPERSEDES, ids[2], ids[1])]))
    assert read(ids[1:]) == [(ids[1], ids[0]), (ids[2], ids[1])]
    [edge] = store.get_edges("u1", node_ids=[ids[0]], types=types)
    store.apply_changes(ch.ChangeSet("u1", "run-1", [ch.CloseEdge(edge.id)]))
    assert read(ids) == [(ids[2], ids[1])]
    store.close()
    other.close()


def test_kept_mentions_follow_writes_forgets_and_other_processes(tmp_path) -> None:
    """Expansion walks kept MENTIONS edges (a seed's entities, an entity's memories): its
    neighbours stay those a store with nothing kept finds."""
    url = f"sqlite:///{tmp_path / 's.db'}"
    store, other = open_store(url, dimension=64), open_store(url, dimension=64)
    writer = Writer(store, embedder=HashingEmbedder(64))
    t0 = datetime(2025, 3, 1, tzinfo=UTC)
    writer.remember("My sister Ana lives in Lisbon.", user_id="u1", source_id="m0", at=t0)
    writer.remember("Ana is a nurse.", user_id="u1", source_id="m1", at=t0 + timedelta(hours=1))
    [lunch] = writer.remember("I met Ana in Lisbon for lunch.", user_id="u1", source_id="m2",
                              at=t0 + timedelta(hours=2)).memory_ids  # no MENTIONS edge
    seed = writer.recall("Ana Lisbon", user_id="u1", k=1)[0].memory_id

    def check() -> list:
        found = store.entity_neighbours("u1", [seed, seed])
        fresh = open_store(url, dimension=64)
        assert found == fresh.entity_neighbours("u1", [seed])
        fresh.close()
        return found

    first = check()  # read, and kept
    writer.remember("I visited Lisbon with Ana.", user_id="u1", source_id="m3", at=t0 + timedelta(hours=3))
    second = check()  # this store's write: a new memory on a kept entity
    assert len(second) > len(first)
    other.write(WriteBatch(edges=[Edge("u1", EdgeType.MENTIONS, lunch, first[0].via_entities[0])]))
    assert lunch in {n.memory_id for n in check()} - {n.memory_id for n in second}  # another process
    writer.forget(user_id="u1", source_ids=["m3"])
    check()
    store.close()
    other.close()
