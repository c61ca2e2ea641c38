"""Text to the reader's features: hashed word uni- and bigrams and character n-grams.

Hashing keeps the model file free of a vocabulary and lets an unseen spelling ("livin",
"vegitarian") share most of its character n-grams with a known one, which is what carries a
learned reader past the wording it was trained on. ``zlib.crc32`` rather than ``hash()``:
Python salts ``hash`` per process, and a feature must land in the same column every run.
"""

from __future__ import annotations

import unicodedata
import zlib
from dataclasses import dataclass

import numpy as np

_WORD_CHARS = frozenset("'’")


@dataclass(frozen=True, slots=True)
class FeatureSpace:
    """How a text becomes a row; saved with a model, so a model is read the way it was trained."""

    bits: int = 14  # 2**bits columns
    char_sizes: tuple[int, ...] = (3, 4, 5)

    @property
    def width(self) -> int:
        return 1 << self.bits

    def columns(self, text: str) -> np.ndarray:
        """The distinct columns ``text`` sets, sorted."""
        mask = self.width - 1
        words = _words(text)
        keys = [f"w:{w}" for w in words]
        keys += [f"b:{a} {b}" for a, b in zip(["<s>", *words], [*words, "</s>"], strict=True)]
        for word in words:
            padded = f"<{word}>"
            for size in self.char_sizes:
                keys += [f"c:{padded[i:i + size]}" for i in range(max(1, len(padded) - size + 1))]
        return np.unique(np.fromiter((zlib.crc32(k.encode()) & mask for k in keys), dtype=np.int64,
                                     count=len(keys)))

    def matrix(self, texts: list[str]) -> np.ndarray:
        """One L2-normalised row per text (presence, not counts: a long message is not louder)."""
        rows = np.zeros((len(texts), self.width), dtype=np.float32)
        for i, text in enumerate(texts):
            cols = self.columns(text)
            if len(cols):
                rows[i, cols] = 1.0 / np.sqrt(len(cols))
        return rows


def _words(text: str) -> list[str]:
    """Lower-cased words without accents; digits fold to 0 so ages and years share features."""
    folded = unicodedata.normalize("NFKD", text.casefold())
    chars = []
    for ch in folded:
        if unicodedata.combining(ch):
            continue
        if ch.isalnum():
            chars.append("0" if ch.isdigit() else ch)
        elif ch in _WORD_CHARS:
            continue  # "don't" and "dont" are one word, as people type them
        else:
            chars.append(" ")
    return "".join(chars).split()
