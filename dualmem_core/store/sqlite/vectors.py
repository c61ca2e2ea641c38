"""An in-process copy of one user's vectors, so a query is one matrix product, not a table read.

The cache holds unit vectors and the columns a search filters on. Filters become a mask over
every row before top-k is taken, so a time or scope filter never thins out the results.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ...timeutil import FAR_FUTURE, to_micros
from ..models import SearchFilter

FAR = to_micros(FAR_FUTURE)
_BLOCK = 16384  # rows scored at a time by ``top_k_many``: bounds the scratch matrix


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

    def append(self, rows: list[tuple]) -> None:
        """Add rows of (rid, blob, valid_from, valid_to, tx_from, tx_to, kind, status, agent, session)."""
        if not rows:
            return
        need = self.size + len(rows)
        if need > self.matrix.shape[0]:
            capacity = max(need, 2 * self.matrix.shape[0], 1024)
            self.matrix = _grow(self.matrix, capacity)
            self.cols = {k: _grow(v, capacity) for k, v in self.cols.items()}
        block = np.frombuffer(b"".join(r[1] for r in rows), dtype=np.float32)
        block = block.reshape(len(rows), self.matrix.shape[1])
        norms = np.linalg.norm(block, axis=1, keepdims=True)
        self.matrix[self.size:need] = block / norms
        for offset, name in ((0, "rid"), (2, "valid_from"), (3, "valid_to"), (4, "tx_from"),
                             (5, "tx_to")):
            self.cols[name][self.size:need] = [r[offset] for r in rows]
        for offset, name in ((6, "kind"), (7, "status"), (8, "agent"), (9, "session")):
            codes = self.codes[name]
            self.cols[name][self.size:need] = [codes.code(r[offset]) for r in rows]
        self.size = need

    def top_k(self, unit_query: np.ndarray, flt: SearchFilter, k: int) -> list[tuple[int, float]]:
        """(rid, cosine) of the best k rows the filter admits, best first."""
        if self.size == 0:
            return []
        scores = self.matrix[: self.size] @ unit_query
        scores[~self._mask(flt)] = -np.inf
        k = min(k, self.size)
        top = np.argpartition(-scores, k - 1)[:k]
        top = top[np.argsort(-scores[top], kind="stable")]
        rids = self.cols["rid"]
        return [(int(rids[i]), float(scores[i])) for i in top if np.isfinite(scores[i])]

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
        rids = self.cols["rid"]
        rows_found, cols_found, values = [], [], []
        for start in range(0, self.size, _BLOCK):
            rows_block = self.matrix[start: min(start + _BLOCK, self.size)]
            if len(unit_queries) <= 3:  # a matrix-vector product each: BLAS is slow at thin products
                block = np.stack([rows_block @ q for q in unit_queries], axis=1)
            else:
                block = rows_block @ unit_queries.T
            rows, cols = np.nonzero(block >= min_score)
            keep = mask[start + rows]
            rows_found.append(start + rows[keep])
            cols_found.append(cols[keep])
            values.append(block[rows[keep], cols[keep]])
        rows, cols, scores = (np.concatenate(a) for a in (rows_found, cols_found, values))
        out: list[list[tuple[int, float]]] = [[] for _ in unit_queries]
        # By query, then best score first (equal scores in row order); the first k of each query.
        order = np.lexsort((rows, -scores, cols))
        cols, rows, scores = cols[order], rows[order], scores[order]
        starts = np.searchsorted(cols, cols, side="left")
        for i in np.flatnonzero(np.arange(cols.size) - starts < k):
            out[cols[i]].append((int(rids[rows[i]]), float(scores[i])))
        return out

    def _mask(self, flt: SearchFilter) -> np.ndarray:
        c = {name: col[: self.size] for name, col in self.cols.items()}
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
            if allowed is not None:
                mask &= np.isin(c[name], [self.codes[name].lookup(v) for v in allowed])
        return mask


def _grow(array: np.ndarray, capacity: int) -> np.ndarray:
    grown = np.zeros((capacity, *array.shape[1:]), dtype=array.dtype)
    grown[: array.shape[0]] = array
    return grown
