"""The hashing embedder's vectors must never change: recorded evaluations and stores depend on them.

Its cached, batched implementation is checked bit for bit against the plain definition (every
feature hashed and added one at a time) and against fingerprints taken before it was cached.
"""

from __future__ import annotations

import hashlib
import random
import re

import numpy as np

from dualmem_core.providers import HashingEmbedder

TEXTS = ["I moved to Portland last week.", "My sister Lena Novak lives in São Paulo!", "", "???",
         "Ünïcödé café naïve résumé", "a", "the the the the",
         "Ugh, dog sitter cancelled, so Pepper is staying with Hana this weekend. " * 3, "x" * 200,
         "東京に住んでいます 2019"]
# sha256 of embed(TEXTS).tobytes(), taken with the uncached embedder (commit 94b0503)
FINGERPRINTS = {384: "f5b0dfd2fc1540aead178784ce9bccdd376b839b31b8eea4883cd29a451c46f3",
                8: "dea9a9ce11875641bfbe98d42b80173bdb9b91c4216bca5de95b13b15692327d",
                97: "8e0ffd4f1e217dfd817eaf50a1dbaf009369ef7fc0aed7a3415d4da23f035bfc"}


def reference(text: str, dimension: int) -> np.ndarray:
    """The embedder's definition: words, then each word's padded trigrams, one add at a time."""
    words = re.findall(r"\w+", text.casefold())
    features = [(f"w:{w}", 1.0) for w in words]
    for w in words:
        padded = f"<{w}>"
        features += [(f"c:{padded[i:i + 3]}", 0.3) for i in range(len(padded) - 2)]
    out = np.zeros(dimension, dtype=np.float32)
    for feature, weight in features:
        digest = hashlib.blake2b(feature.encode("utf-8"), digest_size=8).digest()
        out[int.from_bytes(digest[:4], "little") % dimension] += (1.0 if digest[4] & 1 else -1.0) * weight
    norm = np.linalg.norm(out)
    if norm == 0:
        out[0] = 1.0
    else:
        out /= norm
    return out


def test_vectors_match_the_recorded_fingerprints() -> None:
    for dimension, fingerprint in FINGERPRINTS.items():
        embedder = HashingEmbedder(dimension)
        first, again = embedder.embed(TEXTS), embedder.embed(TEXTS)  # cold, then from the word cache
        assert hashlib.sha256(first.tobytes()).hexdigest() == fingerprint
        assert np.array_equal(first, again)


def test_batched_and_cached_vectors_equal_the_definition_bit_for_bit() -> None:
    rng = random.Random(3)
    vocabulary = ["live", "lives", "Lena", "Portland", "sushi", "I", "my", "dog", "2019", "café", "x", "a"]
    texts = [" ".join(rng.choice(vocabulary) for _ in range(rng.randint(0, 30))) for _ in range(300)]
    embedder = HashingEmbedder(384)
    batched = embedder.embed(texts)
    assert batched.dtype == np.float32 and batched.shape == (300, 384)
    for text, row in zip(texts, batched, strict=True):
        assert row.tobytes() == reference(text, 384).tobytes(), text
        assert embedder.embed([text])[0].tobytes() == row.tobytes()  # alone or in a batch: the same
    assert embedder.embed([]).shape == (0, 384)
