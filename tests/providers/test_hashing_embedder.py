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
# sha256 of embed(TEXTS).tobytes(): 384 taken with the uncached embedder (commit 94b0503); 8 and 97
# again when the norm moved off the BLAS dot, whose last bit differed between Intel and AMD
# machines at those sizes (the 384 one did not move).
FINGERPRINTS = {384: "f5b0dfd2fc1540aead178784ce9bccdd376b839b31b8eea4883cd29a451c46f3",
                8: "7555fead2c159aaa0b2b848f4c6c3e25174c8b4faac859c5527c229e36508d1f",
                97: "427cbb7a46a623fb6834d3171f6d0881dee4156ad3970c8bcda7dfaab6c5ea64"}


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
    wide = out.astype(np.float64)
    norm = np.float32(np.sqrt(sum(float(x) * float(x) for x in wide)))  # one add at a time, in float64
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
