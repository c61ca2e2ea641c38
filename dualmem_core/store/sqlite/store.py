"""The embedded store: one SQLite file (WAL), FTS5 for text, an in-process numpy vector index.

``SQLiteStore`` is its connections, schema and leases (here) and one mixin per concern:
``writes``, ``changes`` (the Editor's change sets), ``forget``, ``search`` and ``reads``, the
same modules as the Neo4j store's; ``queries`` holds the SQL they share.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from importlib import resources
from pathlib import Path

from ...errors import ConflictError, StoreConfigError, StoreNotFound, StoreUnavailable
from ..backend import T
from ..base import DEFAULT_DIMENSION, Store, duplicates_warning
from ..lease import Lease
from ..lru import LeastRecent
from ..lru import cache_users as _cache_users
from . import lease as leases
from .access import PendingAccess
from .changes import Changes
from .checkpoint import BACKSTOP_PAGES, Checkpointer
from .forget import Forget
from .kept_reads import KeptReads
from .reads import Reads
from .search import Search
from .text_index import Tokenizer, UserText
from .vectors import UserVectors, VectorWrites
from .writes import Writes

CACHE_KIB = 65536  # SQLite page cache per connection
log = logging.getLogger(__name__)
SCHEMA_VERSION = 4  # bump with any change to schema.sql that old files lack; migrate in _migrate


class SQLiteStore(VectorWrites, Writes, Changes, Forget, Search, Reads, Store):
    """One local file; safe to share between threads (each thread gets its own connection)."""

    def __init__(self, path: str | Path, dimension: int | None = None, *, create: bool = True,
                 busy_timeout: float = 30.0, cache_users: int | None = None):
        self.path = Path(path).expanduser()
        self.created = not self.path.exists()
        if self.created and not create:
            raise StoreNotFound(
                f"no store at {self.path.absolute()}: check the store URL (sqlite:///x.db is relative "
                "to the working directory, sqlite:////x.db absolute), or create one by storing "
                "something ('dualmem remember' or 'dualmem import'; in Python, open_store(url, create=True))"
            )
        self.busy_timeout = busy_timeout  # seconds a write waits for another's write lock
        self.url = f"sqlite:///{self.path}"
        self._local = threading.local()
        self._connections: list[sqlite3.Connection] = []
        self._lock = threading.Lock()
        # Per-user caches, each bounded to the most recently used users (lru.py): a long-lived
        # server sees many users, and an evicted one is simply read again on its next use.
        self.cache_users = bound = _cache_users(cache_users)
        self._caches: LeastRecent[str, UserVectors] = LeastRecent(bound)
        self._texts: LeastRecent[str, UserText] = LeastRecent(bound)  # full-text postings
        self._kept: LeastRecent[str, KeptReads] = LeastRecent(bound)  # recall's provenance, hit rows
        self._counts_written = 0  # commits of recall counts: a hit row read across one is not kept
        self._tokenizer: Tokenizer | None = None
        self._checkpointer = Checkpointer(self.path)
        self._access = PendingAccess()  # recall counts, written with the next write
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreUnavailable(f"cannot create the folder for {self.path}: {exc}") from None
        conn = self._conn()
        try:
            schema = resources.files(__package__).joinpath("schema.sql").read_text()
            conn.executescript(schema)
        except sqlite3.DatabaseError as exc:
            raise StoreUnavailable(_unusable(self.path, exc)) from None
        self._check_schema_version(conn, schema)
        self._unique_sources(conn)
        self.dimension = self._settle_dimension(conn, dimension)

    # -- connections and transactions -----------------------------------------------------

    def _conn(self) -> sqlite3.Connection:
        conn = getattr(self._local, "conn", None)
        if conn is None:
            try:
                conn = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False,
                                       timeout=self.busy_timeout)
                conn.execute("PRAGMA journal_mode=WAL")
                conn.execute("PRAGMA synchronous=NORMAL")
                conn.execute("PRAGMA foreign_keys=ON")
                # 64 MiB of page cache (the default is 2 MiB): a write's index pages and a recall's
                # small reads stay in this process instead of being read again from the OS.
                conn.execute(f"PRAGMA cache_size=-{CACHE_KIB}")
                # Forgotten data is overwritten in the file, not left behind in free pages.
                conn.execute("PRAGMA secure_delete=ON")
                # Checkpoints run in the background (checkpoint.py); this is the backstop.
                conn.execute(f"PRAGMA wal_autocheckpoint={BACKSTOP_PAGES}")
            except sqlite3.DatabaseError as exc:
                raise StoreUnavailable(_unusable(self.path, exc)) from None
            self._local.conn = conn
            with self._lock:
                self._connections.append(conn)
        return conn

    @contextmanager
    def reading(self) -> Iterator[None]:
        """The block's reads share one read transaction (one snapshot of the file), and each user's
        generation is read once in it: recall checked it before each cache it used."""
        if getattr(self._local, "generations", None) is not None:  # nested: the outer block's
            yield
            return
        conn = self._conn()
        conn.execute("BEGIN")
        self._local.generations = {}
        # Before the snapshot is taken (at the first read): hit rows read in it are kept only
        # if no recall counts were committed since (``_rows_by_rid``).
        self._local.counts_at = self._counts_written
        try:
            yield
        finally:
            self._local.generations = None
            if conn.in_transaction:  # a read: nothing to keep, and an error must not be hidden
                conn.execute("ROLLBACK")

    @contextmanager
    def _tx(self, write: bool = True) -> Iterator[sqlite3.Connection]:
        conn = self._conn()
        if not write and getattr(self._local, "generations", None) is not None:
            yield conn  # inside ``reading``: its transaction already holds a snapshot
            return
        try:
            conn.execute("BEGIN IMMEDIATE" if write else "BEGIN")
        except sqlite3.OperationalError as exc:
            why = (f"another process held its write lock for over {self.busy_timeout:g} s"
                   if "locked" in str(exc) or "busy" in str(exc) else "the file cannot be read")
            raise StoreUnavailable(f"SQLite store {self.path} is busy or unreadable ({exc}): {why}; "
                                   "nothing was written, retry later") from None
        taken = self._access.take() if write else {}
        try:
            PendingAccess.write(conn, taken)  # recall counts ride along with any write
            yield conn
        except BaseException as exc:
            conn.execute("ROLLBACK")
            self._access.restore(taken)
            if isinstance(exc, sqlite3.IntegrityError):
                raise ConflictError(f"write refused by the store, nothing was written: {exc}") from None
            if isinstance(exc, sqlite3.OperationalError):
                raise StoreUnavailable(f"SQLite store {self.path}: {exc}; nothing was written") from None
            raise
        if taken:  # the kept hit rows follow the counts (kept_reads.py); see ``_rows_by_rid``
            with self._lock:
                conn.execute("COMMIT")
                self._count_kept(taken)
        else:
            conn.execute("COMMIT")
        if write:
            self._checkpointer.written()

    def _in_write(self, work: Callable[[sqlite3.Connection], T]) -> T:
        with self._tx() as conn:
            return work(conn)

    def _check_schema_version(self, conn: sqlite3.Connection, schema: str) -> None:
        conn.execute("INSERT OR IGNORE INTO meta VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),))
        found = int(conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()[0])
        if found in (2, 3):
            found = self._migrate(conn, schema)
        if found != SCHEMA_VERSION:
            raise StoreConfigError(
                f"{self.path} has store schema {found}, this dualmem expects {SCHEMA_VERSION}; "
                "export it with the dualmem that wrote it, or start a new file")

    @staticmethod
    def _migrate(conn: sqlite3.Connection, schema: str) -> int:
        """Bring a file of an older schema up to this one, in place; returns the version found
        after. Under the write lock, the version read again: of processes opening an old file at
        once, one migrates and the others find it done. Old rows are never rewritten."""
        conn.execute("BEGIN IMMEDIATE")
        try:
            found = int(conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()[0])
            if found == 2:  # version 3 added run metadata
                conn.execute("ALTER TABLE runs ADD COLUMN meta TEXT NOT NULL DEFAULT '{}'")
                found = 3
            if found == 3:  # version 4: a version's search text, indexed in place of its text
                # NULL in every old row means "index the text", which the FTS table already holds.
                conn.execute("ALTER TABLE versions ADD COLUMN search_text TEXT")
                # The old trigger indexes text alone; schema.sql's (kept there, the one source)
                # indexes the search text. CREATE ... IF NOT EXISTS left the old one in place.
                start = schema.index("CREATE TRIGGER IF NOT EXISTS versions_fts_insert")
                conn.execute("DROP TRIGGER IF EXISTS versions_fts_insert")
                conn.execute(schema[start:schema.index("END;", start) + len("END;")])
                found = 4
            conn.execute("UPDATE meta SET value = ? WHERE key = 'schema_version'", (str(found),))
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        return found

    def _unique_sources(self, conn: sqlite3.Connection) -> None:
        """One source id names one message of a user: a unique index holds it, also against
        concurrent writers (a read before the write cannot). Outside schema.sql because a file
        made before it may hold duplicates: then the file still opens, without the index, and a
        warning names them (forget all but one, and the next open makes the index)."""
        try:
            conn.execute(f"CREATE UNIQUE INDEX IF NOT EXISTS {SOURCE_INDEX} "
                         "ON episodes (user_id, source_id) WHERE source_id IS NOT NULL")
        except sqlite3.IntegrityError:
            found = conn.execute(
                "SELECT user_id, source_id, count(*) FROM episodes WHERE source_id IS NOT NULL "
                "GROUP BY user_id, source_id HAVING count(*) > 1 LIMIT 5").fetchall()
            log.warning(duplicates_warning(self.path, found))

    def _settle_dimension(self, conn: sqlite3.Connection, wanted: int | None) -> int:
        row = conn.execute("SELECT value FROM meta WHERE key = 'dimension'").fetchone()
        if row is None:
            dimension = wanted or DEFAULT_DIMENSION
            conn.execute("INSERT OR IGNORE INTO meta VALUES ('dimension', ?)", (str(dimension),))
            row = conn.execute("SELECT value FROM meta WHERE key = 'dimension'").fetchone()
        stored = int(row[0])
        if wanted is not None and wanted != stored:
            raise StoreConfigError(
                f"{self.path} holds {stored}-dimensional vectors, not {wanted}; "
                "use the embedder it was created with, or a new store file"
            )
        return stored

    def close(self) -> None:
        try:
            if self._access.pending():
                with self._tx():  # the counted recalls reach the file before it closes
                    pass
        finally:
            self._close()

    def _close(self) -> None:
        self._checkpointer.close()
        with self._lock:
            for conn in self._connections:
                conn.close()
            self._connections.clear()
            self._caches.clear()
            self._texts.clear()
            self._kept.clear()
            if self._tokenizer is not None:
                self._tokenizer.close()
                self._tokenizer = None
        self._local = threading.local()

    def _acquire_lease(self, user_id: str, owner: str, seconds: float) -> Lease:
        with self._tx() as conn:
            return leases.acquire(conn, self.url, user_id, owner, seconds)

    def _release_lease(self, user_id: str, owner: str) -> None:
        with self._tx() as conn:
            leases.release(conn, user_id, owner)

    def list_users(self) -> list[str]:
        rows = self._conn().execute(
            "SELECT user_id FROM episodes UNION SELECT user_id FROM memories "
            "UNION SELECT user_id FROM entities ORDER BY 1").fetchall()
        return [r[0] for r in rows]


SOURCE_INDEX = "episodes_unique_source"


def _unusable(path: Path, exc: Exception) -> str:
    return (f"{path} is not a usable dualmem SQLite store ({exc}); "
            "point DUALMEM_STORE at another file or move this one away")
