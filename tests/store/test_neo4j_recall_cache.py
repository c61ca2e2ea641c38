"""Neo4j's vector search ranks current versions exactly by the process's vector cache (never the
shared HNSW index, whose top N over every user's vectors moved a user's hits): the filters applied to its best
candidates in order, widened until k pass, another store object's writes and deletions seen;
a past ``known_at`` is a user-scoped scan on the server. And ``sources_of`` in one statement
answers as the two reads it replaces; after deletions the cache resyncs by id."""

from __future__ import annotations

import numpy as np
import pytest
from builders import Builder, at
from conftest import vec

from dualmem_core.store import EdgeType, SearchFilter, Store
from dualmem_core.store import changes as ch
from dualmem_core.store.neo4j import store as neo4j_module
from dualmem_core.store.neo4j.vectors import UserVectors


def _near(i: int) -> np.ndarray:
    """Vectors close to vec(1, 0), each a little further than the one before."""
    return vec(1.0, 0.01 * (i + 1))


@pytest.mark.neo4j
def test_filters_widen_the_candidates_until_k_pass(neo4j_store, user):
    b = Builder(user)
    crowd = [b.memory(f"close {i}", _near(i), mem_kw={"session_id": "a"})[0] for i in range(40)]
    far, _ = b.memory("far", vec(0.2, 1.0), mem_kw={"session_id": "b"})
    neo4j_store.write(b.batch)
    # 40 better candidates are rejected by the session filter: the first try (k * CACHE_FETCH)
    # holds none that passes, so it must widen rather than return fewer than k.
    hits = neo4j_store.vector_search(vec(1, 0), SearchFilter(user, session_id="b"), k=1)
    assert [h.memory.id for h in hits] == [far.id]
    assert hits[0].score == pytest.approx(float(vec(0.2, 1.0) @ vec(1, 0) / np.linalg.norm(vec(0.2, 1.0))),
                                          abs=1e-5)
    best = neo4j_store.vector_search(vec(1, 0), SearchFilter(user), k=3)
    assert [h.memory.id for h in best] == [m.id for m in crowd[:3]]  # exact order, cosine scores
    assert best[0].score > best[1].score > best[2].score


@pytest.mark.neo4j
def test_the_exact_ranking_sees_another_store_objects_writes_and_deletions(two_stores, user):
    reader, writer = two_stores
    b = Builder(user)
    for i in range(12):  # closer than what session b holds: they crowd the index's candidates
        b.memory(f"close {i}", _near(i), mem_kw={"session_id": "a"})
    east, _ = b.memory("east", vec(1, 0.5), mem_kw={"session_id": "b"})
    writer.write(b.batch)
    in_b = SearchFilter(user, session_id="b")
    assert [h.memory.id for h in reader.vector_search(vec(1, 0), in_b, k=2)] == [east.id]  # cache loaded
    b = Builder(user)
    closer, _ = b.memory("closer", vec(1, 0.4), mem_kw={"session_id": "b"})
    writer.write(b.batch)  # the reader's cache is a seq behind: the clock in the result says so
    assert [h.memory.id for h in reader.vector_search(vec(1, 0), in_b, k=2)] == [closer.id, east.id]
    writer.forget(user, memory_ids=[closer.id])  # a new epoch: the reader resyncs the user
    assert [h.memory.id for h in reader.vector_search(vec(1, 0), in_b, k=2)] == [east.id]


@pytest.mark.neo4j
def test_a_past_known_at_finds_closed_versions_by_a_user_scoped_scan(neo4j_store, user, monkeypatch):
    b = Builder(user)
    old, old_v = b.memory("old", vec(1, 0))
    neo4j_store.write(b.batch)
    before = neo4j_store.get_versions(user, [old.id])[0].tx_from
    neo4j_store.apply_changes(ch.ChangeSet(user, "close", [ch.CloseVersion(old_v.id)]))
    assert neo4j_store.vector_search(vec(1, 0), SearchFilter(user), k=1) == []
    queries = []
    run = neo4j_module.Neo4jStore._searches

    def recording(self, heads, params, clock=False):
        queries.extend(heads)
        return run(self, heads, params, clock)

    monkeypatch.setattr(neo4j_module.Neo4jStore, "_searches", recording)
    hits = neo4j_store.vector_search(vec(1, 0), SearchFilter(user, known_at=before), k=1)
    assert [h.version.id for h in hits] == [old_v.id]
    assert hits[0].score == pytest.approx(1.0, abs=1e-5)
    # The shared HNSW index is never asked: its top N over every user moved a user's hits.
    assert any("vector.similarity.cosine" in q for q in queries)
    assert not any("db.index.vector.queryNodes" in q for q in queries)


@pytest.mark.neo4j
def test_sources_of_in_one_statement_matches_the_two_reads(neo4j_store, user):
    b = Builder(user)
    late = b.episode("late", at(3), source_id="s-late")
    early = b.episode("early", at(1), source_id="s-early")
    unnamed = b.episode("no source id", at(2))
    both, _ = b.memory("both", vec(1, 0), episode=late)
    b.edge(EdgeType.FROM, both.id, early.id)
    b.edge(EdgeType.FROM, both.id, unnamed.id)
    lonely, _ = b.memory("no episode", vec(0, 1))
    neo4j_store.write(b.batch)
    ids = [both.id, lonely.id, "mem-missing"]
    one_statement = neo4j_store.sources_of(user, ids)
    assert one_statement == {both.id: ["s-early", unnamed.id, "s-late"]}
    assert one_statement == Store._sources_of(neo4j_store, user, ids)
    assert neo4j_store.sources_of("someone-else", ids) == {}


@pytest.mark.neo4j
def test_a_deletion_resyncs_the_cache_by_id_without_reloading_the_vectors(two_stores, user, monkeypatch):
    reader, writer = two_stores
    b = Builder(user)
    kept = [b.memory(f"kept {i}", vec(seed=i))[0] for i in range(3)]
    gone, _ = b.memory("gone", vec(1, 0))
    writer.write(b.batch)
    assert len(reader.nearest_memories(user, [vec(1, 0)], 5, -1.0)[0]) == 4  # loaded whole
    writer.forget(user, memory_ids=[gone.id])  # a new epoch
    b = Builder(user)
    new, _ = b.memory("new", vec(0, 1))
    writer.write(b.batch)
    applied = []
    apply = UserVectors.apply

    def recording(self, changes):
        applied.extend(changes)
        return apply(self, changes)

    monkeypatch.setattr(UserVectors, "apply", recording)
    found = {m for m, _ in reader.nearest_memories(user, [vec(1, 0)], 5, -1.0)[0]}
    assert found == {*(m.id for m in kept), new.id}
    # one row dropped, one vector fetched: the three kept vectors were not sent again
    assert sorted((current, memory) for _, memory, current, _ in applied) == [(False, ""), (True, new.id)]


@pytest.mark.neo4j
def test_sources_of_a_memory_told_many_times_come_in_time_order(neo4j_store, user):
    b = Builder(user)
    told, _ = b.memory("told again and again", vec(1, 0))
    hours = list(range(150))
    np.random.default_rng(2).shuffle(hours)  # written out of time order
    for hour in hours:
        episode = b.episode("again", at(1, 1 + hour // 24, hour % 24), source_id=f"s{hour:03d}")
        b.edge(EdgeType.FROM, told.id, episode.id)
    neo4j_store.write(b.batch)
    assert neo4j_store.sources_of(user, [told.id]) == {told.id: [f"s{h:03d}" for h in range(150)]}

