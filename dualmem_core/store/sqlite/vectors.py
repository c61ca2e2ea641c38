"""An in-process copy of one user's vectors, so a query is one matrix product, not a table read.

The cache holds unit vectors and the columns a search filters on. Filters become a mask over
every row before top-k is taken, so a time or scope filter never thins out the results.

From PRUNE_ROWS rows on, the neighbour search of a write (``top_k_many``) reads the cache
through a bound first. Rows are also kept as their first ``HEAD`` coordinates in the cache's
principal directions, and the length of the rest: for unit vectors

    q . x  <=  q_head . x_head + |q_rest| * |x_rest|      (Cauchy-Schwarz on the rest)

so a row whose bound is below the write's neighbour threshold cannot score above it, and is
not scored in full. The bound costs a quarter of a full product (96 of 384 coordinates). Only
a query's k best count, so the rows of best bound are scored first and their k-th best score
raises the threshold for the rest (``_best_by_bound``): near-copies are common in chat, and a
threshold of 0.75 alone left ~300 rows a query to gather and score at 100k. The links are
those of a full scan, up to float32 rounding in the last bit of a cosine. From GROUPED_ROWS
rows on, the search looks only in the groups of rows nearest each query (``store/clusters.py``),
through the same bound.

From APPROX_ROWS rows on, recall's ``top_k`` is approximate: the same head coordinates rank
every admitted row (a quarter of the bytes of the full vectors, so a quarter of the scan), and
the best CANDIDATES of them are scored in full. A full scan of 100k x 384 float32 reads 150 MB;
the head pass reads 39 MB. On the writer benchmark at 100k (hashing
embedder) the top 20 agreed with the exact scan on 98.1-98.8% of rows (``benchmarks/writer.py``
prints the agreement it measures). Filters mask the head scores before the candidates are
picked, so they never thin out the results.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, cast

import numpy as np

from ...timeutil import FAR_FUTURE, to_micros, utcnow
from ..blas import one_thread
from ..models import Edge, MemoryVersion, SearchFilter
from ..projection import grow, with_rest
from ..vector_index import _BLOCK, _SLACK, VectorIndex

FAR = to_micros(FAR_FUTURE)
PRUNE_ROWS = 5_000  # from this many rows on, ``top_k_many`` prunes by the bound; below, all rows
HEAD = 96  # principal coordinates kept per row for the bound and recall's first pass
APPROX_ROWS = 20_000  # from this many rows on, ``top_k`` ranks by the head, then rescores
CANDIDATES = 1000  # rows ``top_k`` scores in full after the head pass
GROUPED_ROWS = 20_000  # from this many rows on, ``top_k_many`` searches the nearest groups only
_MASKS = 8  # filters whose masks are kept until the rows change
_Found = tuple[np.ndarray, np.ndarray, np.ndarray]  # (row, query, score)


@dataclass
class _Codes:
    """Small-integer codes for repeated strings (kinds, statuses, scopes)."""

    index: dict[str | None, int] = field(default_factory=dict)

    def code(self, value: str | None) -> int:
        return self.index.setdefault(value, len(self.index))

    def lookup(self, value: str | None) -> int:
        return self.index.get(value, -1)


class UserVectors(VectorIndex):
    """Vectors and filter columns of one user's versions that have an embedding."""

    HEAD = HEAD
    size: int  # rows stored

    COLUMNS = ("rid", "valid_from", "valid_to", "tx_from", "tx_to", "kind", "status", "agent",
               "session")

    def __init__(self, dimension: int, generation: int):
        self.generation = generation
        self.size = 0
        super().__init__(dimension)
        self.cols = {name: np.zeros(0, dtype=np.int64) for name in self.COLUMNS}
        self.codes = {name: _Codes() for name in ("kind", "status", "agent", "session")}
        self.rids_sorted = True  # rows come in rid order: ``admits`` finds a rid by bisection
        self._rid_order: np.ndarray | None = None  # rows by rid, when they came out of order
        self._masks: dict[tuple, tuple[np.ndarray, np.ndarray]] = {}  # filter -> (admitted, refused)

    def append(self, rows: list[tuple]) -> None:
        """Add rows of (rid, blob, valid_from, valid_to, tx_from, tx_to, kind, status, agent, session)."""
        if not rows:
            return
        need = self.size + len(rows)
        capacity = self._grow(need)
        if capacity is not None:
            self.cols = {k: grow(v, capacity) for k, v in self.cols.items()}
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
        self._masks.clear()
        self._rid_order = None
        with one_thread():  # small products (a batch's rows against the basis and groups): blas.py
            self._added(self.size, need)
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
        scores[self._refused(flt)] = -np.inf
        return self._best(np.arange(self.size), scores, k)

    def _top_k_by_head(self, unit_query: np.ndarray, flt: SearchFilter, k: int) -> list[tuple[int, float]]:
        """``top_k`` through the head: the CANDIDATES admitted rows whose head coordinates score
        best against the query's, scored in full (the module docstring says how close it is)."""
        assert self.basis is not None
        # On one BLAS thread (blas.py): beside another busy process on 2 cores, two threads made
        # this scan wait for the one not running (idle and alone, two were faster). The same
        # products, the same scores.
        with one_thread():
            query_head = np.append(unit_query @ self.basis, np.float32(0.0))  # the rest column ignored
            rough = query_head @ self.head_t[:, : self.size]
            rough[self._refused(flt)] = -np.inf
            wanted = min(max(CANDIDATES, k), self.size)
            rows = np.argpartition(rough, self.size - wanted)[self.size - wanted:]  # no negated copy
            rows = rows[np.isfinite(rough[rows])]
            return self._best(rows, self.matrix[rows] @ unit_query, k)

    def _best(self, rows: np.ndarray, scores: np.ndarray, k: int) -> list[tuple[int, float]]:
        """(rid, score) of the k best finite scores of ``rows``, best first."""
        k = min(k, rows.size)
        if k == 0:
            return []
        top = np.argpartition(-scores, k - 1)[:k]
        top = top[np.argsort(-scores[top], kind="stable")]
        top = top[np.isfinite(scores[top])]
        return list(zip(self.cols["rid"][rows[top]].tolist(), scores[top].tolist(), strict=True))

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
        # Loops of small products, and a few thin ones: on one BLAS thread (blas.py). Beside a
        # busy core, two threads made a batch's search at 10k rows cost twice the CPU time.
        with one_thread():
            if self.size >= GROUPED_ROWS and self._prunes():
                rows, cols, scores = self._above_grouped(unit_queries, mask, min_score, k)
            elif self._prunes():
                rows, cols, scores = self._above_pruned(unit_queries, mask, min_score, k)
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
        return cast(_Found, tuple(np.concatenate(a) for a in zip(*found, strict=True)))

    def _scored(self, start: int, rows_block: np.ndarray, unit_queries: np.ndarray, mask: np.ndarray,
                min_score: float) -> tuple[np.ndarray, ...]:
        """(row, query, score) at or above ``min_score`` among ``rows_block`` (rows ``start``
        onwards), scored in full against every query."""
        if len(unit_queries) <= 3:  # a matrix-vector product each: BLAS is slow at thin products
            block = np.stack([rows_block @ q for q in unit_queries], axis=1)
        else:
            block = rows_block @ unit_queries.T
        rows, cols = np.nonzero(block >= min_score)
        values = block[rows, cols]
        rows = start + rows
        keep = mask[rows]
        return rows[keep], cols[keep], values[keep]

    def _above_pruned(self, unit_queries: np.ndarray, mask: np.ndarray, min_score: float,
                      k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(row, query, score) of the rows that can be among each query's k best at or above
        ``min_score``, through the bound over all rows (``_best_by_bound``)."""
        assert self.basis is not None  # fitted: ``_prunes`` was true
        rested = with_rest(unit_queries, self.basis)
        # Every query's bound on every row: a matrix product block by block; one to three queries
        # (a single remember) a matrix-vector product each, over all rows at once (BLAS is slow
        # at thin matrix products).
        if len(unit_queries) <= 3:
            bounds = np.stack([q @ self.head_t[:, : self.size] for q in rested])
        else:
            bounds = np.hstack([rested @ self.head_t[:, start: min(start + _BLOCK, self.size)]
                                for start in range(0, self.size, _BLOCK)])
        bounds[:, ~mask[: self.size]] = -np.inf
        rows = np.arange(self.size)
        found = [self._best_by_bound(i, q, rows, bound, min_score, k)
                 for i, (q, bound) in enumerate(zip(unit_queries, bounds, strict=True))]
        return cast(_Found, tuple(np.concatenate(a) for a in zip(*found, strict=True)))

    def _above_grouped(self, unit_queries: np.ndarray, mask: np.ndarray, min_score: float,
                       k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """As ``_above_pruned``, over the rows of each query's nearest groups and the unsorted
        tail (``store/clusters.py``)."""
        groups = self._grouped()
        assert self.basis is not None  # fitted: ``_prunes`` was true
        rested = with_rest(unit_queries, self.basis)
        probes = groups.probes(rested[:, :-1])
        tail = np.arange(groups.sorted_upto, self.size)  # written since the last sort: scanned by all
        tail_bounds = rested @ self.head_t[:, groups.sorted_upto: self.size]
        found = []
        for i, q in enumerate(unit_queries):
            rows, bound = groups.bounds(rested[i], probes[i])
            rows, bound = np.concatenate([rows, tail]), np.concatenate([bound, tail_bounds[i]])
            bound[~mask[rows]] = -np.inf
            found.append(self._best_by_bound(i, q, rows, bound, min_score, k))
        return cast(_Found, tuple(np.concatenate(a) for a in zip(*found, strict=True)))

    def _best_by_bound(self, query_index: int, unit_query: np.ndarray, rows: np.ndarray,
                       bound: np.ndarray, min_score: float, k: int) -> tuple[np.ndarray, ...]:
        """(row, query, score) at or above ``min_score`` of every row of ``rows`` that can be
        among the query's k best, given each row's bound (-inf for a row the filter refuses).

        Chat text has many near-copies: on the writer benchmark's 100k rows a new memory had
        about 300 rows above 0.75 in its groups, and gathering all of them to score in full was
        most of the search. So the 2k best-bounded rows are scored first: the k-th best of
        those scores is a floor that no row of the answer lies below, and only rows whose bound
        reaches it are scored. The answer is the one scoring every row would give. (On those
        100k rows 2k picks left 184 rows a query to score, k picks 269, the true k-th best 183.)
        """
        wanted = 2 * k
        picks = np.argpartition(-bound, wanted - 1)[:wanted] if rows.size > wanted else np.arange(rows.size)
        picks = picks[np.isfinite(bound[picks])]
        floor = min_score
        if picks.size >= k:
            floor = max(floor, float(np.partition(self.matrix[rows[picks]] @ unit_query, -k)[-k]))
        passing = np.flatnonzero(bound >= floor - _SLACK)
        scores = self.matrix[rows[passing]] @ unit_query
        keep = scores >= min_score
        return rows[passing[keep]], np.full(int(keep.sum()), query_index, dtype=np.intp), scores[keep]

    def _prunes(self) -> bool:
        """Whether the bound is in use; (re)computes the principal directions when due."""
        return self._fit_when_due(self.size, PRUNE_ROWS)

    def admits(self, rids: np.ndarray, flt: SearchFilter) -> tuple[np.ndarray, np.ndarray]:
        """(held, admitted) for each rid: whether this cache holds its row (a version without an
        embedding is not here), and if so whether the filter admits it."""
        held = np.zeros(rids.size, dtype=bool)
        admitted = np.zeros(rids.size, dtype=bool)
        if self.size == 0:
            return held, admitted
        column = self.cols["rid"][: self.size]
        order = None
        if not self.rids_sorted:  # a vector written after its version (``VectorWrites``)
            if self._rid_order is None:
                self._rid_order = np.argsort(column, kind="stable")
            order = self._rid_order
            column = column[order]
        at = np.minimum(np.searchsorted(column, rids), self.size - 1)
        held = column[at] == rids
        rows = at if order is None else order[at]
        admitted[held] = self._mask(flt)[rows[held]]
        return held, admitted

    def _mask(self, flt: SearchFilter) -> np.ndarray:
        """Which rows the filter admits (shared: do not write to it)."""
        return self._masks_of(flt)[0]

    def _refused(self, flt: SearchFilter) -> np.ndarray:
        """Which rows the filter refuses (shared: do not write to it)."""
        return self._masks_of(flt)[1]

    def _masks_of(self, flt: SearchFilter) -> tuple[np.ndarray, np.ndarray]:
        # A recall applies its filter to every row two to four times (the vector list, the
        # text lists' pages), and the next recall usually the same filter: the columns only
        # change by ``append``, which forgets these.
        key = (flt.agent_id, flt.session_id, flt.valid_at, flt.known_at, flt.kinds, flt.statuses)
        masks = self._masks.get(key)
        if masks is None:
            if len(self._masks) >= _MASKS:
                self._masks.clear()
            admitted = self._mask_of(flt)
            masks = self._masks[key] = (admitted, ~admitted)
        return masks

    def _mask_of(self, flt: SearchFilter) -> np.ndarray:
        def c(name: str) -> np.ndarray:
            return self.cols[name][: self.size]

        if flt.known_at is None:
            mask = c("tx_to") == FAR
        else:
            known = to_micros(flt.known_at)
            mask = (c("tx_from") <= known) & (known < c("tx_to"))
        if flt.valid_at is not None:
            valid = to_micros(flt.valid_at)
            mask &= (c("valid_from") <= valid) & (valid < c("valid_to"))
        for name, wanted in (("agent", flt.agent_id), ("session", flt.session_id)):
            if wanted is not None:
                mask &= c(name) == self.codes[name].lookup(wanted)
        for name, allowed in (("kind", flt.kinds), ("status", flt.statuses)):
            if allowed is not None:  # a few values: comparisons beat np.isin's sort
                codes = [self.codes[name].lookup(v) for v in allowed]
                column = c(name)
                mask &= np.logical_or.reduce([column == code for code in codes]) if codes else False
        return mask


if TYPE_CHECKING:
    from .state import SQLiteState as _Store
else:
    _Store = object


class VectorWrites(_Store):
    """Vectors written after their versions (a mixin of ``SQLiteStore``): the Writer stores a
    memory first and embeds it in the background (``writer/embed_queue.py``)."""

    def _set_vectors(self, user_id: str, vectors: dict[str, np.ndarray], edges: list[Edge]) -> list[str]:
        from ..planning import TargetState

        now = to_micros(utcnow())
        with self._tx() as conn:
            # Only versions still without one: a second writer embedding the same memory (two
            # Writers, or a recovery beside a live queue) sets nothing and links nothing.
            done = [vid for vid, vector in vectors.items() if conn.execute(
                "UPDATE versions SET embedding = ? WHERE id = ? AND user_id = ? AND embedding IS NULL",
                (np.asarray(vector, dtype=np.float32).tobytes(), vid, user_id)).rowcount]
            if not done:
                return []
            rows = conn.execute(
                "SELECT v.rid, v.embedding, v.valid_from, v.valid_to, v.tx_from, v.tx_to, m.kind, "
                "v.status, m.agent_id, m.session_id, v.memory_id FROM versions v "
                "JOIN memories m ON m.id = v.memory_id WHERE v.id IN (SELECT value FROM json_each(?)) "
                "ORDER BY v.rid", (json.dumps(done),)).fetchall()
            linked = {r[10] for r in rows}
            wanted = [e for e in edges if e.src_id in linked]
            state: dict[tuple[str, str], TargetState] = self._read_state(
                conn, {("memory", e.dst_id) for e in wanted})
            wanted = [e for e in wanted if (s := state.get(("memory", e.dst_id))) is not None
                      and s.user_id == user_id]
            self._insert_rows(conn, "edges", wanted, now)
            generation = self._bump(conn, user_id)
        self._vectors_written(user_id, generation, [r[:10] for r in rows])
        return done

    def _vectors_written(self, user_id: str, generation: int, rows: list[tuple]) -> None:
        """Keep the user's caches current after ``_set_vectors`` committed: the vector cache
        gains the rows (out of rid order), the text index and kept reads are unchanged (no
        text, source or mention changed; kept rows hold no vectors and no SIMILAR_TO edges)."""
        with self._lock:
            for caches in (self._kept, self._texts):
                kept = caches.get(user_id)
                if kept is not None and kept.generation == generation - 1:
                    kept.generation = generation
                elif kept is not None:
                    del caches[user_id]
            cache = self._caches.get(user_id)
            if cache is not None and cache.generation == generation - 1:
                cache.append(rows)
                cache.generation = generation
            elif cache is not None:
                del self._caches[user_id]

    def _versions_without_vector(self, user_id: str | None, limit: int) -> list[MemoryVersion]:
        from . import rows as R

        where, params = ("v.user_id = ? AND ", [user_id]) if user_id is not None else ("", [])
        with self._tx(write=False) as conn:
            found = conn.execute(
                f"SELECT {R.prefixed(R.VERSION_COLUMNS, 'v')} FROM versions v WHERE {where}"
                "v.embedding IS NULL AND v.tx_to = ? ORDER BY v.rid LIMIT ?",
                (*params, FAR, limit)).fetchall()
        return [R.to_version(r) for r in found]
