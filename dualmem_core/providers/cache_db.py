"""The SQLite file under the provider cache: its tables, the connection, the transactions.

``CacheDatabase`` opens the file on first use (WAL mode, a busy timeout, reopened in a forked
child process), creates the tables and checks their schema version, and gives ``ProviderCache``
locked read and ``BEGIN IMMEDIATE`` write transactions that turn SQLite errors into
``CacheError``. ``ProviderCache.__init__`` sets the attributes it reads.

Separate from ``cache.py`` so that the cache's modes and lookups read apart from the storage
plumbing they stand on.
"""

from __future__ import annotations

import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from ..errors import CacheError, InvalidInput
from .cache_format import SCHEMA_VERSION

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


class CacheDatabase:
    """The connection handling of ``ProviderCache`` (its base class)."""

    path: Path | None
    timeout: float
    _lock: threading.RLock
    _conn: sqlite3.Connection | None
    _pid: int
    _memory: bool

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

    def _has_storage(self) -> bool:
        return self._memory or self.path is not None
