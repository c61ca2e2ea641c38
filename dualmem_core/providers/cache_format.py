"""How a provider-cache entry is addressed and encoded, and the format's version numbers.

The key of an entry is the SHA-256 of a canonical JSON of ``(kind, model, request)`` where
``kind`` is ``"embedding"`` or ``"llm"``, ``model`` the provider's name, and ``request`` everything
that decides the answer (the text; or the messages, schema and parameters). Equal requests
therefore share one entry whichever process made them. Embedding vectors are stored as
little-endian float32 blobs, LLM replies as JSON text; ``text_hash`` names an input text an entry
was derived from.

Separate from ``cache.py`` (the cache: modes, lookups, deletion), ``cache_db.py`` (its SQLite
file) and ``cache_export.py`` (its JSONL export), which all build on these definitions.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

import numpy as np

from ..errors import CacheError, InvalidInput

EMBEDDING = "embedding"
LLM = "llm"
KINDS = (EMBEDDING, LLM)

SCHEMA_VERSION = 1
_KEY_VERSION = 1  # part of every key: bump it to invalidate all entries at once


def canonical_json(value: Any) -> str:
    """The one JSON spelling of ``value``: sorted keys, no spaces, UTF-8, no NaN."""
    try:
        return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                          allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise InvalidInput(f"a provider request must be plain JSON data (no NaN): {exc}") from exc


def cache_key(kind: str, model: str, request: Any) -> str:
    """The content address of one request: hex SHA-256 of its canonical JSON."""
    body = canonical_json({"v": _KEY_VERSION, "kind": kind, "model": model, "request": request})
    return hashlib.sha256(body.encode("utf-8")).hexdigest()


def text_hash(text: str) -> str:
    """Hex SHA-256 of a text's UTF-8 bytes, as stored in ``text_hashes``."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _check_kind(kind: str) -> str:
    if kind not in KINDS:
        raise InvalidInput(f"unknown cache kind {kind!r}; use one of {KINDS}")
    return kind


def _encode(kind: str, value: Any) -> bytes | str:
    if kind == EMBEDDING:
        vector = np.asarray(value, dtype=np.float64)
        if vector.ndim != 1 or vector.size == 0 or not np.all(np.isfinite(vector)):
            raise InvalidInput("a cached embedding must be a non-empty 1-D vector of finite numbers")
        return vector.astype("<f4").tobytes()
    if not isinstance(value, dict):
        raise InvalidInput(f"a cached LLM value must be a JSON object, got {type(value).__name__}")
    return canonical_json(value)


def _decode(kind: str, value: bytes | str, key: str) -> Any:
    if kind == EMBEDDING:
        if not isinstance(value, bytes) or len(value) % 4:
            raise CacheError(f"cache entry {key} is not a float32 vector; delete it (ProviderCache.delete)")
        return np.frombuffer(value, dtype="<f4").astype(np.float32)
    try:
        return json.loads(value)
    except (TypeError, ValueError) as exc:
        raise CacheError(f"cache entry {key} is not JSON ({exc}); delete it (ProviderCache.delete)") from exc
