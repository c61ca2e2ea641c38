"""The Neo4j store's per-user vector cache (SIMILAR_TO neighbours) stays exact while other
store objects, as other processes would, add, close, forget and delete what it holds; and
recall's one-statement ``expand`` answers as its separate reads do."""

from __future__ import annotations

import numpy as np
import pytest
from builders import Builder, at
from conftest import DIM, vec

from dualmem_core.store import EdgeType, SearchFilter
from dualmem_core.store import changes as ch
from dualmem_core.store.neo4j import vectors as V
from dualmem_core.store.neo4j.vectors import BOUND_QUERIES, PRUNE_ROWS, UserVectors


def _ids(store, user, vectors, k=3, min_score=0.5):
    return [[m for m, _ in row] for row in store.nearest_memories(user, vectors, k, min_score)]


@pytest.mark.neo4j
def test_another_store_objects_writes_are_seen(two_stores, user):
    reader, writer = two_stores
    b = Builder(user)
    east, _ = b.memory("east", vec(1, 0))
    writer.write(b.batch)
    assert _ids(reader, user, [vec(1, 0), vec(0, 1)]) == [[east.id], []]  # loaded whole
    b = Builder(user)
    north, _ = b.memory("north", vec(0, 1))
    writer.write(b.batch)
    assert _ids(reader, user, [vec(0, 1)]) == [[north.id]]  # fetched since the cache's seq


@pytest.mark.neo4j
def test_closed_reopened_and_forgotten_versions_leave_the_cache(two_stores, user):
    reader, writer = two_stores
    b = Builder(user)
    east, east_v = b.memory("east", vec(1, 0))
    north, _ = b.memory("north", vec(0, 1))
    writer.write(b.batch)
    assert _ids(reader, user, [vec(1, 0)]) == [[east.id]]
    receipt = writer.apply_changes(ch.ChangeSet(user, "close-east", [ch.CloseVersion(east_v.id)]))
    assert _ids(reader, user, [vec(1, 0)]) == [[]]
    closed_at = writer.get_versions(user, [east.id], all_versions=True)[0].tx_to
    writer.apply_changes(ch.ChangeSet(user, "reopen-east", [ch.ReopenVersion(east_v.id, closed_at)]))
    assert receipt.applied == 1 and _ids(reader, user, [vec(1, 0)]) == [[east.id]]
    writer.forget(user, memory_ids=[north.id])  # a deletion: the reader reloads the user
    assert _ids(reader, user, [vec(0, 1), vec(1, 0)]) == [[], [east.id]]


@pytest.mark.neo4j
def test_deleting_the_user_empties_every_cache(two_stores, user):
    reader, writer = two_stores
    b = Builder(user)
    b.memory("east", vec(1, 0))
    writer.write(b.batch)
    assert len(_ids(reader, user, [vec(1, 0)])[0]) == 1
    writer.delete_user(user)
    assert _ids(reader, user, [vec(1, 0)]) == [[]]
    b = Builder(user)
    again, _ = b.memory("east again", vec(1, 0))
    writer.write(b.batch)  # a new clock, a new epoch
    assert _ids(reader, user, [vec(1, 0)]) == [[again.id]]


@pytest.mark.neo4j
def test_own_writes_extend_the_cache_without_a_fetch(neo4j_store, user):
    b = Builder(user)
    b.memory("east", vec(1, 0))
    neo4j_store.write(b.batch)
    assert len(_ids(neo4j_store, user, [vec(1, 0)])[0]) == 1
    entry = neo4j_store._vectors.entry(user)
    seq = entry.seq
    b = Builder(user)
    north, _ = b.memory("north", vec(0, 1))
    neo4j_store.write(b.batch)
    assert entry.seq == seq + 1 and north.id in entry.memory_ids  # applied from the batch itself
    assert _ids(neo4j_store, user, [vec(0, 1)]) == [[north.id]]


@pytest.mark.neo4j
def test_a_failed_write_leaves_the_cache_alone(neo4j_store, user):
    b = Builder(user)
    kept, _ = b.memory("kept", vec(1, 0))
    neo4j_store.write(b.batch)
    assert _ids(neo4j_store, user, [vec(1, 0)]) == [[kept.id]]
    with pytest.raises(Exception, match="already exists"):
        neo4j_store.write(b.batch)  # the same ids again: refused, rolled back
    assert _ids(neo4j_store, user, [vec(1, 0)]) == [[kept.id]]


def test_nearest_is_exact_best_version_per_memory_and_ties_by_id():
    rng = np.random.default_rng(3)
    rows = rng.standard_normal((500, DIM)).astype(np.float32)
    cache = UserVectors(DIM, "epoch", 1)
    cache.apply([(f"v{i}", f"m{i // 2}", True, rows[i]) for i in range(500)])  # two versions each
    queries = rng.standard_normal((4, DIM)).astype(np.float32)
    queries /= np.linalg.norm(queries, axis=1, keepdims=True)
    unit = rows / np.linalg.norm(rows, axis=1, keepdims=True)
    for query, found in zip(queries, cache.nearest(queries, 5, -1.0), strict=True):
        scores = unit @ query
        best = {f"m{m}": float(max(scores[2 * m], scores[2 * m + 1])) for m in range(250)}
        wanted = sorted(best.items(), key=lambda item: (-item[1], item[0]))[:5]
        assert [m for m, _ in found] == [m for m, _ in wanted]
        assert np.allclose([s for _, s in found], [s for _, s in wanted], atol=1e-5)
    same = UserVectors(DIM, "epoch", 1)
    same.apply([("vb", "mb", True, vec(1, 0)), ("va", "ma", True, vec(2, 0)), ("vc", "mc", False, vec(1))])
    assert same.nearest(np.stack([vec(1, 0)]), 5, 0.5) == [[("ma", 1.0), ("mb", 1.0)]]


def test_expand_is_neighbours_then_their_memories_and_versions(store, user):
    """``expand`` (one statement on Neo4j) answers what its three separate reads answer."""
    b = Builder(user)
    seed, _ = b.memory("Alice and Bob went hiking", vec(1), tx_from=at(1))
    held, _ = b.memory("Alice and Bob are married", vec(1), tx_from=at(1))
    via_bob, _ = b.memory("Bob plays chess", vec(1), tx_from=at(1))
    closed, closed_v = b.memory("Bob once played go", vec(1), tx_from=at(1))
    alice, bob = b.entity("Alice"), b.entity("Bob")
    for m in (seed, held):
        b.edge(EdgeType.MENTIONS, m.id, alice.id)
    for m in (seed, held, via_bob, closed):
        b.edge(EdgeType.MENTIONS, m.id, bob.id)
    store.write(b.batch)
    store.apply_changes(ch.ChangeSet(user, "close-go", [ch.CloseVersion(closed_v.id, at=at(6))]))
    for known_at in (None, at(3)):
        flt = SearchFilter(user, known_at=known_at)
        neighbours, memories, versions = store.expand(flt, [seed.id], [held.id], max_entity_degree=4)
        assert neighbours == store.entity_neighbours(user, [seed.id], max_entity_degree=4)
        new = [via_bob.id, closed.id]
        assert sorted(m.id for m in memories) == sorted(m.id for m in store.get_memories(user, new))
        wanted = store.get_versions(user, new, known_at=known_at, embeddings=False)
        assert [(v.id, v.embedding) for v in versions] == [(v.id, None) for v in wanted]
        assert (closed_v.id in {v.id for v in versions}) == (known_at is not None)
    assert store.expand(SearchFilter(user), [], []) == ([], [], [])


def _brute_nearest(unit, memory_of, queries, k, min_score):
    out = []
    for query in queries:
        scores = unit @ query
        best: dict[str, float] = {}
        for row in np.flatnonzero(scores >= min_score):
            memory = memory_of[row]
            if memory is not None:
                best[memory] = max(best.get(memory, -1.0), float(scores[row]))
        out.append(sorted(best.items(), key=lambda item: (-item[1], item[0]))[:k])
    return out


def test_the_bound_finds_exactly_what_a_full_scan_finds():
    # Clustered vectors, as chat messages on few topics are: neighbours above the threshold
    # exist, and most rows are far below it, so the bound prunes (and must prune nothing real).
    rng = np.random.default_rng(5)
    centres = rng.standard_normal((300, DIM)).astype(np.float32)
    n = PRUNE_ROWS + 1500
    rows = centres[rng.integers(0, 300, n)] + 0.6 * rng.standard_normal((n, DIM)).astype(np.float32)
    cache = UserVectors(DIM, "epoch", 1)
    cache.apply([(f"v{i}", f"m{i // 3}", True, rows[i]) for i in range(n - 500)])
    queries = centres[rng.integers(0, 300, 40)] + 0.6 * rng.standard_normal((40, DIM)).astype(np.float32)
    queries /= np.linalg.norm(queries, axis=1, keepdims=True)
    assert BOUND_QUERIES >= 2
    cache.nearest(queries[:1], 3, 0.75)  # fits the bound's directions
    assert cache.basis is not None
    # Rows added after the fit get their bound coordinates; closed ones leave.
    cache.apply([(f"v{i}", f"m{i // 3}", True, rows[i]) for i in range(n - 500, n)])
    cache.apply([(f"v{i}", f"m{i // 3}", False, None) for i in range(0, n, 7)])
    unit = rows / np.linalg.norm(rows, axis=1, keepdims=True)
    memory_of = [None if i % 7 == 0 else f"m{i // 3}" for i in range(n)]
    for threshold in (0.75, 0.5):
        # The bound serves a remember of up to BOUND_QUERIES messages; a batch scores all rows.
        found = [row for i in range(0, 40, 2) for row in cache.nearest(queries[i:i + 2], 3, threshold)]
        assert [[m for m, _ in row] for row in found] == [
            [m for m, _ in row] for row in cache.nearest(queries, 3, threshold)]
        wanted = _brute_nearest(unit, memory_of, queries, 3, threshold)
        assert sum(len(w) for w in wanted) > 40  # the data does have neighbours to find
        for got, want in zip(found, wanted, strict=True):
            assert [m for m, _ in got] == [m for m, _ in want]
            assert np.allclose([s for _, s in got], [s for _, s in want], atol=1e-5)


def test_grouped_neighbours_find_nearly_all_links_of_a_full_scan(monkeypatch):
    """From GROUPED_ROWS on, every search looks in the nearest groups: nearly every link the
    exact search finds, each with its score, never a closed version, and rows written after
    the groups were sorted too."""
    monkeypatch.setattr(V, "GROUPED_ROWS", 8000)
    rng = np.random.default_rng(8)
    dim = 192  # more than HEAD: the bound has a rest to bound
    centres = rng.standard_normal((80, dim)).astype(np.float32)
    n = 13_000
    spread = rng.uniform(0.2, 2.0, (n, 1)).astype(np.float32)  # near-copies and loose ones, as chat
    noise = rng.normal(0, 0.6, (n, dim)).astype(np.float32) / np.sqrt(dim)
    rows = centres[rng.integers(0, 80, n)] + noise * spread
    cache = UserVectors(dim, "epoch", 1)
    cache.apply([(f"v{i}", f"m{i}", True, rows[i]) for i in range(10_000)])
    cache.apply([(f"v{i}", f"m{i}", False, None) for i in range(0, 10_000, 10)])  # a tenth closed
    picks = rng.integers(0, 10_000, 60)
    queries = rows[picks] + rng.normal(0, 0.02, (60, dim)).astype(np.float32)
    queries /= np.linalg.norm(queries, axis=1, keepdims=True)
    grouped = cache.nearest(queries, 6, 0.75)
    assert cache.groups is not None and cache.groups.sorted_upto == 10_000
    with monkeypatch.context() as m:  # the floor only skips rows that cannot be among the k best
        m.setattr(UserVectors, "_floor", lambda *_: -np.inf)
        unfloored = cache.nearest(queries, 6, 0.75)
    assert [[m for m, _ in hits] for hits in unfloored] == [[m for m, _ in hits] for hits in grouped]
    assert np.allclose([s for hits in unfloored for _, s in hits], [s for hits in grouped for _, s in hits],
                       atol=1e-5)  # the same rows' scores, summed in another order
    with monkeypatch.context() as m:
        m.setattr(V, "GROUPED_ROWS", 10**9)
        exact = {(i, mem): s for i, hits in enumerate(cache.nearest(queries, 6, 0.75)) for mem, s in hits}
    found = {(i, mem): s for i, hits in enumerate(grouped) for mem, s in hits}
    assert exact and len(found.keys() & exact.keys()) >= 0.97 * len(exact)
    assert all(s >= 0.75 for s in found.values())
    assert not {mem for _, mem in found} & {f"m{i}" for i in range(0, 10_000, 10)}
    for key in found.keys() & exact.keys():
        assert abs(found[key] - exact[key]) < 1e-5
    cache.apply([(f"v{i}", f"m{i}", True, rows[i]) for i in range(10_000, 10_010)])  # the unsorted tail
    fresh = cache.matrix[10_005:10_006].copy()
    assert cache.nearest(fresh, 1, 0.99)[0][0][0] == "m10005"
    cache.apply([(f"v{i}", f"m{i}", True, rows[i]) for i in range(10_010, n)])  # past an eighth: sorted in
    cache.nearest(fresh, 1, 0.99)
    assert cache.groups.sorted_upto == cache.groups.size == n
