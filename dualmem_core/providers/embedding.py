"""Embedders: turn texts into vectors for the store's vector index.

``HashingEmbedder`` is the deterministic fallback that needs nothing: words and character
trigrams hashed into a fixed number of signed buckets. It captures shared words and spelling,
not meaning; it exists so the system runs and tests anywhere, and benchmarks measure the
system rather than a model.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from typing import Protocol

import numpy as np

from ..errors import InvalidInput


class Embedder(Protocol):
    name: str
    dimension: int

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """One row per text, float32, shape (len(texts), dimension)."""
        ...


_WORDS = re.compile(r"\w+")


class HashingEmbedder:
    """Deterministic bag of words and trigrams in ``dimension`` signed hash buckets."""

    def __init__(self, dimension: int = 384):
        if dimension < 8:
            raise InvalidInput(f"dimension must be at least 8, got {dimension}")
        self.dimension = dimension
        self.name = f"hashing-v1-{dimension}"

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        for row, text in enumerate(texts):
            for feature, weight in _features(text):
                digest = hashlib.blake2b(feature.encode("utf-8"), digest_size=8).digest()
                bucket = int.from_bytes(digest[:4], "little") % self.dimension
                sign = 1.0 if digest[4] & 1 else -1.0
                out[row, bucket] += sign * weight
            norm = np.linalg.norm(out[row])
            if norm == 0:  # no word characters at all: a fixed vector, not a zero one
                out[row, 0] = 1.0
            else:
                out[row] /= norm
        return out


def _features(text: str) -> list[tuple[str, float]]:
    words = _WORDS.findall(text.casefold())
    features = [(f"w:{w}", 1.0) for w in words]
    for w in words:
        padded = f"<{w}>"
        features += [(f"c:{padded[i:i + 3]}", 0.3) for i in range(len(padded) - 2)]
    return features
