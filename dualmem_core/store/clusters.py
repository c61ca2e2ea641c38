"""Rows grouped by the nearest of a few hundred centroids of their head coordinates: the write
path's neighbour search over many rows looks only in the groups nearest each new memory.

A write links each new memory to its nearest neighbours above a high cosine (0.75). Scoring
every row for every new memory grows with the user: at 100k rows it was half of a 50-message
``remember``. Neighbours that close sit in the group whose centroid is nearest the memory, or
in one of the next few (an inverted file, as vector databases call it). Measured on the writer
benchmark's 100k rows (hashing embedder): with 256 groups and the 8 nearest searched, 98.8% of
all pairs above 0.75 were found, each search read about 4% of the rows. Within the searched
groups the search is exact (the vector cache's bound, then full scores), so what is found scores
as a full scan would score it; what can be missed is a neighbour in a group not searched.

Rows written after the groups were sorted wait in a tail that every search scans in full;
the rows are re-sorted when the tail passes an eighth of them, and the centroids are fitted
again when the head's basis is (``vector_index.py`` refits it when the rows double). Both
stores' vector caches use it through ``vector_index.VectorIndex``; their searches
(``sqlite/vectors.py``, ``neo4j/vectors.py``) probe it.
"""

from __future__ import annotations

import numpy as np

ROWS_PER_GROUP = 400  # groups are fitted for about this many rows each (256 at 100k)
MAX_GROUPS = 1024
PROBES = 8  # groups searched per query
_SAMPLE = 8192  # rows the centroids are fitted on
_ROUNDS = 6  # k-means rounds: the centroids only need to be good, not converged


class HeadGroups:
    """Centroids of the head coordinates, each row's group, and the head sorted by group."""

    def __init__(self, head: np.ndarray, seed: int = 0):
        """Fit on the rows' head coordinates (rows x HEAD, without the rest column)."""
        rng = np.random.default_rng(seed)
        count = max(8, min(MAX_GROUPS, head.shape[0] // ROWS_PER_GROUP))
        sample = head[rng.choice(head.shape[0], min(head.shape[0], _SAMPLE), replace=False)]
        centroids = sample[rng.choice(sample.shape[0], count, replace=False)].copy()
        for _ in range(_ROUNDS):  # spherical k-means: a query's closeness is a dot product too
            nearest = np.argmax(sample @ centroids.T, axis=1)
            sums = np.zeros_like(centroids)
            np.add.at(sums, nearest, sample)
            norms = np.linalg.norm(sums, axis=1, keepdims=True)
            centroids = np.where(norms > 0, sums / np.maximum(norms, 1e-12), centroids)
        self.centroids = np.ascontiguousarray(centroids, dtype=np.float32)
        self.group = np.zeros(0, dtype=np.int32)  # per row
        self.size = 0
        self.sorted_upto = 0  # rows before this are in ``rows``/``head`` sorted by group
        self.rows = np.zeros(0, dtype=np.intp)  # row numbers, by group
        self.starts = np.zeros(count + 1, dtype=np.intp)  # group g is rows[starts[g]:starts[g + 1]]
        self.head = np.zeros((0, head.shape[1] + 1), dtype=np.float32)  # with_rest rows, by group

    def assign(self, head: np.ndarray) -> None:
        """Group the next rows (their head coordinates, without the rest column)."""
        need = self.size + head.shape[0]
        if need > self.group.shape[0]:
            grown = np.zeros(max(need, 2 * self.group.shape[0], 1024), dtype=np.int32)
            grown[: self.size] = self.group[: self.size]
            self.group = grown
        self.group[self.size: need] = np.argmax(head @ self.centroids.T, axis=1)
        self.size = need

    def sort(self, head_t: np.ndarray) -> None:
        """Sort every grouped row by group, copying their head columns (``head_t``: HEAD+1 x rows)."""
        order = np.argsort(self.group[: self.size], kind="stable")
        counts = np.bincount(self.group[: self.size], minlength=self.centroids.shape[0])
        self.starts = np.concatenate([[0], np.cumsum(counts)]).astype(np.intp)
        self.rows = order.astype(np.intp)
        self.head = np.ascontiguousarray(head_t[:, order].T)
        self.sorted_upto = self.size

    def stale(self) -> bool:
        return self.size - self.sorted_upto > max(2048, self.sorted_upto // 8)

    def probes(self, query_heads: np.ndarray) -> np.ndarray:
        """The PROBES nearest groups of each query (queries x PROBES)."""
        scores = query_heads @ self.centroids.T
        wanted = min(PROBES, self.centroids.shape[0])
        return np.argpartition(-scores, wanted - 1, axis=1)[:, :wanted]

    def bounds(self, query: np.ndarray, probes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(rows, bound): the row numbers of the groups ``probes`` and the bound on each of one
        query (its head coordinates and rest length) over them."""
        spans = [(self.starts[g], self.starts[g + 1]) for g in probes]
        rows = np.concatenate([self.rows[lo:hi] for lo, hi in spans])
        return rows, np.concatenate([self.head[lo:hi] @ query for lo, hi in spans])
