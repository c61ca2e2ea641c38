"""The embedded store's neighbour search finds the same rows through its bound as by scoring all;
recall's search over many rows ranks by the head first and stays close to a full scan."""

from __future__ import annotations

import numpy as np
import pytest

from dualmem_core.store import SearchFilter
from dualmem_core.store.projection import with_rest
from dualmem_core.store.sqlite import vectors as V
from dualmem_core.store.sqlite.vectors import FAR, UserVectors
from dualmem_core.timeutil import from_micros

DIM = 192  # more than HEAD: the bound has a rest to bound


def _rows(rng: np.random.Generator, start: int, n: int, centres: np.ndarray) -> list[tuple]:
    """Vectors around a few centres (as chat text clusters), some near-copies, some closed rows."""
    picks = rng.integers(0, len(centres), n)
    vectors = centres[picks] + rng.normal(0, 0.6, (n, DIM)) / np.sqrt(DIM) * rng.uniform(0.2, 2.0, (n, 1))
    vectors = vectors.astype(np.float32)
    tx_to = np.where(rng.random(n) < 0.1, 5, FAR)  # a tenth closed: the mask must keep them out
    return [(start + i, vectors[i].tobytes(), 0, FAR, 0, int(tx_to[i]), "fact", "active", None, None)
            for i in range(n)]


def _search(cache: UserVectors, queries: np.ndarray, threshold: float) -> list[list[tuple[int, float]]]:
    return cache.top_k_many(queries, SearchFilter("u"), 6, threshold)


@pytest.mark.parametrize("threshold", [0.6, 0.75, 0.9])
def test_pruned_neighbours_equal_those_of_a_full_scan(threshold: float, monkeypatch) -> None:
    rng = np.random.default_rng(11)
    centres = rng.normal(size=(40, DIM)).astype(np.float32)
    rows = _rows(rng, 1, V.PRUNE_ROWS + 3000, centres)
    cache = UserVectors(DIM, 0)
    cache.append(rows[: V.PRUNE_ROWS + 1000])
    picks = rng.integers(0, V.PRUNE_ROWS, 40)
    queries = np.asarray([np.frombuffer(rows[i][1], dtype=np.float32) for i in picks])
    queries += rng.normal(0, 0.01, queries.shape).astype(np.float32)  # near, not equal, to stored rows
    queries = (queries / np.linalg.norm(queries, axis=1, keepdims=True)).astype(np.float32)
    for single in ([q] for q in queries[:5]):  # one or two at a time, as a single remember asks
        pruned = _search(cache, np.asarray(single), threshold)
        assert cache.basis is not None
        with monkeypatch.context() as m:
            m.setattr(V, "PRUNE_ROWS", 10**9)
            full = _search(cache, np.asarray(single), threshold)
        _assert_same(pruned, full)
    cache.append(rows[V.PRUNE_ROWS + 1000:])  # rows added after the basis: projected on append
    pruned = _search(cache, queries, threshold)
    assert any(pruned)
    with monkeypatch.context() as m:
        m.setattr(V, "PRUNE_ROWS", 10**9)
        full = _search(cache, queries, threshold)
    _assert_same(pruned, full)


def test_the_bound_and_the_floor_leave_few_rows_to_score_in_full() -> None:
    """A single remember's search scores in full only the rows whose bound reaches the floor its
    best-bounded rows set: a small share of clustered rows, and the answer is a full scan's."""
    rng = np.random.default_rng(5)
    centres = rng.normal(size=(200, DIM)).astype(np.float32)
    cache = UserVectors(DIM, 0)
    cache.append(_rows(rng, 1, V.PRUNE_ROWS, centres))
    assert cache._prunes()
    mask = cache._mask(SearchFilter("u"))
    first = int(np.flatnonzero(mask)[0])  # an open row
    query = cache.matrix[first]
    bound = with_rest(query[None, :], cache.basis)[0] @ cache.head_t[:, : cache.size]
    bound[~mask] = -np.inf
    scored = []
    real_matrix = cache.matrix

    class Spy(np.ndarray):  # records how many rows each gather reads
        def __getitem__(self, index):
            if isinstance(index, np.ndarray):
                scored.append(index.size)
            return np.ndarray.__getitem__(np.asarray(self), index)

    cache.matrix = real_matrix.view(Spy)
    rows, _, scores = cache._best_by_bound(0, query, np.arange(cache.size), bound, 0.75, 6)
    cache.matrix = real_matrix
    exact = np.where(mask, real_matrix[: cache.size] @ query, -np.inf)
    best = np.argsort(-exact, kind="stable")[:6]
    assert set(best[exact[best] >= 0.75].tolist()) <= set(rows.tolist()) and first in rows
    assert (scores >= 0.75).all()
    assert sum(scored) < 0.05 * cache.size, scored


def test_the_basis_is_refitted_when_the_rows_double() -> None:
    rng = np.random.default_rng(2)
    centres = rng.normal(size=(20, DIM)).astype(np.float32)
    cache = UserVectors(DIM, 0)
    cache.append(_rows(rng, 1, V.PRUNE_ROWS, centres))
    assert cache._prunes() and cache.fitted_at == V.PRUNE_ROWS
    cache.append(_rows(rng, V.PRUNE_ROWS + 1, V.PRUNE_ROWS, centres))
    assert cache._prunes() and cache.fitted_at == 2 * V.PRUNE_ROWS
    rows = cache.matrix[: cache.size].astype(np.float64)
    head = rows @ cache.basis.astype(np.float64)
    assert np.allclose(cache.head_t[:-1, : cache.size].T, head, atol=1e-5)
    rest = np.sqrt(np.maximum((rows * rows).sum(axis=1) - (head * head).sum(axis=1), 0))
    assert (cache.head_t[-1, : cache.size] >= rest).all()  # rounded up: the bound stays a bound


def _assert_same(pruned: list, full: list) -> None:
    """The same rows with the same scores, up to float32 rounding in a cosine's last bits: a row
    only one list holds ties the other's k-th score to that rounding."""
    assert len(pruned) == len(full)
    for a, b in zip(pruned, full, strict=True):
        assert np.allclose([s for _, s in a], [s for _, s in b], atol=1e-6)
        for one, other in ((a, b), (b, a)):
            theirs = {rid for rid, _ in other}
            assert all(abs(s - other[-1][1]) < 2e-6 for rid, s in one if rid not in theirs)


def _exact_top(cache: UserVectors, query: np.ndarray, flt: SearchFilter, k: int, monkeypatch) -> list:
    with monkeypatch.context() as m:
        m.setattr(V, "APPROX_ROWS", 10**9)
        return cache.top_k(query, flt, k)


def test_recall_search_over_many_rows_agrees_with_a_full_scan(monkeypatch) -> None:
    monkeypatch.setattr(V, "APPROX_ROWS", 6000)
    rng = np.random.default_rng(3)
    centres = rng.normal(size=(60, DIM)).astype(np.float32)
    cache = UserVectors(DIM, 0)
    cache.append(_rows(rng, 1, 12000, centres))
    queries = centres[rng.integers(0, 60, 30)] + rng.normal(0, 0.5, (30, DIM)).astype(np.float32)
    queries /= np.linalg.norm(queries, axis=1, keepdims=True)
    flt, agreed = SearchFilter("u"), 0
    for query in queries:
        found = cache.top_k(query, flt, 10)
        assert cache.basis is not None  # the head pass ran
        exact = _exact_top(cache, query, flt, 10, monkeypatch)
        agreed += len({r for r, _ in found} & {r for r, _ in exact})
        assert [s for _, s in found] == sorted((s for _, s in found), reverse=True)
        assert found[0] == exact[0]  # the best row is never missed on clustered data
    assert agreed / (10 * len(queries)) >= 0.95


def test_recall_search_over_many_rows_filters_inside_the_search(monkeypatch) -> None:
    """A filter that admits few rows, none of them near the query, still yields k admitted rows."""
    monkeypatch.setattr(V, "APPROX_ROWS", 6000)
    rng = np.random.default_rng(4)
    centres = rng.normal(size=(30, DIM)).astype(np.float32)
    rows = _rows(rng, 1, 12000, centres)
    # One row in 50 was valid during [0, 100), the rest from 200 on.
    rows = [(*r[:2], *((0, 100) if i % 50 == 0 else (200, FAR)), *r[4:]) for i, r in enumerate(rows)]
    cache = UserVectors(DIM, 0)
    cache.append(rows)
    flt = SearchFilter("u")
    query = cache.matrix[7].copy()
    then_valid = {r[0] for i, r in enumerate(rows) if i % 50 == 0 and r[5] == FAR}
    past = SearchFilter("u", valid_at=from_micros(50))
    found = cache.top_k(query, past, 10)
    assert len(found) == 10 and {rid for rid, _ in found} <= then_valid
    assert found == _exact_top(cache, query, past, 10, monkeypatch)
    assert len(cache.top_k(query, flt, 10)) == 10


def test_grouped_neighbours_find_nearly_all_links_of_a_full_scan(monkeypatch) -> None:
    """From GROUPED_ROWS on, a write searches the nearest groups: nearly every link a full scan
    finds, each with the full scan's score, and rows written after the groups were sorted too."""
    monkeypatch.setattr(V, "GROUPED_ROWS", 8000)
    rng = np.random.default_rng(8)
    centres = rng.normal(size=(80, DIM)).astype(np.float32)
    rows = _rows(rng, 1, 13000, centres)
    cache = UserVectors(DIM, 0)
    cache.append(rows[:10000])
    picks = rng.integers(0, 10000, 60)
    queries = np.asarray([np.frombuffer(rows[i][1], dtype=np.float32) for i in picks])
    queries += rng.normal(0, 0.02, queries.shape).astype(np.float32)
    queries = (queries / np.linalg.norm(queries, axis=1, keepdims=True)).astype(np.float32)
    grouped = _search(cache, queries, 0.75)
    assert cache.groups is not None and cache.groups.sorted_upto == 10000
    with monkeypatch.context() as m:
        m.setattr(V, "GROUPED_ROWS", 10**9)
        full = _search(cache, queries, 0.75)
    exact = {(i, rid): s for i, hits in enumerate(full) for rid, s in hits}
    found = {(i, rid): s for i, hits in enumerate(grouped) for rid, s in hits}
    assert len(found.keys() & exact.keys()) >= 0.97 * len(exact) and exact
    assert all(s >= 0.75 for s in found.values())
    for key in found.keys() & exact.keys():
        assert abs(found[key] - exact[key]) < 1e-5
    cache.append(rows[10000:10010])  # the unsorted tail: scanned by every search
    fresh = cache.matrix[10005:10006].copy()
    assert _search(cache, fresh, 0.99)[0][0][0] == rows[10005][0]
    cache.append(rows[10010:])  # a tail past an eighth of the sorted rows is sorted in
    _search(cache, fresh, 0.99)
    assert cache.groups.sorted_upto == cache.size == 13000
