"""The provider cache shared by LLM and embedding calls, with record and replay modes.

``ProviderCache`` answers requests from a content-addressed store: how entries are keyed and
encoded is in ``cache_format.py``, its SQLite file in ``cache_db.py``, its JSONL export in
``cache_export.py``.

Modes (``CacheMode``):

``off``
    no cache at all; every request goes to the provider.
``read_write`` (default)
    answers from the cache when it can, asks the provider for the rest and stores the answers.
``record``
    always asks the provider and stores (overwrites) the answers: re-records a fixture.
``replay``
    only answers from the cache; a miss raises ``CacheMiss``. Tests and evaluations use this to
    run the whole loop offline and deterministically.

Storage is one SQLite file (WAL mode, a busy timeout, ``BEGIN IMMEDIATE`` writes), safe to share
between threads and processes. Each entry also records the SHA-256 of every input text it was
derived from (table ``text_hashes``), so ``delete_matching(text)`` can purge what a forgotten text
left behind. ``export_jsonl`` / ``import_jsonl`` move entries to and from a sorted, line-per-entry
JSON file (gzip when the name ends in ``.gz``) that can be committed and reviewed.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, fields
from enum import StrEnum
from pathlib import Path
from typing import Any

from ..errors import CacheMiss, InvalidInput, ProviderConfigError, ProviderError
from ..timeutil import utcnow
from .cache_db import CacheDatabase
from .cache_export import CacheExport
from .cache_format import (
    EMBEDDING,
    KINDS,
    LLM,
    _check_kind,
    _decode,
    _encode,
    cache_key,
    canonical_json,
    text_hash,
)

_IN_CLAUSE = 500  # keys per SELECT/DELETE ... IN (...) statement


class CacheMode(StrEnum):
    OFF = "off"
    READ_WRITE = "read_write"
    RECORD = "record"
    REPLAY = "replay"

    @property
    def reads(self) -> bool:
        """Whether requests are answered from the cache when an entry exists."""
        return self in (CacheMode.READ_WRITE, CacheMode.REPLAY)

    @property
    def writes(self) -> bool:
        """Whether provider answers are stored."""
        return self in (CacheMode.READ_WRITE, CacheMode.RECORD)

    @property
    def calls_allowed(self) -> bool:
        """Whether the provider may be asked at all."""
        return self is not CacheMode.REPLAY


def parse_mode(value: CacheMode | str) -> CacheMode:
    """A ``CacheMode`` from its name; ``read-write`` and any case are accepted too."""
    if isinstance(value, CacheMode):
        return value
    cleaned = str(value).strip().lower().replace("-", "_")
    try:
        return CacheMode(cleaned)
    except ValueError:
        names = ", ".join(m.value for m in CacheMode)
        raise ProviderConfigError(f"unknown cache mode {value!r}; use one of: {names}") from None


@dataclass(frozen=True)
class CacheStats:
    """Counters since the cache was opened (or ``reset_stats``), per kind or summed.

    ``hits``/``misses`` count distinct requests looked up; ``calls`` counts requests made to the
    provider (one per batch for embeddings); ``stored`` counts entries written.
    """

    hits: int = 0
    misses: int = 0
    calls: int = 0
    stored: int = 0

    def __add__(self, other: CacheStats) -> CacheStats:
        return CacheStats(*(getattr(self, f.name) + getattr(other, f.name) for f in fields(self)))


@dataclass(frozen=True)
class Resolved:
    """What ``ProviderCache.resolve`` found or computed, in request order."""

    values: list[Any]
    cached: list[bool]


class ProviderCache(CacheExport, CacheDatabase):
    """The content-addressed cache. ``path`` is a SQLite file (created with its folder),
    ``":memory:"`` for a throwaway cache in this process, or ``None`` with mode ``off``."""

    def __init__(self, path: str | os.PathLike[str] | None, mode: CacheMode | str = CacheMode.READ_WRITE,
                 *, timeout: float = 30.0):
        self.mode = parse_mode(mode)
        self.timeout = timeout
        self._lock = threading.RLock()
        self._stats = {kind: CacheStats() for kind in KINDS}
        self._conn: sqlite3.Connection | None = None
        self._pid = 0
        self._memory = path is not None and str(path) == ":memory:"
        if path is None:
            if self.mode is not CacheMode.OFF:
                raise InvalidInput(f"cache mode {self.mode.value!r} needs a cache path")
            self.path: Path | None = None
        else:
            self.path = None if self._memory else Path(path).expanduser()
            self._db()  # open now so a bad path fails here, not on the first model call

    def __enter__(self) -> ProviderCache:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"ProviderCache({self._where() if self._has_storage() else None!r}, mode={self.mode.value!r})"

    # ------------------------------------------------------------------ counters

    def stats(self, kind: str | None = None) -> CacheStats:
        with self._lock:
            if kind is not None:
                return self._stats[_check_kind(kind)]
            total = CacheStats()
            for value in self._stats.values():
                total += value
            return total

    def reset_stats(self) -> None:
        with self._lock:
            self._stats = {kind: CacheStats() for kind in KINDS}

    def _count(self, kind: str, **deltas: int) -> None:
        with self._lock:
            old = self._stats[kind]
            self._stats[kind] = CacheStats(**{f.name: getattr(old, f.name) + deltas.get(f.name, 0)
                                              for f in fields(old)})

    def note_call(self, kind: str, n: int = 1) -> None:
        """Count ``n`` requests made to a provider (the cached wrappers call this)."""
        self._count(_check_kind(kind), calls=n)

    # ------------------------------------------------------------ get and put

    def get(self, kind: str, model: str, request: Any) -> Any | None:
        """The stored value for one request, or None. Ignores the mode; counts a hit or miss."""
        key = cache_key(_check_kind(kind), model, request)
        found = self._get_keys(kind, [key])
        self._count(kind, hits=len(found), misses=1 - len(found))
        return found.get(key)

    def put(self, kind: str, model: str, request: Any, value: Any, *, texts: Iterable[str] = ()) -> str:
        """Store one value (overwriting), recording the hashes of ``texts``; returns its key."""
        return self._put(_check_kind(kind), model, [(request, value, list(texts))])[0]

    def _get_keys(self, kind: str, keys: Sequence[str]) -> dict[str, Any]:
        if not self._has_storage() or not keys:
            return {}
        found: dict[str, Any] = {}
        with self._read() as conn:
            for start in range(0, len(keys), _IN_CLAUSE):
                chunk = list(keys[start:start + _IN_CLAUSE])
                marks = ",".join("?" * len(chunk))
                rows = conn.execute(
                    f"SELECT key, kind, value FROM entries WHERE key IN ({marks})", chunk).fetchall()
                for key, row_kind, value in rows:
                    if row_kind == kind:
                        found[key] = _decode(kind, value, key)
        return found

    def _put(self, kind: str, model: str, items: Sequence[tuple[Any, Any, Sequence[str]]]) -> list[str]:
        rows = []
        for request, value, texts in items:
            key = cache_key(kind, model, request)
            hashes = sorted({text_hash(t) for t in texts})
            rows.append((key, canonical_json(request), _encode(kind, value), hashes))
        if not self._has_storage():
            return [row[0] for row in rows]
        now = utcnow().isoformat()
        with self._write() as conn:
            for key, request_json, blob, hashes in rows:
                conn.execute(
                    "INSERT OR REPLACE INTO entries (key, kind, model, created_at, request, value) "
                    "VALUES (?, ?, ?, ?, ?, ?)", (key, kind, model, now, request_json, blob))
                conn.execute("DELETE FROM text_hashes WHERE key = ?", (key,))
                conn.executemany("INSERT OR IGNORE INTO text_hashes (text_hash, key) VALUES (?, ?)",
                                 [(h, key) for h in hashes])
        self._count(kind, stored=len(rows))
        return [row[0] for row in rows]

    def embedding_dimension(self, model: str) -> int | None:
        """The length of the vectors stored for ``model``, or None when there are none."""
        if not self._has_storage():
            return None
        with self._read() as conn:
            row = conn.execute("SELECT length(value) FROM entries WHERE kind = ? AND model = ? LIMIT 1",
                               (EMBEDDING, model)).fetchone()
        return None if row is None else int(row[0]) // 4

    # ------------------------------------------------------------ the modes

    def resolve(self, kind: str, model: str, requests: Sequence[Any],
                compute: Callable[[list[Any]], Sequence[Any]], *,
                texts: Callable[[Any], Iterable[str]], describe: Callable[[Any], str],
                batch_size: int = 64) -> Resolved:
        """Answer ``requests`` according to the mode.

        ``compute`` asks the provider for a list of requests (at most ``batch_size``, each
        distinct) and returns one value per request; it is called only for what the cache
        lacks, and each batch is stored as soon as it returns. ``texts`` gives a request's input
        texts (recorded for ``delete_matching``); ``describe`` names a request in a miss error.
        """
        kind = _check_kind(kind)
        if batch_size < 1:
            raise InvalidInput(f"batch_size must be at least 1, got {batch_size}")
        if self.mode is CacheMode.OFF:
            values: list[Any] = []
            for start in range(0, len(requests), batch_size):
                batch = list(requests[start:start + batch_size])
                values.extend(self._compute(kind, compute, batch))
            return Resolved(values, [False] * len(requests))

        keys = [cache_key(kind, model, request) for request in requests]
        first: dict[str, int] = {}
        for index, key in enumerate(keys):
            first.setdefault(key, index)
        found = self._get_keys(kind, list(first)) if self.mode.reads else {}
        hit_keys = set(found)
        missing = [key for key in first if key not in found]
        if self.mode.reads:
            self._count(kind, hits=len(found), misses=len(missing))
        if missing and not self.mode.calls_allowed:
            raise CacheMiss(
                f"replay mode: no recorded {kind} answer from model {model!r} for "
                f"{describe(requests[first[missing[0]]])} ({len(missing)} of {len(first)} requests "
                "missing). Record it by running once with DUALMEM_CACHE_MODE=record (or read_write) "
                "against the real provider, then ProviderCache.export_jsonl the recording; or check "
                "that the model name, prompt, schema and parameters match the recording.")
        for start in range(0, len(missing), batch_size):
            chunk = missing[start:start + batch_size]
            batch = [requests[first[key]] for key in chunk]
            answers = self._compute(kind, compute, batch)
            if self.mode.writes:
                self._put(kind, model, [(request, value, list(texts(request)))
                                        for request, value in zip(batch, answers, strict=True)])
            found.update(zip(chunk, answers, strict=True))
        return Resolved([found[key] for key in keys], [key in hit_keys for key in keys])

    def _compute(self, kind: str, compute: Callable[[list[Any]], Sequence[Any]],
                 batch: list[Any]) -> list[Any]:
        answers = list(compute(batch))
        self.note_call(kind)
        if len(answers) != len(batch):
            raise ProviderError(
                f"the {kind} provider returned {len(answers)} answers for {len(batch)} requests")
        return answers

    # ---------------------------------------------------------------- deletion

    def delete(self, keys: Iterable[str]) -> int:
        """Delete entries by key; returns how many existed."""
        keys = list(dict.fromkeys(keys))
        if not self._has_storage() or not keys:
            return 0
        deleted = 0
        with self._write() as conn:
            for start in range(0, len(keys), _IN_CLAUSE):
                chunk = keys[start:start + _IN_CLAUSE]
                marks = ",".join("?" * len(chunk))
                deleted += conn.execute(f"DELETE FROM entries WHERE key IN ({marks})", chunk).rowcount
                conn.execute(f"DELETE FROM text_hashes WHERE key IN ({marks})", chunk)
        return deleted

    def keys_matching(self, text: str, *, substring: bool = True) -> list[str]:
        """Keys of entries derived from ``text``: those that recorded its hash as an input, and
        (with ``substring``) those whose request or LLM reply contains it anywhere."""
        if not isinstance(text, str) or not text:
            raise InvalidInput("delete_matching needs a non-empty text")
        if not self._has_storage():
            return []
        with self._read() as conn:
            keys = {row[0] for row in conn.execute(
                "SELECT key FROM text_hashes WHERE text_hash = ?", (text_hash(text),))}
            if substring:
                escaped = json.dumps(text, ensure_ascii=False)[1:-1]  # as it appears inside JSON
                needles = list(dict.fromkeys([text, escaped]))
                for needle in needles:
                    keys.update(row[0] for row in conn.execute(
                        "SELECT key FROM entries WHERE instr(request, ?) > 0 "
                        "OR (kind = ? AND instr(value, ?) > 0)", (needle, LLM, needle)))
        return sorted(keys)

    def delete_matching(self, text: str, *, substring: bool = True) -> int:
        """Delete every entry derived from ``text`` (see ``keys_matching``); returns the count.

        For ``forget``: embeddings of the text, and LLM replies whose prompt or answer held it.
        """
        return self.delete(self.keys_matching(text, substring=substring))

    def count(self, kind: str | None = None) -> int:
        if not self._has_storage():
            return 0
        with self._read() as conn:
            if kind is None:
                return int(conn.execute("SELECT count(*) FROM entries").fetchone()[0])
            return int(conn.execute("SELECT count(*) FROM entries WHERE kind = ?",
                                    (_check_kind(kind),)).fetchone()[0])

    def __len__(self) -> int:
        return self.count()
