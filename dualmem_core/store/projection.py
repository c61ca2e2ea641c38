"""Principal coordinates (a PCA) of unit vectors and the bound they give on a dot product,
used by the vector index both stores keep in process (``vector_index.py``).

For unit vectors split into their coordinates in a few principal directions (the head) and
the rest:  q . x  <=  q_head . x_head + |q_rest| * |x_rest|  (Cauchy-Schwarz on the rest).
Any orthonormal basis keeps the bound true; the rows' leading directions make it tight.
"""

from __future__ import annotations

import numpy as np


def fit_basis(sample: np.ndarray, head: int) -> np.ndarray:
    """The ``head`` leading directions of the sample rows' second moments (dimension x head)."""
    values, vectors = np.linalg.eigh((sample.T @ sample).astype(np.float64))
    return np.ascontiguousarray(vectors[:, np.argsort(-values)[:head]], dtype=np.float32)


def with_rest(vectors: np.ndarray, basis: np.ndarray) -> np.ndarray:
    """Each vector's head coordinates, then the length of the rest of it, rounded up (at least
    3e-3), so float32 rounding cannot make the bound fall below a true score."""
    head = vectors @ basis
    squares = np.einsum("ij,ij->i", vectors, vectors, dtype=np.float64)
    rest = np.sqrt(np.maximum(squares - np.einsum("ij,ij->i", head, head, dtype=np.float64), 0.0) + 1e-5)
    return np.hstack([head, rest[:, None].astype(np.float32)])


def grow(array: np.ndarray, capacity: int) -> np.ndarray:
    """A copy of ``array`` with room for ``capacity`` rows, the new ones zero."""
    grown = np.zeros((capacity, *array.shape[1:]), dtype=array.dtype)
    grown[: array.shape[0]] = array
    return grown
