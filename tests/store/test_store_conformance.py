"""The store contract, run unchanged against the embedded SQLite store and a real Neo4j.

Round trips, tenant isolation, both time axes with their interval edges, vector and text
search, snapshot round trips, all-or-nothing batches, idempotent schema set-up.
"""

from __future__ import annotations

import dataclasses
from datetime import timedelta

import numpy as np
import pytest
from builders import T0, Builder, at
from conftest import DIM, vec

from dualmem_core import open_store
from dualmem_core.store import EdgeType, MemoryVersion, SearchFilter, WriteBatch
from dualmem_core.store.snapshot import graph_to_tables, read_snapshot, write_snapshot
from dualmem_core.timeutil import FAR_FUTURE


def _comparable(graph):
    """A graph as plain data, embeddings as lists, so two graphs compare with ==."""
    out = {}
    for table in ("episodes", "memories", "versions", "entities", "edges"):
        rows = []
        for record in getattr(graph, table):
            row = {f: getattr(record, f) for f in record.__slots__}
            if row.get("embedding") is not None:
                row["embedding"] = np.round(row["embedding"], 6).tolist()
            rows.append(row)
        out[table] = sorted(rows, key=lambda r: r["id"])
    return out


def test_round_trip_keeps_every_field(store, user):
    b = Builder(user)
    ep = b.episode("I moved to Portland last week.", at(3, 2, 18), source_id="msg-17",
                   speaker="user", role="user", session_id="s1", agent_id="a1")
    mem, ver = b.memory("User lives in Portland", vec(1, 0, 0), valid_from=at(2, 23),
                        episode=ep, subject="user", predicate="lives_in", object="Portland",
                        confidence=0.8, salience=0.3, mem_kw={"session_id": "s1", "agent_id": "a1"})
    person = b.entity("Portland", "place", aliases=("PDX",))
    b.edge(EdgeType.MENTIONS, mem.id, person.id, props={"role": "object"})
    store.write(b.batch)

    [got_ep] = store.get_episodes(user, [ep.id])
    assert (got_ep.text, got_ep.source_id, got_ep.observed_at, got_ep.session_id) == (
        ep.text, "msg-17", at(3, 2, 18), "s1")
    assert got_ep.recorded_at is not None
    assert [e.id for e in store.episodes_by_source(user, ["msg-17", "msg-unknown"])] == [ep.id]
    [got_mem] = store.get_memories(user, [mem.id])
    assert (got_mem.kind, got_mem.agent_id, got_mem.review_state, got_mem.access_count) == (
        "fact", "a1", "new", 0)
    [got_ver] = store.get_versions(user, [mem.id])
    assert (got_ver.text, got_ver.predicate, got_ver.object) == ("User lives in Portland", "lives_in",
                                                                "Portland")
    assert (got_ver.valid_from, got_ver.valid_to, got_ver.tx_to) == (at(2, 23), FAR_FUTURE, FAR_FUTURE)
    assert got_ver.confidence == pytest.approx(0.8) and got_ver.salience == pytest.approx(0.3)
    np.testing.assert_allclose(got_ver.embedding, vec(1, 0, 0))
    edges = store.get_edges(user, node_ids=[mem.id])
    assert {(e.type, e.dst_id) for e in edges} == {(EdgeType.FROM, ep.id), (EdgeType.MENTIONS, person.id)}
    assert next(e for e in edges if e.type == EdgeType.MENTIONS).props == {"role": "object"}
    assert store.counts(user) == {"episodes": 1, "memories": 1, "versions": 1, "entities": 1,
                                  "edges": 2, "runs": 0}
    assert user in store.list_users()


def test_tenant_isolation(store, user, other_user):
    a, b = Builder(user), Builder(other_user)
    ma, _ = a.memory("Alice lives in Portland", vec(1, 0))
    ea = a.entity("Portland", "place")
    a.edge(EdgeType.MENTIONS, ma.id, ea.id)
    mb, _ = b.memory("Bob lives in Portland", vec(1, 0))
    eb = b.entity("Portland", "place")
    b.edge(EdgeType.MENTIONS, mb.id, eb.id)
    store.write(a.batch)
    store.write(b.batch)

    for hits in (store.vector_search(vec(1, 0), SearchFilter(other_user), 10),
                 store.text_search("Portland", SearchFilter(other_user), 10)):
        assert [h.memory.id for h in hits] == [mb.id]
    assert store.get_memories(other_user, [ma.id, mb.id])[0].id == mb.id
    assert len(store.get_memories(other_user, [ma.id, mb.id])) == 1
    assert store.get_versions(other_user, [ma.id]) == []
    assert store.get_edges(other_user, node_ids=[ma.id, ea.id]) == []
    assert store.entity_neighbours(other_user, [ma.id]) == []
    exported = store.export_graph(other_user)
    assert {m.id for m in exported.memories} == {mb.id}
    assert {e.user_id for e in exported.edges} == {other_user}


def test_valid_time_interval_edges(store, user):
    b = Builder(user)
    m1, _ = b.memory("lives in Seattle", vec(1, 0), valid_from=at(1), valid_to=at(3))
    m2, _ = b.memory("lives in Portland", vec(1, 0.1), valid_from=at(3))
    store.write(b.batch)

    def ids(when):
        return {h.memory.id for h in store.vector_search(vec(1, 0), SearchFilter(user, valid_at=when), 5)}

    assert ids(at(2)) == {m1.id}
    assert ids(at(3) - timedelta(microseconds=1)) == {m1.id}
    assert ids(at(3)) == {m2.id}  # closed-open: valid_to is not included
    assert ids(at(1) - timedelta(microseconds=1)) == set()
    assert {h.memory.id for h in store.text_search("lives", SearchFilter(user, valid_at=at(3)), 5)} == {m2.id}


def test_transaction_time_interval_edges(store, user):
    from dualmem_core.store import changes as ch
    from dualmem_core.store.models import MemoryVersion

    b = Builder(user)
    mem, old = b.memory("works at Acme", vec(0, 1), tx_from=at(1))
    store.write(b.batch)
    new = MemoryVersion(memory_id=mem.id, user_id=user, text="worked at Acme", embedding=vec(0, 1),
                        valid_from=T0, valid_to=at(4), status="superseded", tx_from=at(5),
                        created_by="run-1")
    store.apply_changes(ch.ChangeSet(user, "run-1", [ch.CloseVersion(old.id, at=at(5)),
                                                     ch.AddVersion(new)]))

    def version_at(known):
        hits = store.vector_search(vec(0, 1), SearchFilter(user, known_at=known), 5)
        return [h.version.id for h in hits]

    assert version_at(at(2)) == [old.id]
    assert version_at(at(5) - timedelta(microseconds=1)) == [old.id]
    assert version_at(at(5)) == [new.id]
    assert version_at(None) == [new.id]
    assert version_at(at(1) - timedelta(microseconds=1)) == []
    assert [v.id for v in store.get_versions(user, [mem.id], known_at=at(2))] == [old.id]
    assert [v.id for v in store.get_versions(user, [mem.id], all_versions=True)] == [old.id, new.id]
    # Both axes together: what we believed in February about March.
    hits = store.text_search("Acme", SearchFilter(user, known_at=at(2), valid_at=at(6)), 5)
    assert [h.version.id for h in hits] == [old.id]
    assert store.text_search("Acme", SearchFilter(user, known_at=at(6), valid_at=at(6)), 5) == []


def test_vector_search_ranks_by_cosine(store, user):
    b = Builder(user)
    exact, _ = b.memory("a", vec(1, 0, 0))
    near, _ = b.memory("b", vec(1, 0.5, 0))
    far, _ = b.memory("c", vec(0, 1, 0))
    opposite, _ = b.memory("d", vec(-1, 0, 0))
    store.write(b.batch)
    hits = store.vector_search(vec(2, 0, 0), SearchFilter(user), 3)
    assert [h.memory.id for h in hits] == [exact.id, near.id, far.id]
    assert [h.score for h in hits] == pytest.approx([1.0, 1 / np.sqrt(1.25), 0.0], abs=1e-5)
    assert len(store.vector_search(vec(2, 0, 0), SearchFilter(user), 10)) == 4


def test_filters_never_thin_the_top_k(store, user):
    """The nearest 40 versions are closed; a search for current ones still returns k."""
    from dualmem_core.store import changes as ch

    b = Builder(user)
    closed, kept = [], []
    for i in range(60):
        _, ver = b.memory(f"fact number {i}", vec(1, i / 1000 if i < 40 else 0.5 + i / 100))
        (closed if i < 40 else kept).append(ver)
    store.write(b.batch)
    store.apply_changes(ch.ChangeSet(user, "close-40", [ch.CloseVersion(v.id) for v in closed]))
    hits = store.vector_search(vec(1, 0), SearchFilter(user), 5)
    assert [h.version.id for h in hits] == [v.id for v in kept[:5]]
    text_hits = store.text_search("fact number", SearchFilter(user), 25)
    assert len(text_hits) == 20 and {h.version.id for h in text_hits} == {v.id for v in kept}


def test_scope_and_kind_filters(store, user):
    b = Builder(user)
    s1, _ = b.memory("tea please", vec(1, 0), kind="observation", mem_kw={"session_id": "s1"})
    s2, _ = b.memory("tea again", vec(1, 0.1), mem_kw={"session_id": "s2", "agent_id": "bot"})
    store.write(b.batch)
    for search, query in ((store.vector_search, vec(1, 0)), (store.text_search, "tea")):
        assert [h.memory.id for h in search(query, SearchFilter(user, session_id="s2"), 5)] == [s2.id]
        assert [h.memory.id for h in search(query, SearchFilter(user, agent_id="bot"), 5)] == [s2.id]
        assert [h.memory.id for h in search(query, SearchFilter(user, kinds=("observation",)), 5)] == [s1.id]
        assert search(query, SearchFilter(user, statuses=("superseded",)), 5) == []


def test_text_search_ranks_and_treats_syntax_as_words(store, user):
    b = Builder(user)
    cat, _ = b.memory("My cat Miso loves tuna and naps on the sofa", vec(1))
    dog, _ = b.memory("The neighbour's dog barks at night", vec(0, 1))
    odd, _ = b.memory('title:"AND" OR NOT (x*) ~2 [a TO b] {c} \\ -- NEAR(y z)', vec(0, 0, 1))
    store.write(b.batch)
    assert [h.memory.id for h in store.text_search("cat tuna", SearchFilter(user), 5)] == [cat.id]
    hits = store.text_search("Cat food: tuna, dog biscuits?", SearchFilter(user), 5)
    assert hits[0].memory.id == cat.id and {h.memory.id for h in hits} == {cat.id, dog.id}
    assert all(h.score > 0 for h in hits)
    for query in ('"AND" OR', "title:x* ~2 NEAR(y", "((( NOT", "[a TO b] {c} \\"):
        found = store.text_search(query, SearchFilter(user), 5)
        assert odd.id in {h.memory.id for h in found}
    assert store.text_search("?! ...", SearchFilter(user), 5) == []


def test_hybrid_search_gives_the_vector_text_and_cue_lists_under_one_filter(store, user, other_user):
    b = Builder(user)
    said, _ = b.memory("The cat knocked my coffee over", vec(1), kind="observation")
    fact, fact_version = b.memory("user has a cat", vec(1), kind="fact", subject="user", predicate="has_pet",
                                  object="cat", confidence=0.7, salience=0.4, negated=True,
                                  valid_to=at(9), created_by="editor")
    ana, _ = b.memory("Coffee with Ana tomorrow", vec(0, 1), kind="observation")
    b.memory("The cat next door is loud", vec(1), kind="observation", mem_kw={"agent_id": "bot"})
    store.write(b.batch)
    o = Builder(other_user)
    o.memory("My cat sleeps all day", vec(1), kind="observation")
    store.write(o.batch)
    by_vector, by_text, by_cue = store.hybrid_search(vec(1), "coffee", SearchFilter(user), 5,
                                                     cues="cat dog puppy")
    # Three of the user's memories share the query's vector: any may come first (ties), never
    # the other user's.
    assert by_vector[0].memory.id in {said.id, fact.id, b.batch.memories[3].id}
    hit = next(h.version for h in by_vector if h.memory.id == fact.id)  # every field but the vector
    for name in {f.name for f in dataclasses.fields(MemoryVersion)} - {"embedding", "tx_from"}:
        assert getattr(hit, name) == getattr(fact_version, name), name
    assert {h.memory.id for h in by_text} == {said.id, ana.id}
    assert {h.memory.id for h in by_cue} == {said.id, b.batch.memories[3].id}  # observations only
    _, _, scoped = store.hybrid_search(vec(1), "coffee", SearchFilter(user, agent_id="bot"), 5, cues="cat")
    assert [h.memory.id for h in scoped] == [b.batch.memories[3].id]  # the filter holds for the cues
    assert store.hybrid_search(vec(1), "coffee", SearchFilter(user), 5)[2] == []  # no cues, no list


def test_entity_neighbours_skip_hubs(store, user):
    b = Builder(user)
    seed, _ = b.memory("Alice and Bob went hiking", vec(1))
    via_both, _ = b.memory("Alice and Bob are married", vec(1))
    via_bob, _ = b.memory("Bob plays chess", vec(1))
    alice, bob, me = b.entity("Alice"), b.entity("Bob"), b.entity("the user")
    for m in (seed, via_both):
        b.edge(EdgeType.MENTIONS, m.id, alice.id)
    for m in (seed, via_both, via_bob):
        b.edge(EdgeType.MENTIONS, m.id, bob.id)
    hub_members = [b.memory(f"the user said {i}", vec(1))[0] for i in range(5)]
    for m in (seed, *hub_members):
        b.edge(EdgeType.MENTIONS, m.id, me.id)
    store.write(b.batch)
    found = store.entity_neighbours(user, [seed.id], max_entity_degree=4)
    assert [(n.memory_id, n.via_entities) for n in found] == [
        (via_both.id, tuple(sorted((alice.id, bob.id)))), (via_bob.id, (bob.id,))]
    assert found[0].seed_ids == (seed.id,)
    assert len(store.entity_neighbours(user, [seed.id], max_entity_degree=10)) == 7
    assert len(store.entity_neighbours(user, [seed.id], max_entity_degree=10, limit=3)) == 3


def _full_graph(user):
    b = Builder(user)
    ep = b.episode("Bob is my brother; he lives in Lyon.", at(2), source_id="m1")
    m1, v1 = b.memory("Bob is the user's brother", vec(1, 0.2), episode=ep,
                      subject="Bob", predicate="sibling_of", object="user")
    m2, _ = b.memory("Bob lives in Lyon", None, episode=ep, valid_from=at(1), valid_to=at(9),
                     search_text="Ana: Bob lives in Lyon\nBob: I moved there for work")
    bob = b.entity("Bob", aliases=("Robert",))
    lyon = b.entity("Lyon", "place")
    b.edge(EdgeType.MENTIONS, m1.id, bob.id)
    b.edge(EdgeType.MENTIONS, m2.id, lyon.id)
    b.edge(EdgeType.SIMILAR_TO, m2.id, m1.id, props={"score": 0.71})
    b.edge(EdgeType.RELATED, bob.id, lyon.id, props={"relation": "lives_in"}, tx_to=at(10))
    return b


def test_snapshot_export_import_is_identical(store, user, tmp_path):
    store.write(_full_graph(user).batch)
    before = store.export_graph(user)
    folder = write_snapshot(tmp_path / "snap", before, store.dimension)
    assert sorted(p.name for p in folder.iterdir()) == [
        "edges.parquet", "entities.parquet", "episodes.parquet", "memories.parquet", "versions.parquet"]
    deleted = store.delete_user(user)
    assert deleted["versions"] == 2 and store.counts(user)["memories"] == 0
    store.import_graph(read_snapshot(folder))
    after = store.export_graph(user)
    assert _comparable(after) == _comparable(before)
    tables = graph_to_tables(after, DIM)
    assert tables["versions"].num_rows == 2 and tables["edges"].num_rows == 6


def test_import_replace_swaps_the_whole_graph(store, user):
    store.write(_full_graph(user).batch)
    snapshot = store.export_graph(user)
    extra = Builder(user)
    extra.memory("written after the snapshot", vec(0, 0, 1))
    store.write(extra.batch)
    store.import_graph(snapshot, replace=True)
    assert _comparable(store.export_graph(user)) == _comparable(snapshot)


def test_both_backends_export_the_same_graph(neo4j_store, tmp_path, user):
    sqlite_store = open_store(f"sqlite:///{tmp_path / 'same.db'}", dimension=DIM)
    batch = _full_graph(user).batch
    for record in [*batch.episodes, *batch.memories, *batch.versions, *batch.entities, *batch.edges]:
        for name in ("recorded_at", "created_at", "tx_from"):  # the store's clock would differ
            if hasattr(record, name):
                setattr(record, name, at(11))
    sqlite_store.write(batch)
    neo4j_store.write(batch)
    assert _comparable(sqlite_store.export_graph(user)) == _comparable(neo4j_store.export_graph(user))
    sqlite_store.close()


def test_failure_mid_batch_writes_nothing(store, backend, user, monkeypatch):
    b = _full_graph(user)
    if backend == "neo4j":  # one statement writes every table: fail after it, before the commit
        real_insert = store._insert

        def failing_after(tx, *args, **kwargs):
            real_insert(tx, *args, **kwargs)
            raise RuntimeError("injected failure after writing every table")

        monkeypatch.setattr(store, "_insert", failing_after)
    else:
        real = store._insert_rows

        def failing(tx, table, records, now):
            if table == "edges":
                raise RuntimeError("injected failure while writing edges")
            return real(tx, table, records, now)

        monkeypatch.setattr(store, "_insert_rows", failing)
    with pytest.raises(RuntimeError, match="injected"):
        store.write(b.batch)
    monkeypatch.undo()
    assert all(n == 0 for n in store.counts(user).values())
    assert store.vector_search(vec(1, 0.2), SearchFilter(user), 5) == []
    store.write(b.batch)  # the same batch goes through once the fault is gone
    assert store.counts(user)["edges"] == 6


def test_schema_setup_is_idempotent(store_url, user):
    first = open_store(store_url, dimension=DIM)
    b = Builder(user)
    b.memory("kept across re-opening", vec(1))
    first.write(b.batch)
    second = open_store(store_url, dimension=DIM)
    third = open_store(store_url)  # the dimension is read back from the store
    assert third.dimension == DIM
    assert len(second.vector_search(vec(1), SearchFilter(user), 5)) == 1
    for s in (first, second, third):
        s.close()


def test_record_access_and_content_hash(store, user):
    b = Builder(user)
    mem, ver = b.memory("I like green tea", vec(1))
    store.write(b.batch)
    store.record_access(user, [mem.id, mem.id, "mem_unknown"], at=at(4))
    store.record_access(user, [mem.id], at=at(5))
    [got] = store.get_memories(user, [mem.id])
    assert (got.access_count, got.last_accessed_at) == (2, at(5))
    from dualmem_core.store.models import content_hash

    found = store.find_by_content_hash(user, [content_hash("  i LIKE green   tea ")])
    assert [v.id for v in found] == [ver.id]


def test_empty_batch_is_a_no_op(store, user):
    store.write(WriteBatch())
    assert store.counts(user)["memories"] == 0


def test_find_entities_by_name_and_alias(store, user, other_user):
    b = Builder(user)
    bob = b.entity("Robert  Smith", aliases=("Bob", "Bobby"))
    b.entity("Lyon", "place")
    store.write(b.batch)
    Builder(other_user, store_batch := Builder(other_user).batch).entity("Bob")
    store.write(store_batch)
    assert [e.id for e in store.find_entities(user, ["bob"])] == [bob.id]
    assert [e.id for e in store.find_entities(user, ["ROBERT smith", "bobby"])] == [bob.id]
    assert store.find_entities(user, ["Rob", "  "]) == []


def test_list_facts_and_memory_owner(store, user):
    b = Builder(user)
    old, _ = b.memory("lives in Seattle", vec(1), valid_from=at(1), valid_to=at(3),
                      subject="user", predicate="lives_in", object="Seattle")
    new, _ = b.memory("lives in Portland", vec(1), valid_from=at(3),
                      subject="user", predicate="lives_in", object="Portland")
    b.memory("likes tea", vec(1), subject="user", predicate="likes", object="tea")
    b.memory("an observation without a triple", vec(1), kind="observation")
    store.write(b.batch)
    assert [h.memory.id for h in store.list_facts(SearchFilter(user, valid_at=at(4)),
                                                  predicates=["lives_in"])] == [new.id]
    objects = [h.version.object for h in store.list_facts(SearchFilter(user))]
    assert objects[0] == "Portland" and sorted(objects[1:]) == ["Seattle", "tea"]  # latest first
    assert store.memory_owner(old.id) == user
    from dualmem_core import NotFound

    with pytest.raises(NotFound):
        store.memory_owner("mem_missing")


def test_nearest_memories_for_a_batch(store, user, other_user):
    from dualmem_core.store import changes as ch

    b = Builder(user)
    a, av = b.memory("a", vec(1, 0, 0))
    near, _ = b.memory("b", vec(1, 0.3, 0))
    b.memory("c", vec(0, 0, 1))
    closed, cv = b.memory("closed", vec(1, 0.01, 0))
    store.write(b.batch)
    stranger = Builder(other_user)
    stranger.memory("theirs", vec(1, 0, 0))
    store.write(stranger.batch)
    store.apply_changes(ch.ChangeSet(user, "close", [ch.CloseVersion(cv.id)]))
    first, second = store.nearest_memories(user, [vec(1, 0, 0), vec(0, 1, 0)], k=2, min_score=0.5)
    assert [m for m, _ in first] == [a.id, near.id]
    assert first[0][1] == pytest.approx(1.0, abs=1e-5)
    assert second == []  # nothing of this user's is within 0.5 of it


def test_text_search_reaches_past_the_first_page_of_matches(store, user):
    """120 better-matching versions are filtered out by valid time; the one admitted still comes."""
    b = Builder(user)
    for i in range(120):
        b.memory(f"apple {i}", vec(1), valid_from=at(1), valid_to=at(2))
    wanted, _ = b.memory("an apple among many other long and rambling words about the orchard",
                         vec(1), valid_from=at(5))
    store.write(b.batch)
    hits = store.text_search("apple", SearchFilter(user, valid_at=at(6)), 3)
    assert [h.memory.id for h in hits] == [wanted.id]


def test_search_text_is_matched_and_never_shown(store, user):
    """Full-text search matches a version by its search text (the speaker and the turns around
    the message) when it has one, by its text otherwise; what it shows is always the text."""
    from dualmem_core.errors import InvalidInput

    b = Builder(user)
    context, context_version = b.memory(
        "Yes, it was amazing!", vec(1), kind="observation",
        search_text="Caroline: Yes, it was amazing!\nMelanie: How was the pottery workshop?")
    plain, _ = b.memory("I signed up for a pottery class", vec(0, 1), kind="observation")
    store.write(b.batch)

    hits = store.text_search("workshop", SearchFilter(user), 5)
    assert [h.memory.id for h in hits] == [context.id]
    assert hits[0].version.text == "Yes, it was amazing!"  # the display text, never the search text
    assert hits[0].version.search_text == context_version.search_text
    assert {h.memory.id for h in store.text_search("pottery", SearchFilter(user), 5)} == {
        context.id, plain.id}
    assert [h.memory.id for h in store.text_search("signed class", SearchFilter(user), 5)] == [plain.id]
    _, by_text, by_cue = store.hybrid_search(vec(0, 0, 1), "Melanie", SearchFilter(user), 5,
                                             cues="workshop")
    assert [h.memory.id for h in by_text] == [context.id] == [h.memory.id for h in by_cue]
    assert by_text[0].version.text == "Yes, it was amazing!"

    [exported] = [v for v in store.export_graph(user).versions if v.memory_id == context.id]
    assert exported.search_text == context_version.search_text
    [read] = store.get_versions(user, [context.id])
    assert (read.text, read.search_text) == ("Yes, it was amazing!", context_version.search_text)

    before = store.counts(user)
    for bad in ("x" * 2_000_001, 42, "   "):
        refused = Builder(user)
        refused.memory("fine text", vec(1), search_text=bad)
        with pytest.raises(InvalidInput, match="search_text"):
            store.write(refused.batch)
    assert store.counts(user) == before


def test_a_neo4j_store_made_before_search_texts_is_migrated(neo4j_store, neo4j_uri, user):
    """A store whose fulltext index reads ``text`` and whose versions lack ``search`` (what
    dualmem made before search texts): opening it fills ``search`` and rebuilds the index."""
    from neo4j import GraphDatabase

    from dualmem_core.store.neo4j.schema import FULLTEXT_INDEX, FULLTEXT_PROPERTIES

    b = Builder(user)
    old, _ = b.memory("Rosalind plays the cello", vec(1))
    neo4j_store.write(b.batch)
    with GraphDatabase.driver(neo4j_uri, auth=None) as driver:
        def run(query, **params):
            with driver.session() as session:
                return session.run(query, **params).data()

        try:
            run(f"DROP INDEX {FULLTEXT_INDEX}")
            run(f"CREATE FULLTEXT INDEX {FULLTEXT_INDEX} FOR (n:MemoryVersion) ON EACH [n.text, n.user_key] "
                "OPTIONS {indexConfig: {`fulltext.analyzer`: 'english'}}")
            run("MATCH (v:MemoryVersion {user_id: $user}) REMOVE v.search", user=user)
        finally:  # opening migrates: the shared server's index is right again for later tests
            reopened = open_store(neo4j_uri, dimension=DIM)
        try:
            [index] = run("SHOW INDEXES YIELD name, properties WHERE name = $name RETURN properties",
                          name=FULLTEXT_INDEX)
            assert index["properties"] == FULLTEXT_PROPERTIES
            assert run("MATCH (v:MemoryVersion {user_id: $user}) RETURN v.search AS s", user=user) == [
                {"s": "Rosalind plays the cello"}]
            assert [h.memory.id for h in reopened.text_search("cello", SearchFilter(user), 5)] == [old.id]
            [read] = reopened.get_versions(user, [old.id])
            assert read.search_text is None
        finally:
            reopened.close()
