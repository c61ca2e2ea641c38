"""A content-addressed cache shared by LLM and embedding calls, with record and replay modes.

Every cached value is found by a key: the SHA-256 of a canonical JSON of ``(kind, model,
request)`` where ``kind`` is ``"embedding"`` or ``"llm"``, ``model`` the provider's name, and
``request`` everything that decides the answer (the text; or the messages, schema and
parameters). Equal requests therefore share one entry whichever process made them.

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
between threads and processes. Embedding vectors are stored as little-endian float32 blobs, LLM
replies as JSON text. Each entry also records the SHA-256 of every input text it was derived
from (table ``text_hashes``), so ``delete_matching(text)`` can purge what a forgotten text left
behind. ``export_jsonl`` / ``import_jsonl`` move entries to and from a sorted, line-per-entry
JSON file (gzip when the name ends in ``.gz``) that can be committed and reviewed.
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import io
import json
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, fields
from enum import StrEnum
from pathlib import Path
from typing import IO, Any

import numpy as np

from ..errors import CacheError, CacheMiss, InvalidInput, ProviderConfigError, ProviderError
from ..timeutil import utcnow

EMBEDDING = "embedding"
LLM = "llm"
KINDS = (EMBEDDING, LLM)

EXPORT_FORMAT = "dualmem-provider-cache"
SCHEMA_VERSION = 1
_KEY_VERSION = 1  # part of every key: bump it to invalidate all entries at once
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


_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (
    name  TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS entries (
    key        TEXT PRIMARY KEY,  -- cache_key(kind, model, request)
    kind       TEXT NOT NULL,     -- 'embedding' | 'llm'
    model      TEXT NOT NULL,
    created_at TEXT NOT NULL,     -- ISO-8601, UTC
    request    TEXT NOT NULL,     -- canonical JSON of the request
    value      NOT NULL           -- float32 little-endian BLOB (embedding) or JSON TEXT (llm)
);
CREATE INDEX IF NOT EXISTS entries_kind_model ON entries (kind, model);
CREATE TABLE IF NOT EXISTS text_hashes (
    text_hash TEXT NOT NULL,      -- text_hash() of one input text the entry was derived from
    key       TEXT NOT NULL,
    PRIMARY KEY (text_hash, key)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS text_hashes_key ON text_hashes (key);
"""


class ProviderCache:
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

    # ----------------------------------------------------------------- connection

    def _db(self) -> sqlite3.Connection:
        """The connection, opened on first use and reopened in a forked child process."""
        if self._conn is not None and self._pid == os.getpid():
            return self._conn
        if self.path is None and not self._memory:
            raise InvalidInput("this cache has no file (mode off without a path); nothing is stored")
        target = ":memory:" if self._memory else str(self.path)
        try:
            if self.path is not None:
                self.path.parent.mkdir(parents=True, exist_ok=True)
            conn = sqlite3.connect(target, timeout=self.timeout, isolation_level=None,
                                   check_same_thread=False)
            conn.execute(f"PRAGMA busy_timeout = {int(self.timeout * 1000)}")
            if not self._memory:
                self._retry_locked(lambda: conn.execute("PRAGMA journal_mode = WAL").fetchone())
                conn.execute("PRAGMA synchronous = NORMAL")
            self._retry_locked(lambda: self._create_schema(conn))
        except (sqlite3.Error, OSError) as exc:
            raise CacheError(
                f"cannot open the provider cache {target}: {exc}. Point DUALMEM_CACHE at a writable "
                "file, or delete this one if it is not a dualmem cache") from exc
        self._conn, self._pid = conn, os.getpid()
        return conn

    def _retry_locked(self, action: Callable[[], object]) -> None:
        deadline = time.monotonic() + self.timeout
        while True:
            try:
                action()
                return
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) or time.monotonic() > deadline:
                    raise
                time.sleep(0.05)

    @staticmethod
    def _create_schema(conn: sqlite3.Connection) -> None:
        conn.execute("BEGIN IMMEDIATE")
        try:
            for statement in _SCHEMA.split(";"):
                if statement.strip():
                    conn.execute(statement)
            row = conn.execute("SELECT value FROM meta WHERE name = 'schema_version'").fetchone()
            if row is None:
                conn.execute("INSERT INTO meta (name, value) VALUES ('schema_version', ?)",
                             (str(SCHEMA_VERSION),))
            elif row[0] != str(SCHEMA_VERSION):
                raise sqlite3.DatabaseError(
                    f"cache schema version {row[0]}, this dualmem reads version {SCHEMA_VERSION}")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")

    @contextmanager
    def _read(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            try:
                yield self._db()
            except sqlite3.Error as exc:
                raise CacheError(f"provider cache {self._where()} failed: {exc}") from exc

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            conn = self._db()
            try:
                conn.execute("BEGIN IMMEDIATE")
            except sqlite3.Error as exc:
                raise CacheError(f"provider cache {self._where()} is busy or broken: {exc}") from exc
            try:
                yield conn
            except BaseException as exc:
                conn.execute("ROLLBACK")
                if isinstance(exc, sqlite3.Error):
                    raise CacheError(f"provider cache {self._where()} failed: {exc}") from exc
                raise
            conn.execute("COMMIT")

    def _where(self) -> str:
        return ":memory:" if self._memory else str(self.path)

    def close(self) -> None:
        with self._lock:
            if self._conn is not None and self._pid == os.getpid():
                self._conn.close()
            self._conn = None

    def __enter__(self) -> ProviderCache:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"ProviderCache({self._where() if self._has_storage() else None!r}, mode={self.mode.value!r})"

    def _has_storage(self) -> bool:
        return self._memory or self.path is not None

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

    # ------------------------------------------------------- export and import

    def export_jsonl(self, path: str | os.PathLike[str], *, kind: str | None = None,
                     model: str | None = None) -> int:
        """Write entries (optionally one kind / model) to ``path``, one JSON object per line,
        sorted by key, after a header line. Vectors are base64 float32 (exact and compact);
        LLM replies stay readable JSON. A ``.gz`` name writes gzip. Returns the entry count."""
        where, params = ["1 = 1"], []
        if kind is not None:
            where.append("e.kind = ?")
            params.append(_check_kind(kind))
        if model is not None:
            where.append("e.model = ?")
            params.append(model)
        with self._read() as conn:
            rows = conn.execute(
                "SELECT e.key, e.kind, e.model, e.created_at, e.request, e.value, "
                "(SELECT group_concat(t.text_hash, ' ') FROM text_hashes t WHERE t.key = e.key) "
                f"FROM entries e WHERE {' AND '.join(where)} ORDER BY e.key", params).fetchall()
        target = Path(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        with _open_text(target, "w") as out:
            out.write(canonical_json({"format": EXPORT_FORMAT, "version": SCHEMA_VERSION,
                                      "entries": len(rows)}) + "\n")
            for key, row_kind, row_model, created_at, request, value, hashes in rows:
                if row_kind == EMBEDDING:
                    exported: Any = {"dtype": "float32", "dim": len(value) // 4,
                                     "b64": base64.b64encode(bytes(value)).decode("ascii")}
                else:
                    exported = json.loads(value)
                out.write(canonical_json({
                    "key": key, "kind": row_kind, "model": row_model, "created_at": created_at,
                    "request": json.loads(request), "value": exported,
                    "text_hashes": sorted(hashes.split(" ")) if hashes else [],
                }) + "\n")
        return len(rows)

    def import_jsonl(self, path: str | os.PathLike[str]) -> int:
        """Load entries written by ``export_jsonl`` (replacing equal keys); returns the count.

        Works in every mode, replay included. Each key is recomputed from its line, so a line
        whose request was edited by hand is refused instead of answering the wrong request.
        """
        source = Path(path)
        rows = []
        try:
            with _open_text(source, "r") as lines:
                header = _parse_line(source, 1, lines.readline())
                if header.get("format") != EXPORT_FORMAT or header.get("version") != SCHEMA_VERSION:
                    raise CacheError(f"{source}: not a dualmem provider cache export "
                                     f"(format {EXPORT_FORMAT} version {SCHEMA_VERSION})")
                for number, line in enumerate(lines, start=2):
                    if line.strip():
                        rows.append(_import_row(source, number, _parse_line(source, number, line)))
        except (OSError, EOFError, gzip.BadGzipFile, UnicodeDecodeError) as exc:
            raise CacheError(f"cannot read cache export {source}: {exc}") from exc
        with self._write() as conn:
            for key, kind, model, created_at, request_json, value, hashes in rows:
                conn.execute(
                    "INSERT OR REPLACE INTO entries (key, kind, model, created_at, request, value) "
                    "VALUES (?, ?, ?, ?, ?, ?)", (key, kind, model, created_at, request_json, value))
                conn.execute("DELETE FROM text_hashes WHERE key = ?", (key,))
                conn.executemany("INSERT OR IGNORE INTO text_hashes (text_hash, key) VALUES (?, ?)",
                                 [(h, key) for h in hashes])
        return len(rows)


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


@contextmanager
def _open_text(path: Path, mode: str) -> Iterator[IO[str]]:
    if path.suffix == ".gz":
        if mode == "w":
            # mtime=0 and no file name: the same entries give byte-identical files
            with open(path, "wb") as raw, gzip.GzipFile(filename="", fileobj=raw, mode="wb", mtime=0) as gz, \
                    io.TextIOWrapper(gz, encoding="utf-8", newline="\n") as text:
                yield text
        else:
            with gzip.open(path, "rt", encoding="utf-8") as text:
                yield text
    else:
        with open(path, mode, encoding="utf-8", newline="\n" if mode == "w" else None) as text:
            yield text


def _parse_line(source: Path, number: int, line: str) -> dict[str, Any]:
    try:
        value = json.loads(line)
    except ValueError as exc:
        raise CacheError(f"{source}:{number}: not JSON ({exc})") from exc
    if not isinstance(value, dict):
        raise CacheError(f"{source}:{number}: expected a JSON object")
    return value


def _import_row(source: Path, number: int, row: dict[str, Any]) -> tuple:
    where = f"{source}:{number}"
    try:
        key, kind, model, created_at = row["key"], row["kind"], row["model"], row["created_at"]
        request, value, hashes = row["request"], row["value"], row.get("text_hashes", [])
    except KeyError as exc:
        raise CacheError(f"{where}: missing field {exc}") from exc
    if kind not in KINDS or not isinstance(model, str) or not isinstance(created_at, str):
        raise CacheError(f"{where}: bad kind, model or created_at")
    if cache_key(kind, model, request) != key:
        raise CacheError(f"{where}: the key does not match the request (edited by hand?); "
                         "re-record this entry instead of editing it")
    if kind == EMBEDDING:
        try:
            blob = base64.b64decode(value["b64"], validate=True)
        except (KeyError, TypeError, ValueError) as exc:
            raise CacheError(f"{where}: embedding value is not base64 float32 ({exc})") from exc
        if value.get("dtype") != "float32" or len(blob) != 4 * int(value.get("dim", -1)) or not blob:
            raise CacheError(f"{where}: embedding value length does not match its dim")
        stored: bytes | str = blob
    else:
        if not isinstance(value, dict):
            raise CacheError(f"{where}: an LLM value must be a JSON object")
        stored = canonical_json(value)
    if not isinstance(hashes, list) or not all(isinstance(h, str) and len(h) == 64 for h in hashes):
        raise CacheError(f"{where}: text_hashes must be a list of hex SHA-256 strings")
    return key, kind, model, created_at, canonical_json(request), stored, hashes
