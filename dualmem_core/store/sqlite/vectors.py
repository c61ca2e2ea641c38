"""An in-process copy of one user's vectors, so a query is one matrix product, not a table read.

The cache holds unit vectors and the columns a search filters on. Filters become a mask over
every row before top-k is taken, so a time or scope filter never thins out the results.

From PRUNE_ROWS rows on, the neighbour search of a write (``top_k_many``) reads the cache
through a bound first. Rows are also kept as their first ``HEAD`` coordinates in the cache's
principal directions, and the length of the rest: for unit vectors

    q . x  <=  q_head . x_head + |q_rest| * |x_rest|      (Cauchy-Schwarz on the rest)

so a row whose bound is below the write's neighbour threshold cannot score above it, and is
not scored in full. The bound costs a quarter of a full product (96 of 384 coordinates). With
64 coordinates, on the writer benchmark's chat text (hashing embedder, 100k rows: the top 64
directions hold 78% of the variance) it left 1.5% of the rows for one query (p90 3.9%); a
batch's queries share one bound product, and a block of rows is scored in full only where some
query's bound passes (35% of the rows for a batch of 41). The links are those of a full scan,
up to float32 rounding in the last bit of a cosine. From GROUPED_ROWS rows on, the search
looks only in the groups of rows nearest each query (``clusters.py``), through the same bound.

From APPROX_ROWS rows on, recall's ``top_k`` is approximate: the same head coordinates rank
every admitted row (a quarter of the bytes of the full vectors, so a quarter of the scan), and
the best CANDIDATES of them are scored in full. A full scan of 100k x 384 float32 reads 150 MB
(12 ms on this machine); the head pass reads 39 MB. On the writer benchmark at 100k (hashing
embedder) the top 20 agreed with the exact scan on 98.1-98.8% of rows (``benchmarks/writer.py``
prints the agreement it measures). Filters mask the head scores before the candidates are
picked, so they never thin out the results.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ...timeutil import FAR_FUTURE, to_micros
from ..models import SearchFilter
from ..principal import fit_basis, grow, with_rest
from .clusters import HeadGroups

FAR = to_micros(FAR_FUTURE)
_BLOCK = 16384  # rows scored at a time by ``top_k_many``: bounds the scratch matrix
PRUNE_ROWS = 5_000  # from this many rows on, ``top_k_many`` prunes by the bound; below, all rows
HEAD = 96  # principal coordinates kept per row for the bound and recall's first pass
APPROX_ROWS = 20_000  # from this many rows on, ``top_k`` ranks by the head, then rescores
CANDIDATES = 1000  # rows ``top_k`` scores in full after the head pass
GROUPED_ROWS = 20_000  # from this many rows on, ``top_k_many`` searches the nearest groups only
_SAMPLE = 4096  # rows the principal directions are computed from
_SLACK = 1e-4  # float32 rounding in the bound is far smaller: no row above the threshold is lost


@dataclass
class _Codes:
    """Small-integer codes for repeated strings (kinds, statuses, scopes)."""

    index: dict[str | None, int] = field(default_factory=dict)

    def code(self, value: str | None) -> int:
        return self.index.setdefault(value, len(self.index))

    def lookup(self, value: str | None) -> int:
        return self.index.get(value, -1)


class UserVectors:
    """Vectors and filter columns of one user's versions that have an embedding."""

    COLUMNS = ("rid", "valid_from", "valid_to", "tx_from", "tx_to", "kind", "status", "agent",
               "session")

    def __init__(self, dimension: int, generation: int):
        self.generation = generation
        self.size = 0
        self.matrix = np.zeros((0, dimension), dtype=np.float32)
        self.cols = {name: np.zeros(0, dtype=np.int64) for name in self.COLUMNS}
        self.codes = {name: _Codes() for name in ("kind", "status", "agent", "session")}
        self.rids_sorted = True  # rows come in rid order: ``admits`` finds a rid by bisection
        self.basis: np.ndarray | None = None  # (dimension, HEAD) principal directions, once pruning
        self.fitted_at = 0  # rows when the basis was computed; refitted when they double
        self.groups: HeadGroups | None = None  # for the neighbour search from GROUPED_ROWS on
        # Per row (a column here): the HEAD coordinates, then |x_rest| rounded up. A query gets
        # the same shape (its head, then its |q_rest|), so the bound of every row is one matrix
        # product. Stored a row per coordinate: a product with a vector then streams over long
        # rows, two to three times faster than over 97-float rows.
        self.head_t = np.zeros((HEAD + 1, 0), dtype=np.float32)

    def append(self, rows: list[tuple]) -> None:
        """Add rows of (rid, blob, valid_from, valid_to, tx_from, tx_to, kind, status, agent, session)."""
        if not rows:
            return
        need = self.size + len(rows)
        if need > self.matrix.shape[0]:
            capacity = max(need, 2 * self.matrix.shape[0], 1024)
            self.matrix = grow(self.matrix, capacity)
            self.cols = {k: grow(v, capacity) for k, v in self.cols.items()}
            if self.basis is not None:
                self.head_t = grow(self.head_t.T, capacity).T.copy()
        block = np.frombuffer(b"".join(r[1] for r in rows), dtype=np.float32)
        block = block.reshape(len(rows), self.matrix.shape[1])
        norms = np.linalg.norm(block, axis=1, keepdims=True)
        self.matrix[self.size:need] = block / norms
        for offset, name in ((0, "rid"), (2, "valid_from"), (3, "valid_to"), (4, "tx_from"),
                             (5, "tx_to")):
            self.cols[name][self.size:need] = [r[offset] for r in rows]
        rids = self.cols["rid"][max(self.size - 1, 0):need]
        self.rids_sorted = self.rids_sorted and bool((np.diff(rids) > 0).all())
        for offset, name in ((6, "kind"), (7, "status"), (8, "agent"), (9, "session")):
            codes = self.codes[name]
            self.cols[name][self.size:need] = [codes.code(r[offset]) for r in rows]
        if self.basis is not None:
            self._project(self.size, need)
            if self.groups is not None:
                self.groups.assign(self.head_t[:HEAD, self.size:need].T)
        self.size = need

    def top_k(self, unit_query: np.ndarray, flt: SearchFilter, k: int) -> list[tuple[int, float]]:
        """(rid, cosine) of the best k rows the filter admits, best first."""
        if self.size == 0:
            return []
        if self.size >= APPROX_ROWS and self._prunes():
            return self._top_k_by_head(unit_query, flt, k)
        # All rows, not through the bound: a short question's k-th best score is low, and the
        # bound then rules out too few rows (for two in three of the benchmark's questions it
        # left over a quarter of the rows to score, and the scattered rows cost more to gather).
        scores = self.matrix[: self.size] @ unit_query
        scores[~self._mask(flt)] = -np.inf
        return self._best(np.arange(self.size), scores, k)

    def _top_k_by_head(self, unit_query: np.ndarray, flt: SearchFilter, k: int) -> list[tuple[int, float]]:
        """``top_k`` through the head: the CANDIDATES admitted rows whose head coordinates score
        best against the query's, scored in full (the module docstring says how close it is)."""
        assert self.basis is not None
        query_head = np.append(unit_query @ self.basis, np.float32(0.0))  # the rest column ignored
        rough = query_head @ self.head_t[:, : self.size]
        rough[~self._mask(flt)] = -np.inf
        wanted = min(max(CANDIDATES, k), self.size)
        rows = np.argpartition(-rough, wanted - 1)[:wanted]
        rows = rows[np.isfinite(rough[rows])]
        return self._best(rows, self.matrix[rows] @ unit_query, k)

    def _best(self, rows: np.ndarray, scores: np.ndarray, k: int) -> list[tuple[int, float]]:
        """(rid, score) of the k best finite scores of ``rows``, best first."""
        k = min(k, rows.size)
        if k == 0:
            return []
        top = np.argpartition(-scores, k - 1)[:k]
        top = top[np.argsort(-scores[top], kind="stable")]
        rids = self.cols["rid"]
        return [(int(rids[rows[i]]), float(scores[i])) for i in top if np.isfinite(scores[i])]

    def top_k_many(self, unit_queries: np.ndarray, flt: SearchFilter, k: int,
                   min_score: float) -> list[list[tuple[int, float]]]:
        """``top_k`` for many queries with one pass over the matrix, above ``min_score``.

        Only scores at or above ``min_score`` can be returned, so only they are ranked: a pass
        keeps those (usually a handful) instead of partitioning every row for every query.
        """
        if self.size == 0:
            return [[] for _ in unit_queries]
        k = min(k, self.size)
        mask = self._mask(flt)
        if self.size >= GROUPED_ROWS and self._prunes():
            rows, cols, scores = self._above_grouped(unit_queries, mask, min_score)
        elif self._prunes():
            rows, cols, scores = self._above_pruned(unit_queries, mask, min_score)
        else:
            rows, cols, scores = self._above(unit_queries, mask, min_score)
        rids = self.cols["rid"]
        out: list[list[tuple[int, float]]] = [[] for _ in unit_queries]
        # By query, then best score first (equal scores in row order); the first k of each query.
        order = np.lexsort((rows, -scores, cols))
        cols, rows, scores = cols[order], rows[order], scores[order]
        starts = np.searchsorted(cols, cols, side="left")
        for i in np.flatnonzero(np.arange(cols.size) - starts < k):
            out[cols[i]].append((int(rids[rows[i]]), float(scores[i])))
        return out

    def _above(self, unit_queries: np.ndarray, mask: np.ndarray,
               min_score: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(row, query, score) of every admitted row scoring at least ``min_score``: all rows."""
        found = [self._scored(start, self.matrix[start: min(start + _BLOCK, self.size)], unit_queries,
                              mask, min_score) for start in range(0, self.size, _BLOCK)]
        return tuple(np.concatenate(a) for a in zip(*found, strict=True))

    def _scored(self, start: int, rows_block: np.ndarray, unit_queries: np.ndarray, mask: np.ndarray,
                min_score: float, at: np.ndarray | None = None) -> tuple[np.ndarray, ...]:
        """(row, query, score) at or above ``min_score`` among ``rows_block`` (rows ``start + at``,
        or ``start`` onwards), scored in full against every query."""
        if len(unit_queries) <= 3:  # a matrix-vector product each: BLAS is slow at thin products
            block = np.stack([rows_block @ q for q in unit_queries], axis=1)
        else:
            block = rows_block @ unit_queries.T
        rows, cols = np.nonzero(block >= min_score)
        values = block[rows, cols]
        rows = start + (rows if at is None else at[rows])
        keep = mask[rows]
        return rows[keep], cols[keep], values[keep]

    def _above_pruned(self, unit_queries: np.ndarray, mask: np.ndarray,
                      min_score: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``_above`` through the bound: a block's rows are scored in full only if the bound
        cannot rule them out for some query, against all queries (one product, then the same
        ``>= min_score`` test, so the rows and scores found are those of ``_above``)."""
        rested = with_rest(unit_queries, self.basis)
        # One to three queries (a single remember): a matrix-vector product each, over all rows
        # at once (BLAS is slow at thin matrix products, and a product per block costs more).
        thin = len(unit_queries) <= 3
        bounds = np.max([q @ self.head_t[:, : self.size] for q in rested], axis=0) if thin else None
        found = []
        for start in range(0, self.size, _BLOCK):
            end = min(start + _BLOCK, self.size)
            # All queries' bounds in one product, a quarter of the cost of the full scores.
            if bounds is not None:
                bound = bounds[start:end]
            else:
                bound = (rested @ self.head_t[:, start:end]).max(axis=0)
            possible = np.flatnonzero((bound >= min_score - _SLACK) & mask[start:end])
            if possible.size > (end - start) // 2:  # too few ruled out: scoring all beats gathering
                found.append(self._scored(start, self.matrix[start:end], unit_queries, mask, min_score))
            elif possible.size:
                found.append(self._scored(start, self.matrix[start + possible], unit_queries, mask,
                                          min_score, possible))
        if not found:
            empty = np.zeros(0, dtype=np.intp)
            return empty, empty, np.zeros(0, dtype=np.float32)
        return tuple(np.concatenate(a) for a in zip(*found, strict=True))

    def _above_grouped(self, unit_queries: np.ndarray, mask: np.ndarray,
                       min_score: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``_above`` over the rows of each query's nearest groups and the unsorted tail
        (``clusters.py``): the bound first, then full scores of the rows it leaves."""
        groups = self._grouped()
        rested = with_rest(unit_queries, self.basis)
        floor = min_score - _SLACK
        batches = list(groups.candidates(rested, floor))
        if groups.sorted_upto < self.size:  # written since the last sort: every query scans them
            bound = rested @ self.head_t[:, groups.sorted_upto: self.size]
            passing = np.flatnonzero((bound >= floor).any(axis=0))
            batches.append((np.arange(len(unit_queries)), groups.sorted_upto + passing))
        found = [(np.zeros(0, dtype=np.intp), np.zeros(0, dtype=np.intp), np.zeros(0, dtype=np.float32))]
        for asking, rows in batches:  # each group's rows read once, scored against its queries
            rows = rows[mask[rows]]
            scores = self.matrix[rows] @ unit_queries[asking].T
            r, q = np.nonzero(scores >= min_score)
            found.append((rows[r], asking[q], scores[r, q]))
        return tuple(np.concatenate(a) for a in zip(*found, strict=True))

    def _grouped(self) -> HeadGroups:
        """The rows' groups, fitted and sorted when missing, re-sorted when their tail is long."""
        if self.groups is None:
            heads = self.head_t[:HEAD, : self.size].T
            self.groups = HeadGroups(heads)
            self.groups.assign(heads)
            self.groups.sort(self.head_t[:, : self.size])
        elif self.groups.stale():
            self.groups.sort(self.head_t[:, : self.size])
        return self.groups

    def _prunes(self) -> bool:
        """Whether the bound is in use; (re)computes the principal directions when due."""
        if self.size < PRUNE_ROWS:
            return False
        if self.basis is None or self.size >= 2 * self.fitted_at:
            # Any orthonormal basis keeps the bound true; the leading directions of the rows'
            # second moments make it tight.
            sample = self.matrix[np.linspace(0, self.size - 1, min(self.size, _SAMPLE)).astype(np.intp)]
            self.basis = fit_basis(sample, HEAD)
            self.fitted_at = self.size
            self.groups = None  # fitted on the old head: fitted again when next needed
            self.head_t = np.zeros((HEAD + 1, self.matrix.shape[0]), dtype=np.float32)
            for start in range(0, self.size, _BLOCK):
                self._project(start, min(start + _BLOCK, self.size))
        return True

    def _project(self, start: int, end: int) -> None:
        """Head coordinates and rest lengths of rows start..end."""
        self.head_t[:, start:end] = with_rest(self.matrix[start:end], self.basis).T


    def admits(self, rids: np.ndarray, flt: SearchFilter) -> tuple[np.ndarray, np.ndarray]:
        """(held, admitted) for each rid: whether this cache holds its row (a version without an
        embedding is not here), and if so whether the filter admits it."""
        held = np.zeros(rids.size, dtype=bool)
        admitted = np.zeros(rids.size, dtype=bool)
        if not self.rids_sorted or self.size == 0:
            return held, admitted
        column = self.cols["rid"][: self.size]
        at = np.minimum(np.searchsorted(column, rids), self.size - 1)
        held = column[at] == rids
        admitted[held] = self._mask(flt, at[held])
        return held, admitted

    def _mask(self, flt: SearchFilter, at: np.ndarray | None = None) -> np.ndarray:
        """Which rows (all, or those at ``at``) the filter admits."""
        c = {name: col[: self.size] if at is None else col[at] for name, col in self.cols.items()}
        if flt.known_at is None:
            mask = c["tx_to"] == FAR
        else:
            known = to_micros(flt.known_at)
            mask = (c["tx_from"] <= known) & (known < c["tx_to"])
        if flt.valid_at is not None:
            valid = to_micros(flt.valid_at)
            mask &= (c["valid_from"] <= valid) & (valid < c["valid_to"])
        for name, wanted in (("agent", flt.agent_id), ("session", flt.session_id)):
            if wanted is not None:
                mask &= c[name] == self.codes[name].lookup(wanted)
        for name, allowed in (("kind", flt.kinds), ("status", flt.statuses)):
            if allowed is not None:  # a few values: comparisons beat np.isin's sort
                codes = [self.codes[name].lookup(v) for v in allowed]
                mask &= np.logical_or.reduce([c[name] == code for code in codes]) if codes else False
        return mask

