"""What both stores' in-process vector caches share: one user's unit vectors in a growing
matrix, their coordinates in a few principal directions for a bound on every score, and the
groups of rows the neighbour search of a large cache looks in.

For unit vectors split into their ``HEAD`` coordinates in the rows' principal directions (the
head) and the rest (``store/projection.py``):

    q . x  <=  q_head . x_head + |q_rest| * |x_rest|      (Cauchy-Schwarz on the rest)

so a row whose bound is below a threshold cannot score above it, and is not scored in full.
The directions are fitted once a cache reaches its backend's pruning size, and again whenever
its rows have doubled since; from then on every row written is projected as it arrives, and
grouped too once the groups exist (``store/clusters.py``).

Each backend's ``vectors.py`` subclasses ``VectorIndex`` with what differs: how rows load and
leave (SQLite appends rows in rid order with the columns its filters read; Neo4j upserts
versions by id and marks closed ones dead), when the cache is stale, and its searches (SQLite
ranks rows under a ``SearchFilter``; Neo4j ranks memories, each at its best current version).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .clusters import HeadGroups
from .projection import fit_basis, grow, with_rest

_BLOCK = 16384  # rows projected (and, on SQLite, scored) at a time: bounds the scratch matrix
_SAMPLE = 4096  # rows the principal directions are fitted on
_SLACK = 1e-4  # far above float32 rounding of a cosine: the bound never drops a true neighbour


class VectorIndex:
    """Unit vectors, their head coordinates once the bound is in use, and their groups.

    A subclass sets ``HEAD`` and provides ``size`` (rows stored, live or not) and
    ``_sample_rows`` (the rows the directions may be fitted on)."""

    HEAD: int
    if TYPE_CHECKING:  # a subclass's attribute (sqlite) or property (neo4j): only read here
        @property
        def size(self) -> int: ...

    def __init__(self, dimension: int):
        self.matrix = np.zeros((0, dimension), dtype=np.float32)
        self.basis: np.ndarray | None = None  # (dimension, HEAD) principal directions, once pruning
        self.fitted_at = 0  # rows when the basis was computed; refitted when they double
        self.groups: HeadGroups | None = None  # for the neighbour search of a large cache
        # Per row (a column here): the HEAD coordinates, then |x_rest| rounded up. A query gets
        # the same shape (its head, then its |q_rest|), so the bound of every row is one matrix
        # product. Stored a row per coordinate: a product with a vector then streams over long
        # rows, faster than over HEAD+1-float rows.
        self.head_t = np.zeros((self.HEAD + 1, 0), dtype=np.float32)

    def _grow(self, need: int) -> int | None:
        """Room for ``need`` rows in the matrix (and the head); the new capacity if it grew,
        for the subclass to grow its own columns to."""
        if need <= self.matrix.shape[0]:
            return None
        capacity = max(need, 2 * self.matrix.shape[0], 1024)
        self.matrix = grow(self.matrix, capacity)
        if self.basis is not None:
            self.head_t = grow(self.head_t.T, capacity).T.copy()
        return capacity

    def _added(self, start: int, end: int) -> None:
        """Rows start..end were written to the matrix: project and group them if in use."""
        if self.basis is not None:
            self._project(start, end)
            if self.groups is not None:
                self.groups.assign(self.head_t[: self.HEAD, start:end].T)

    def _fit_when_due(self, rows: int, prune_rows: int) -> bool:
        """Whether the bound is in use at ``rows`` rows; (re)computes the principal directions
        when due. Any orthonormal basis keeps the bound true; the leading directions of the
        rows' second moments make it tight."""
        if rows < prune_rows:
            return False
        if self.basis is None or rows >= 2 * self.fitted_at:
            candidates = self._sample_rows()
            picked = np.linspace(0, candidates.size - 1, min(candidates.size, _SAMPLE)).astype(np.intp)
            self.basis = fit_basis(self.matrix[candidates[picked]], self.HEAD)
            self.fitted_at = rows
            self.groups = None  # fitted on the old head: fitted again when next needed
            self.head_t = np.zeros((self.HEAD + 1, self.matrix.shape[0]), dtype=np.float32)
            for start in range(0, self.size, _BLOCK):  # in slices: bounded scratch memory
                self._project(start, min(start + _BLOCK, self.size))
        return True

    def _sample_rows(self) -> np.ndarray:
        """The rows the principal directions may be fitted on."""
        return np.arange(self.size)

    def _project(self, start: int, end: int) -> None:
        """Head coordinates and rest lengths of rows start..end."""
        assert self.basis is not None  # projected only once fitted
        self.head_t[:, start:end] = with_rest(self.matrix[start:end], self.basis).T

    def _grouped(self) -> HeadGroups:
        """The rows' groups, fitted and sorted when missing, re-sorted when their tail is long."""
        if self.groups is None:
            heads = self.head_t[: self.HEAD, : self.size].T
            self.groups = HeadGroups(heads)
            self.groups.assign(heads)
            self.groups.sort(self.head_t[:, : self.size])
        elif self.groups.stale():
            self.groups.sort(self.head_t[:, : self.size])
        return self.groups
