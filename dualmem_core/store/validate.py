"""Checks every backend runs before it writes, so bad input fails the same way everywhere."""

from __future__ import annotations

import math

import numpy as np

from ..errors import DimensionMismatch, InvalidInput
from ..timeutil import require_aware
from .models import EdgeType, SearchFilter, WriteBatch

MAX_TEXT_CHARS = 2_000_000  # a few MB of UTF-8: far beyond any chat message, well within a row
MAX_ID_CHARS = 512
MAX_K = 10_000  # hits one search may return


USER_ID_RULE = (
    "a user id is 1-512 printable characters (letters, digits, punctuation, inner spaces), "
    "with no leading or trailing whitespace, no '/' and no '...', e.g. 'alice' or 'u-42@acme.com'"
)


def check_user_id(user_id: object) -> str:
    """One rule for every frontend: the id must travel unchanged as a REST path segment and a
    Dagster partition key (which refuses '...' and control characters), and " u1", "u1 " and
    "u1" must not silently be three users, so such ids are refused, never stripped."""
    user_id = check_stored_user_id(user_id)
    if (user_id != user_id.strip() or "/" in user_id or "..." in user_id or user_id in (".", "..")
            or not user_id.isprintable()):
        raise InvalidInput(f"user_id {user_id!r} is not allowed: {USER_ID_RULE}")
    return user_id


def check_stored_user_id(user_id: object) -> str:
    """The older, looser check, for reaching a user stored before ``check_user_id`` was strict
    (forget, delete, export, counts): such data must stay deletable."""
    if not isinstance(user_id, str) or not user_id.strip():
        raise InvalidInput(f"user_id must be a non-empty string, got {user_id!r}; {USER_ID_RULE}")
    if len(user_id) > MAX_ID_CHARS:
        raise InvalidInput(f"user_id is {len(user_id)} characters long; the limit is {MAX_ID_CHARS}")
    _check_encodable(user_id, "user_id")
    return user_id


def check_id(value: object, name: str) -> str:
    if not isinstance(value, str) or not value:
        raise InvalidInput(f"{name} must be a non-empty string, got {value!r}")
    if len(value) > MAX_ID_CHARS:
        raise InvalidInput(f"{name} is longer than {MAX_ID_CHARS} characters")
    _check_encodable(value, name)
    return value


def check_text(text: object, name: str = "text", *, empty: str = "there is nothing to store") -> str:
    """``empty`` ends the message for a blank text: a query has nothing to search for, not store."""
    if not isinstance(text, str):
        raise InvalidInput(f"{name} must be a string, got {type(text).__name__}")
    if not text.strip():
        raise InvalidInput(f"{name} is empty or only whitespace; {empty}")
    if len(text) > MAX_TEXT_CHARS:
        raise InvalidInput(
            f"{name} has {len(text):,} characters; the limit is {MAX_TEXT_CHARS:,}. "
            "Split the document into messages first."
        )
    _check_encodable(text, name)
    return text


def _check_encodable(text: str, name: str) -> None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InvalidInput(
            f"{name} contains characters that are not valid Unicode ({exc.reason} at position "
            f"{exc.start}); clean the text (e.g. text.encode('utf-8', 'replace').decode())"
        ) from None


def check_vector(vector: object, dimension: int, name: str = "embedding") -> np.ndarray:
    """Return ``vector`` as contiguous float32, or raise a clear error."""
    try:
        array = np.asarray(vector, dtype=np.float32)
    except (TypeError, ValueError):
        raise InvalidInput(f"{name} must be a sequence of numbers") from None
    if array.ndim != 1:
        raise InvalidInput(f"{name} must be one-dimensional, got shape {array.shape}")
    if array.shape[0] != dimension:
        raise DimensionMismatch(
            f"{name} has {array.shape[0]} dimensions but this store holds {dimension}-dimensional "
            "vectors; use the embedder the store was created with, or open a new store"
        )
    if not np.all(np.isfinite(array)):
        raise InvalidInput(f"{name} contains NaN or infinite values")
    if not np.any(array):
        raise InvalidInput(f"{name} is all zeros; cosine similarity is undefined for it")
    return np.ascontiguousarray(array)


def _check_unit(value: object, name: str) -> None:
    if not isinstance(value, int | float) or not math.isfinite(value) or not 0 <= value <= 1:
        raise InvalidInput(f"{name} must be a number between 0 and 1, got {value!r}")


def check_batch(batch: WriteBatch, dimension: int) -> str:
    """Validate a write batch in place (vectors become float32); return its one user id."""
    users = batch.user_ids()
    if len(users) != 1:
        raise InvalidInput(
            "a write batch must hold the records of exactly one user; "
            f"got {sorted(map(repr, users)) or 'none'}"
        )
    user_id = check_user_id(next(iter(users)))
    seen: set[str] = set()
    for group in (batch.episodes, batch.memories, batch.versions, batch.entities, batch.edges):
        for record in group:
            check_id(record.id, f"{type(record).__name__}.id")
            if record.id in seen:
                raise InvalidInput(f"id {record.id!r} appears twice in one batch")
            seen.add(record.id)
    for ep in batch.episodes:
        check_text(ep.text, "episode text")
        ep.observed_at = require_aware(ep.observed_at, "episode observed_at")
        if ep.recorded_at is not None:
            ep.recorded_at = require_aware(ep.recorded_at, "episode recorded_at")
    for mem in batch.memories:
        check_text(mem.kind, "memory kind")
        if mem.created_at is not None:
            mem.created_at = require_aware(mem.created_at, "memory created_at")
    for ver in batch.versions:
        check_id(ver.memory_id, "version memory_id")
        check_text(ver.text, "memory text")
        if ver.search_text is not None:
            check_text(ver.search_text, "memory search_text", empty="there is nothing to index")
        ver.valid_from = require_aware(ver.valid_from, "valid_from")
        ver.valid_to = require_aware(ver.valid_to, "valid_to")
        if ver.valid_from >= ver.valid_to:
            raise InvalidInput(
                f"valid_from {ver.valid_from.isoformat()} is not before valid_to "
                f"{ver.valid_to.isoformat()}; intervals are closed-open and must not be empty"
            )
        ver.tx_to = require_aware(ver.tx_to, "tx_to")
        if ver.tx_from is not None:
            ver.tx_from = require_aware(ver.tx_from, "tx_from")
            if ver.tx_from >= ver.tx_to:
                raise InvalidInput("tx_from must be before tx_to")
        if ver.embedding is not None:
            ver.embedding = check_vector(ver.embedding, dimension)
        _check_unit(ver.confidence, "confidence")
        _check_unit(ver.salience, "salience")
    for ent in batch.entities:
        check_text(ent.name, "entity name")
        if ent.created_at is not None:
            ent.created_at = require_aware(ent.created_at, "entity created_at")
    for edge in batch.edges:
        try:
            edge.type = EdgeType(edge.type)
        except ValueError:
            known = ", ".join(t.value for t in EdgeType)
            raise InvalidInput(f"unknown edge type {edge.type!r}; known types: {known}") from None
        check_id(edge.src_id, "edge src_id")
        check_id(edge.dst_id, "edge dst_id")
        edge.tx_to = require_aware(edge.tx_to, "edge tx_to")
        if edge.tx_from is not None:
            edge.tx_from = require_aware(edge.tx_from, "edge tx_from")
    return user_id


def check_filter(flt: SearchFilter) -> SearchFilter:
    check_user_id(flt.user_id)
    if flt.valid_at is not None:
        flt.valid_at = require_aware(flt.valid_at, "valid_at (as_of)")
    if flt.known_at is not None:
        flt.known_at = require_aware(flt.known_at, "known_at")
    return flt


def check_k(k: object) -> int:
    if not isinstance(k, int) or isinstance(k, bool) or not 1 <= k <= MAX_K:
        raise InvalidInput(f"k must be an integer between 1 and {MAX_K}, got {k!r}")
    return k
