"""The embedded store: one SQLite file (WAL), FTS5 for text, an in-process numpy vector index."""

from __future__ import annotations

import json
import sqlite3
import threading
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict
from datetime import datetime
from importlib import resources
from pathlib import Path

import numpy as np

from ...errors import ConflictError, NotFound, StoreConfigError, StoreNotFound, StoreUnavailable
from ...timeutil import from_micros, to_micros, utcnow
from .. import changes as ch
from ..base import DEFAULT_DIMENSION, Store, observations, rank_neighbours
from ..forgetting import ForgetReceipt, absent_ids, neighbour_texts, redact_run, select_forgotten
from ..lease import Lease
from ..lru import LeastRecent
from ..lru import cache_users as _cache_users
from ..models import (
    Edge,
    EdgeType,
    Entity,
    Episode,
    Memory,
    MemoryVersion,
    Neighbour,
    SearchFilter,
    SearchHit,
    UserGraph,
    WriteBatch,
    entity_keys,
)
from ..planning import (
    Ref,
    TargetState,
    batch_external_refs,
    batch_new_refs,
    change_refs,
    check_batch_refs,
    plan_changes,
)
from . import lease as leases
from . import rows as R
from .access import PendingAccess
from .checkpoint import BACKSTOP_PAGES, Checkpointer
from .kept import KeptReads
from .text import Tokenizer, UserText, best
from .vectors import FAR, UserVectors

CHUNK = 500  # ids per IN (...) list, well under SQLite's variable limit
_MAX_PENDING_TEXTS = 20_000  # versions written since a user's last text search, kept to tokenize
CACHE_KIB = 65536  # SQLite page cache per connection
SCHEMA_VERSION = 4  # bump with any change to schema.sql that old files lack; migrate in _migrate

_TABLES = {"episodes": (R.EPISODE_COLUMNS, R.episode_row),
           "memories": (R.MEMORY_COLUMNS, R.memory_row),
           "versions": (R.VERSION_COLUMNS, R.version_row),
           "entities": (R.ENTITY_COLUMNS, R.entity_row),
           "edges": (R.EDGE_COLUMNS, R.edge_row)}
_STATE_QUERIES = {
    "episode": "SELECT id, user_id, created_by, NULL, NULL FROM episodes",
    "memory": "SELECT id, user_id, created_by, NULL, review_state FROM memories",
    "version": "SELECT id, user_id, created_by, tx_to, NULL FROM versions",
    "entity": "SELECT id, user_id, created_by, NULL, NULL FROM entities",
    "edge": "SELECT id, user_id, created_by, tx_to, NULL FROM edges",
}
# Hits leave the embedding out (NULL in its place): callers rank by score, and Neo4j would
# otherwise ship 384 floats a hit.
# Without ANALYZE statistics SQLite may read a whole user's edges through the other index;
# lookups by one end name the index of that end.
_BY_SRC = "edges INDEXED BY edges_from_src"
_BY_DST = "edges INDEXED BY edges_by_dst"
_ENTITY_COLUMNS_E = R.prefixed(R.ENTITY_COLUMNS, "e")
_HIT_SELECT = (f"SELECT v.rid, {R.prefixed(R.VERSION_COLUMNS, 'v').replace('v.embedding', 'NULL')}, "
               f"{R.prefixed(R.MEMORY_COLUMNS, 'm')} FROM versions v "
               "JOIN memories m ON m.id = v.memory_id")


class SQLiteStore(Store):
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
        if taken:  # the kept hit rows follow the counts (kept.py); see ``_rows_by_rid``
            with self._lock:
                conn.execute("COMMIT")
                self._count_kept(taken)
        else:
            conn.execute("COMMIT")
        if write:
            self._checkpointer.written()

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

    # -- shared steps ---------------------------------------------------------------------

    def _read_state(self, conn: sqlite3.Connection, refs: set[Ref]) -> dict[Ref, TargetState]:
        by_kind: dict[str, list[str]] = defaultdict(list)
        for kind, rid in refs:
            by_kind[kind].append(rid)
        state: dict[Ref, TargetState] = {}
        for kind, ids in by_kind.items():
            for rows in _select_in(conn, _STATE_QUERIES[kind] + " WHERE id IN ({})", ids):
                for rid, user, maker, tx_to, review in rows:
                    state[(kind, rid)] = TargetState(
                        user, maker, None if tx_to is None else from_micros(tx_to), review)
        return state

    def _insert_rows(self, conn: sqlite3.Connection, table: str, records: list, now: int) -> None:
        if records:
            columns, to_row = _TABLES[table]
            conn.executemany(
                f"INSERT INTO {table} ({columns}) VALUES ({R.placeholders(columns)})",
                [to_row(r, now) for r in records])
        if table == "entities":
            conn.executemany("INSERT OR IGNORE INTO entity_keys VALUES (?, ?, ?)",
                             [(e.user_id, key, e.id) for e in records for key in entity_keys(e)])

    def _insert_batch(self, conn: sqlite3.Connection, batch: WriteBatch, now: int) -> None:
        for table in ("episodes", "entities", "memories", "versions", "edges"):
            self._insert_rows(conn, table, getattr(batch, table), now)

    def _checked_insert(self, conn: sqlite3.Connection, user_id: str, batch: WriteBatch,
                        now: int) -> None:
        wanted = batch_external_refs(batch)
        check_batch_refs(user_id, self._read_state(conn, wanted), wanted, set())
        # New ids are fresh in all but a broken caller: the unique keys refuse a taken one, and
        # only then is it looked up, to say which (the failed statement wrote nothing).
        try:
            self._insert_batch(conn, batch, now)
        except sqlite3.IntegrityError:
            new = batch_new_refs(batch)
            check_batch_refs(user_id, {}, set(), new & self._read_state(conn, new).keys())
            raise

    def _bump(self, conn: sqlite3.Connection, user_id: str) -> int:
        conn.execute("INSERT INTO user_generation VALUES (?, 1) ON CONFLICT (user_id) "
                     "DO UPDATE SET generation = generation + 1", (user_id,))
        return conn.execute("SELECT generation FROM user_generation WHERE user_id = ?",
                            (user_id,)).fetchone()[0]

    # -- writes ---------------------------------------------------------------------------

    def _write(self, user_id: str, batch: WriteBatch) -> None:
        now = to_micros(utcnow())
        with self._tx() as conn:
            self._checked_insert(conn, user_id, batch, now)
            generation = self._bump(conn, user_id)
        self._extend_cache(user_id, generation, batch, now)

    def _extend_cache(self, user_id: str, generation: int, batch: WriteBatch, now: int) -> None:
        """Append a committed batch to the user's caches, or drop those that fell behind."""
        memories = {m.id: m for m in batch.memories}
        with self._lock:
            kept = self._kept.get(user_id)
            if kept is not None and kept.generation == generation - 1:
                kept.written(batch)
                kept.generation = generation
            elif kept is not None:
                del self._kept[user_id]
            cache, text = self._caches.get(user_id), self._texts.get(user_id)
            if text is not None and text.generation != generation - 1:
                del self._texts[user_id]
                text = None
            embedded = [v for v in batch.versions if v.embedding is not None]
            if cache is not None and (cache.generation != generation - 1
                                      or any(v.memory_id not in memories for v in embedded)):
                del self._caches[user_id]
                cache = None
            if cache is None and text is None:
                return
            rids = dict(self._conn().execute(
                "SELECT id, rid FROM versions WHERE id IN (SELECT value FROM json_each(?))",
                (json.dumps([v.id for v in batch.versions]),)).fetchall()) if batch.versions else {}
            if text is not None:  # tokenized by the next search, not on the write path
                text.pending += [(rids[v.id], v.text if v.search_text is None else v.search_text)
                                 for v in batch.versions]  # what the FTS trigger indexed
                text.generation = generation
                if len(text.pending) > _MAX_PENDING_TEXTS:  # no search for long: rebuild when one comes
                    del self._texts[user_id]
            if cache is None:
                return
            cache.append([
                (rids[v.id], np.asarray(v.embedding, dtype=np.float32).tobytes(),
                 to_micros(v.valid_from), to_micros(v.valid_to),
                 now if v.tx_from is None else to_micros(v.tx_from), to_micros(v.tx_to),
                 memories[v.memory_id].kind, v.status, memories[v.memory_id].agent_id,
                 memories[v.memory_id].session_id)
                for v in embedded])
            cache.generation = generation

    def _drop_cache(self, user_id: str) -> None:
        with self._lock:
            self._caches.pop(user_id, None)
            self._texts.pop(user_id, None)
            self._kept.pop(user_id, None)

    def _apply_changes(self, changes: ch.ChangeSet, on_conflict: str) -> ch.ChangeReceipt:
        now = utcnow()
        receipt = ch.ChangeReceipt(changes.run_id, changes.user_id, applied_at=now)
        with self._tx() as conn:
            done = conn.execute("SELECT applied_at FROM runs WHERE user_id = ? AND run_id = ?",
                                (changes.user_id, changes.run_id)).fetchone()
            if done is not None:
                receipt.already_applied, receipt.applied_at = True, from_micros(done[0])
                return receipt
            refs = change_refs(changes)
            state = self._read_state(conn, refs)
            plan = plan_changes(changes, state, now, on_conflict)
            for op in plan.operations:
                self._apply_op(conn, op, to_micros(now))
            record = redact_run(plan.journal, [asdict(s) for s in plan.skipped], changes.meta,
                                absent_ids(refs, state, plan.journal))
            conn.execute("INSERT INTO runs VALUES (?, ?, ?, ?, ?, ?)", (
                changes.user_id, changes.run_id, to_micros(now), *(json.dumps(r) for r in record)))
            self._bump(conn, changes.user_id)
        self._drop_cache(changes.user_id)
        receipt.applied, receipt.skipped = len(plan.operations), plan.skipped
        return receipt

    def _apply_op(self, conn: sqlite3.Connection, op: ch.Operation, now: int) -> None:
        match op:
            case ch.AddMemory(memory=m):
                self._insert_rows(conn, "memories", [m], now)
            case ch.AddVersion(version=v):
                self._insert_rows(conn, "versions", [v], now)
            case ch.AddEntity(entity=e):
                self._insert_rows(conn, "entities", [e], now)
            case ch.AddEdge(edge=e):
                self._insert_rows(conn, "edges", [e], now)
            case ch.CloseVersion(version_id=i, at=at):
                conn.execute("UPDATE versions SET tx_to = ? WHERE id = ?", (to_micros(at), i))
            case ch.ReopenVersion(version_id=i):
                conn.execute("UPDATE versions SET tx_to = ? WHERE id = ?", (FAR, i))
            case ch.CloseEdge(edge_id=i, at=at):
                conn.execute("UPDATE edges SET tx_to = ? WHERE id = ?", (to_micros(at), i))
            case ch.ReopenEdge(edge_id=i):
                conn.execute("UPDATE edges SET tx_to = ? WHERE id = ?", (FAR, i))
            case ch.SetReviewState(memory_id=i, state=s):
                conn.execute("UPDATE memories SET review_state = ? WHERE id = ?", (s, i))
            case ch.RemoveCreated(kind="edge", id=i):
                conn.execute("DELETE FROM edges WHERE id = ?", (i,))
            case ch.RemoveCreated(kind="version", id=i):
                conn.execute("DELETE FROM versions WHERE id = ?", (i,))
            case ch.RemoveCreated(kind=kind, id=i):  # a memory or entity, with what hangs off it
                conn.execute("DELETE FROM edges WHERE src_id = ? OR dst_id = ?", (i, i))
                if kind == "memory":
                    conn.execute("DELETE FROM versions WHERE memory_id = ?", (i,))
                conn.execute(f"DELETE FROM {'memories' if kind == 'memory' else 'entities'} "
                             "WHERE id = ?", (i,))

    def _record_access(self, user_id: str, memory_ids: list[str], at: datetime) -> None:
        # Counted in memory (access.py); an overdue batch of counts is written now.
        if self._access.add(user_id, memory_ids, to_micros(at)):
            with self._tx():
                pass

    def _import_graph(self, user_id: str, batch: WriteBatch, replace: bool) -> None:
        with self._tx() as conn:
            if replace:
                self._delete_rows(conn, user_id)
            self._checked_insert(conn, user_id, batch, to_micros(utcnow()))
            self._bump(conn, user_id)
        self._drop_cache(user_id)

    def _forget(self, user_id: str, source_ids: list[str], episode_ids: list[str],
                memory_ids: list[str]) -> ForgetReceipt:
        with self._tx() as conn:
            def ids_in(sql: str, *params: object) -> list[str]:
                return [r[0] for r in conn.execute(sql, params).fetchall()]

            episodes = set(ids_in(
                "SELECT id FROM episodes WHERE user_id = ? AND (source_id IN (SELECT value FROM "
                "json_each(?)) OR id IN (SELECT value FROM json_each(?)))",
                user_id, json.dumps(source_ids), json.dumps(episode_ids)))
            explicit = set(ids_in("SELECT id FROM memories WHERE user_id = ? AND id IN "
                                  "(SELECT value FROM json_each(?))", user_id, json.dumps(memory_ids)))

            def pairs(edge_type: str, side: str, ids: set[str]) -> list[tuple[str, str]]:
                column = "src_id" if side == "src" else "dst_id"
                table = _BY_SRC if side == "src" else _BY_DST
                return conn.execute(
                    f"SELECT src_id, dst_id FROM {table} WHERE user_id = ? AND type = ? AND {column} "
                    "IN (SELECT value FROM json_each(?))", (user_id, edge_type, json.dumps(list(ids)))
                ).fetchall()

            memories, entities, kept = select_forgotten(episodes, explicit, pairs)
            receipt = ForgetReceipt(user_id, sorted(episodes), sorted(memories), sorted(entities),
                                    kept_memory_ids=sorted(kept), source_ids=sorted(set(source_ids)))
            gone = json.dumps(sorted(episodes | memories | entities))
            said = [r[0] for r in conn.execute(
                "SELECT text FROM episodes WHERE user_id = ? AND id IN (SELECT value FROM json_each(?))",
                (user_id, gone)).fetchall()]
            self._unindex_neighbours(conn, user_id, said)
            receipt.edges = conn.execute(
                "DELETE FROM edges WHERE user_id = ? AND (src_id IN (SELECT value FROM json_each(?)) "
                "OR dst_id IN (SELECT value FROM json_each(?)))", (user_id, gone, gone)).rowcount
            receipt.versions = conn.execute(
                "DELETE FROM versions WHERE user_id = ? AND memory_id IN (SELECT value FROM json_each(?))",
                (user_id, gone)).rowcount
            for table in ("memories", "entities", "episodes"):
                conn.execute(f"DELETE FROM {table} WHERE user_id = ? AND id IN "
                             "(SELECT value FROM json_each(?))", (user_id, gone))
            for run_id, *record in conn.execute("SELECT run_id, journal, skipped, meta FROM runs "
                                                "WHERE user_id = ?", (user_id,)).fetchall():
                kept = redact_run(*(json.loads(f) for f in record), receipt.deleted_ids)
                conn.execute("UPDATE runs SET journal = ?, skipped = ?, meta = ? WHERE user_id = ? "
                             "AND run_id = ?", (*(json.dumps(f) for f in kept), user_id, run_id))
            # FTS5 only marks deleted rows until its segments merge; merge now so the
            # forgotten words leave the index, then checkpoint so the WAL drops old pages.
            conn.execute("INSERT INTO versions_fts (versions_fts) VALUES ('optimize')")
            self._bump(conn, user_id)
        self._conn().execute("PRAGMA wal_checkpoint(TRUNCATE)")
        self._drop_cache(user_id)
        return receipt

    @staticmethod
    def _unindex_neighbours(conn: sqlite3.Connection, user_id: str, said: list[str]) -> None:
        """Later messages were indexed with the forgotten ones as context (``search_text``):
        they go back to being searched by their own text, in the table and in FTS5."""
        rows = dict(row for t in neighbour_texts(said) for row in conn.execute(
            "SELECT rid, text FROM versions WHERE user_id = ? AND search_text IS NOT NULL "
            "AND instr(search_text, ?) > 0", (user_id, t)).fetchall())
        for rid, text in rows.items():
            conn.execute("UPDATE versions SET search_text = NULL WHERE rid = ?", (rid,))
            conn.execute("DELETE FROM versions_fts WHERE rowid = ?", (rid,))
            conn.execute("INSERT INTO versions_fts (rowid, text, user_key) VALUES (?, ?, 'u' || hex(?))",
                         (rid, text, user_id))

    def _delete_user(self, user_id: str) -> dict[str, int]:
        with self._tx() as conn:
            counts = self._delete_rows(conn, user_id)
            self._bump(conn, user_id)
        self._drop_cache(user_id)
        return counts

    @staticmethod
    def _delete_rows(conn: sqlite3.Connection, user_id: str) -> dict[str, int]:
        counts = {}
        conn.execute("DELETE FROM entity_keys WHERE user_id = ?", (user_id,))
        leases.clear(conn, user_id)
        for table in ("edges", "versions", "memories", "entities", "episodes", "runs"):
            counts[table] = conn.execute(f"DELETE FROM {table} WHERE user_id = ?", (user_id,)).rowcount
        return counts

    # -- search ---------------------------------------------------------------------------

    def _vector_search(self, unit_query: np.ndarray, flt: SearchFilter, k: int) -> list[SearchHit]:
        return self._hits(flt.user_id, self._vector_top(unit_query, flt, k))

    def _vector_top(self, unit_query: np.ndarray, flt: SearchFilter, k: int) -> list[tuple[int, float]]:
        cache = self._vectors(flt.user_id)
        with self._lock:
            return cache.top_k(unit_query, flt, k)

    def _hybrid_search(self, unit_query: np.ndarray, terms: list[str], flt: SearchFilter, k: int,
                       cues: list[str]) -> tuple[list[SearchHit], list[SearchHit], list[SearchHit]]:
        # The lists' rows in one read: they share many rows, and a read per list cost a tenth of recall.
        by_vector = self._vector_top(unit_query, flt, k)
        by_text = self._text_top(terms, flt, k) if terms else []
        by_cue = self._text_top(cues, observations(flt), k) if cues else []
        found = self._rows_by_rid(flt.user_id, [rid for rid, _ in by_vector + by_text + by_cue])
        vector, text, cue = (self._hits(flt.user_id, hits, found) for hits in (by_vector, by_text, by_cue))
        return vector, text, cue

    def _nearest_memories(self, user_id: str, unit: np.ndarray, k: int,
                          min_score: float) -> list[list[tuple[str, float]]]:
        cache = self._vectors(user_id)
        with self._lock:  # over-fetch: several versions of one memory may rank together
            tops = cache.top_k_many(unit, SearchFilter(user_id), 2 * k, min_score)
        rids = sorted({rid for top in tops for rid, _ in top})
        memory_of = dict(self._conn().execute(
            "SELECT rid, memory_id FROM versions WHERE rid IN (SELECT value FROM json_each(?))",
            (json.dumps(rids),)).fetchall()) if rids else {}
        out = []
        for top in tops:
            best: dict[str, float] = {}
            for rid, score in top:
                if rid in memory_of:
                    best.setdefault(memory_of[rid], score)
            out.append(list(best.items())[:k])
        return out

    def _vectors(self, user_id: str) -> UserVectors:
        """The user's vector cache, reloaded when another process or connection wrote."""
        with self._lock:
            cache = self._caches.get(user_id)
        if cache is None or cache.generation != self._generation(user_id):
            cache = self._load_vectors(user_id)
        return cache

    def _generation(self, user_id: str) -> int:
        memo = getattr(self._local, "generations", None)
        if memo is not None and user_id in memo:
            return memo[user_id]
        row = self._conn().execute("SELECT generation FROM user_generation WHERE user_id = ?",
                                   (user_id,)).fetchone()
        generation = 0 if row is None else row[0]
        if memo is not None:
            memo[user_id] = generation
        return generation

    def _load_vectors(self, user_id: str) -> UserVectors:
        with self._tx(write=False) as conn:
            generation = conn.execute("SELECT generation FROM user_generation WHERE user_id = ?",
                                      (user_id,)).fetchone()
            rows = conn.execute(
                "SELECT v.rid, v.embedding, v.valid_from, v.valid_to, v.tx_from, v.tx_to, m.kind, "
                "v.status, m.agent_id, m.session_id FROM versions v "
                "JOIN memories m ON m.id = v.memory_id "
                "WHERE v.user_id = ? AND v.embedding IS NOT NULL ORDER BY v.rid",
                (user_id,)).fetchall()
        cache = UserVectors(self.dimension, 0 if generation is None else generation[0])
        cache.append(rows)
        with self._lock:
            self._caches[user_id] = cache
        return cache

    def _hits(self, user_id: str, scored: list[tuple[int, float]],
              found: dict[int, tuple[MemoryVersion, Memory]] | None = None) -> list[SearchHit]:
        """Search hits of (rid, score) pairs, from rows already read (``found``) or read now."""
        if found is None:
            found = self._rows_by_rid(user_id, [rid for rid, _ in scored])
        return [SearchHit(found[rid][1], found[rid][0], score) for rid, score in scored
                if rid in found]

    def _rows_by_rid(self, user_id: str, rids: list[int]) -> dict[int, tuple[MemoryVersion, Memory]]:
        """The version and memory of each of the user's rids, through the kept rows (kept.py)."""
        if not rids:
            return {}
        rids = list(dict.fromkeys(rids))
        generation = self._generation(user_id)
        with self._lock:
            kept = self._kept_at(user_id, generation)
            rows, lacking = kept.hit_rows(rids), kept.missing_rows(rids)
            inside = getattr(self._local, "generations", None) is not None  # in ``reading``'s snapshot
            counts_written = self._local.counts_at if inside else self._counts_written
        if lacking:
            width = len(R.VERSION_COLUMNS.split(","))
            with self._tx(write=False) as conn:  # the rows and their generation from one snapshot
                read_at = self._generation(user_id)
                read = conn.execute(_HIT_SELECT + " WHERE v.rid IN (SELECT value FROM json_each(?))",
                                    (json.dumps(lacking),)).fetchall()
            new = [(r[0], r[1:width + 1], r[width + 1:]) for r in read]
            with self._lock:
                # Counts committed since the snapshot began may or may not be in these rows:
                # then they are not kept (``_tx`` commits counts and adds them to kept rows at
                # once, under the lock).
                if kept.generation == read_at and self._counts_written == counts_written:
                    kept.keep_rows(new)
            rows += new
        memories = self._access.seen([R.to_memory(memory) for _, _, memory in rows])
        return {rid: (R.to_version(version), memory)
                for (rid, version, _), memory in zip(rows, memories, strict=True)}

    def _count_kept(self, taken: dict[tuple[str, str], list[int]]) -> None:
        """Counts just committed, added to the kept rows' memories (under ``self._lock``)."""
        self._counts_written += 1
        for (user_id, memory_id), (count, at) in taken.items():
            kept = self._kept.get(user_id)
            if kept is not None:
                kept.counted(memory_id, count, at)

    def _text_search(self, terms: list[str], flt: SearchFilter, k: int) -> list[SearchHit]:
        return self._hits(flt.user_id, self._text_top(terms, flt, k))

    def _text_top(self, terms: list[str], flt: SearchFilter, k: int) -> list[tuple[int, float]]:
        """(rid, bm25) of the best k rows the filter admits."""
        conn = self._conn()
        ranked = self._text_ranked(conn, terms, flt.user_id)
        if ranked is None:  # a word that is a phrase to FTS5: FTS5 itself ranks
            return self._fts_top(conn, terms, flt, k)
        # Best first, checked against the filters a page at a time until k pass: what ranking
        # every match in FTS5 and joining the filters would return, equal scores by rowid.
        rids, scores = ranked
        top: list[tuple[int, float]] = []
        start, page = 0, max(k * 10, 100)
        while len(top) < k and start < rids.size:
            chunk = best(rids, scores, start + page)[start:]
            admitted = self._admitted(conn, [rid for rid, _ in chunk], flt)
            top += [(rid, score) for rid, score in chunk if rid in admitted]
            start, page = start + page, 2 * page
        return top[:k]

    def _text_ranked(self, conn: sqlite3.Connection, terms: list[str],
                     user_id: str) -> tuple[np.ndarray, np.ndarray] | None:
        """(rids, bm25 scores) of the user's rows matching a term, from the in-process postings
        (``text.py``), with the user's own statistics; None when a term is not one token."""
        with self._lock:
            if self._tokenizer is None:
                self._tokenizer = Tokenizer()
            tokenizer = self._tokenizer
        tokens = tokenizer.phrases(terms)
        if tokens is None:
            return None
        index = self._user_text(user_id)
        with self._lock:
            index.settle(tokenizer)
            # BM25's statistics are the user's own (rows, their mean length, rows holding a
            # token): another tenant's memories never move this user's ranking.
            return index.ranked(tokens)

    def _user_text(self, user_id: str) -> UserText:
        """The user's full-text postings, rebuilt when another process or connection wrote."""
        with self._lock:
            index = self._texts.get(user_id)
        if index is not None and index.generation == self._generation(user_id):
            return index
        with self._tx(write=False) as conn:
            generation = conn.execute("SELECT generation FROM user_generation WHERE user_id = ?",
                                      (user_id,)).fetchone()
            # The string the FTS trigger indexed (schema.sql), so scores stay FTS5's own.
            rows = conn.execute("SELECT rid, coalesce(search_text, text) FROM versions "
                                "WHERE user_id = ? ORDER BY rid", (user_id,)).fetchall()
        with self._lock:
            tokenizer = self._tokenizer
        assert tokenizer is not None
        _, key_length = tokenizer.counts([(1, f"u{user_id.encode().hex()}")])
        index = UserText(0 if generation is None else generation[0], key_length.get(1, 0))
        index.add(tokenizer, rows)
        with self._lock:
            self._texts[user_id] = index
        return index

    def _fts_top(self, conn: sqlite3.Connection, terms: list[str], flt: SearchFilter,
                 k: int) -> list[tuple[int, float]]:
        words = " OR ".join(f'"{t}"' for t in terms)
        match = f'user_key:"u{flt.user_id.encode().hex()}" AND text:({words})'
        # First the index alone, over-fetched: ranking inside FTS5 is several times cheaper
        # than joining every match. Only if the filters then leave fewer than k, rank them all.
        fetch = max(k * 10, 100)
        ranked = conn.execute(
            "SELECT rowid, -bm25(versions_fts, 1.0, 0.0) FROM versions_fts WHERE versions_fts MATCH ? "
            "ORDER BY bm25(versions_fts, 1.0, 0.0) LIMIT ?", (match, fetch)).fetchall()
        admitted = self._admitted(conn, [rid for rid, _ in ranked], flt)
        top = [(rid, float(score)) for rid, score in ranked if rid in admitted][:k]
        if len(top) < k and len(ranked) == fetch:
            top = self._text_search_all(conn, match, flt, k)
        return top

    def _admitted(self, conn: sqlite3.Connection, rids: list[int], flt: SearchFilter) -> set[int]:
        """The rows among ``rids`` that the filter admits: from the vector cache's columns, and
        from the table for rows the cache lacks (versions without an embedding)."""
        if not rids:
            return set()
        cache = self._vectors(flt.user_id)
        wanted = np.asarray(rids, dtype=np.int64)
        with self._lock:
            held, admitted = cache.admits(wanted, flt)
        found = set(wanted[admitted].tolist())
        missing = wanted[~held].tolist()
        return found | self._admitted_by_table(conn, missing, flt) if missing else found

    @staticmethod
    def _admitted_by_table(conn: sqlite3.Connection, rids: list[int], flt: SearchFilter) -> set[int]:
        """The rows among ``rids`` that the filter admits, read from the table."""
        if not rids:
            return set()
        where, params = _filter_sql(flt)
        # "+v.user_id" keeps SQLite on the rowids: by the user's time index it scans the user.
        where = where.replace("v.user_id = ?", "+v.user_id = ?", 1)
        join = " JOIN memories m ON m.id = v.memory_id" if _needs_memory(flt) else ""
        rows = conn.execute(f"SELECT v.rid FROM versions v{join} WHERE v.rid IN "
                            f"(SELECT value FROM json_each(?)) AND {where}",
                            (json.dumps(rids), *params)).fetchall()
        return {rid for (rid,) in rows}

    @staticmethod
    def _text_search_all(conn: sqlite3.Connection, match: str, flt: SearchFilter,
                         k: int) -> list[tuple[int, float]]:
        where, params = _filter_sql(flt)
        # Join memories only when a filter needs their columns: every match pays for the join.
        join = " JOIN memories m ON m.id = v.memory_id" if _needs_memory(flt) else ""
        rows = conn.execute(
            f"SELECT f.rowid, -bm25(versions_fts, 1.0, 0.0) FROM versions_fts f "
            f"JOIN versions v ON v.rid = f.rowid{join} "
            f"WHERE versions_fts MATCH ? AND {where} ORDER BY bm25(versions_fts, 1.0, 0.0) LIMIT ?",
            (match, *params, k)).fetchall()
        return [(rid, float(score)) for rid, score in rows]

    def _entity_neighbours(self, user_id: str, memory_ids: list[str], max_entity_degree: int,
                           limit: int) -> list[Neighbour]:
        seeds = list(dict.fromkeys(memory_ids))
        mentions = "FROM edges WHERE user_id = ? AND type = 'MENTIONS' AND tx_to = ?"
        by_dst = mentions.replace("edges", _BY_DST)  # the planner, without statistics, may take another

        def pairs(name: str, sql: str, ids: list[str]) -> dict[str, list[str]]:
            """{id: its ends}: recall's seeds and their entities repeat."""
            return self._kept_pairs(user_id, name, ids, lambda conn, missing: conn.execute(
                sql, (user_id, FAR, json.dumps(missing))).fetchall())

        seeds_of: dict[str, list[str]] = defaultdict(list)
        for seed, entities in pairs("mentions", f"SELECT src_id, dst_id {mentions.replace('edges', _BY_SRC)} "
                                    "AND src_id IN (SELECT value FROM json_each(?))", seeds).items():
            for entity in entities:
                seeds_of[entity].append(seed)
        cap = max_entity_degree + 1

        def count(conn: sqlite3.Connection, missing: list[str]) -> list[tuple]:
            # Each entity's mentions counted only up to the hub limit: a hub's full count is not needed.
            return conn.execute(
                f"SELECT e.value, (SELECT count(*) FROM (SELECT 1 {by_dst} AND dst_id = e.value LIMIT ?)) "
                "FROM json_each(?) e", (user_id, FAR, cap, json.dumps(missing))).fetchall()

        degrees = self._through_kept(
            user_id, list(seeds_of), lambda k, ids: k.uncounted(ids, cap), count,
            lambda k, _, rows: k.keep_degrees(rows, cap), lambda k, ids: k.known_degrees(ids, cap))
        kept = [e for e, degree in degrees.items() if degree <= max_entity_degree]
        mentioned = pairs("mentioned_by", f"SELECT dst_id, src_id {by_dst} AND dst_id IN "
                          "(SELECT value FROM json_each(?))", kept)
        wanted = set(seeds)
        rows = [(src, e) for e in kept for src in mentioned[e] if src not in wanted]
        return rank_neighbours(rows, {e: tuple(sorted(s)) for e, s in seeds_of.items()}, limit)

    # -- reads ----------------------------------------------------------------------------

    def _select(self, table: str, columns: str, user_id: str, ids: list[str]) -> list[tuple]:
        # "+user_id" keeps SQLite on the primary key: by the user index it would scan the user.
        query = f"SELECT {columns} FROM {table} WHERE +user_id = ? AND id IN ({{}})"
        conn = self._conn()
        return [r for rows in _select_in(conn, query, ids, (user_id,)) for r in rows]

    def _get_memories(self, user_id: str, ids: list[str]) -> list[Memory]:
        rows = self._select("memories", R.MEMORY_COLUMNS, user_id, ids)
        return self._access.seen([R.to_memory(r) for r in rows])

    def _get_episodes(self, user_id: str, ids: list[str]) -> list[Episode]:
        return [R.to_episode(r) for r in self._select("episodes", R.EPISODE_COLUMNS, user_id, ids)]

    def _episodes_by_source(self, user_id: str, source_ids: list[str]) -> list[Episode]:
        query = (f"SELECT {R.EPISODE_COLUMNS} FROM episodes WHERE user_id = ? AND source_id IN ({{}}) "
                 "ORDER BY observed_at, id")
        rows = _select_in(self._conn(), query, source_ids, (user_id,))
        return [R.to_episode(r) for chunk in rows for r in chunk]

    def _get_versions(self, user_id: str, memory_ids: list[str], known_at: datetime | None,
                      all_versions: bool, embeddings: bool) -> list[MemoryVersion]:
        where, params = _tx_sql("", known_at, all_versions)
        columns = R.VERSION_COLUMNS if embeddings else R.VERSION_COLUMNS.replace("embedding", "NULL")
        # Pinned: with a few dozen ids SQLite would rather scan the user by the time index.
        query = (f"SELECT {columns} FROM versions INDEXED BY versions_by_memory WHERE user_id = ? "
                 f"AND {where} AND memory_id IN ({{}}) ORDER BY memory_id, tx_from, valid_from, id")
        rows = _select_in(self._conn(), query, memory_ids, (user_id, *params))
        return [R.to_version(r) for chunk in rows for r in chunk]

    def _get_edges(self, user_id: str, node_ids: list[str] | None, types: list[EdgeType] | None,
                   known_at: datetime | None, all_versions: bool) -> list[Edge]:
        if node_ids is not None and types == [EdgeType.SUPERSEDES] and known_at is None and not all_versions:
            # Recall's read of every candidate's successors: through the kept reads (kept.py).
            def read(conn: sqlite3.Connection, missing: list[str]) -> list[tuple[str, tuple]]:
                rows = self._edge_rows(conn, user_id, missing, types, None, False)
                return [(end, r) for r in rows for end in {r[3], r[4]}]  # src_id, dst_id (EDGE_COLUMNS)

            found = self._kept_pairs(user_id, "supersedes", list(dict.fromkeys(node_ids)), read)
            rows = {r[0]: r for edges in found.values() for r in edges}
            return [R.to_edge(r) for r in sorted(rows.values(), key=lambda r: (r[7], r[0]))]
        return [R.to_edge(r) for r in self._edge_rows(self._conn(), user_id, node_ids, types, known_at,
                                                      all_versions)]

    @staticmethod
    def _edge_rows(conn: sqlite3.Connection, user_id: str, node_ids: list[str] | None,
                   types: list[EdgeType] | None, known_at: datetime | None,
                   all_versions: bool) -> list[tuple]:
        where, params = _tx_sql("", known_at, all_versions)
        sql = f"SELECT {R.EDGE_COLUMNS} FROM edges WHERE user_id = ? AND {where}"
        params = [user_id, *params]
        if types and len(types) == 1:  # "type = ?" seeks on the index's last column; "IN" walks
            sql += " AND type = ?"  # every edge of a node (a memory told 800 times has 800 FROM edges)
            params.append(types[0].value)
        elif types:
            sql += " AND type IN (SELECT value FROM json_each(?))"
            params.append(json.dumps([t.value for t in types]))
        if node_ids is not None:
            # Two index seeks joined by UNION: "src IN .. OR dst IN .." would scan the user's edges.
            ids = json.dumps(node_ids)
            by_src, by_dst = (sql.replace("FROM edges", f"FROM {t}") for t in (_BY_SRC, _BY_DST))
            sql = (f"{by_src} AND src_id IN (SELECT value FROM json_each(?)) "
                   f"UNION {by_dst} AND dst_id IN (SELECT value FROM json_each(?))")
            params = [*params, ids, *params, ids]
        return conn.execute(sql + " ORDER BY tx_from, id", params).fetchall()

    def _sources_of(self, user_id: str, memory_ids: list[str]) -> dict[str, list[str]]:
        def read(conn: sqlite3.Connection, missing: list[str]) -> list[tuple]:
            # One read, no edge or episode objects: a repeated message has hundreds of sources.
            return conn.execute(
                "SELECT e.src_id, p.observed_at, coalesce(p.source_id, p.id) FROM edges e INDEXED BY "
                "edges_from_src JOIN episodes p INDEXED BY episodes_said "
                "ON p.id = e.dst_id AND p.user_id = e.user_id "
                "WHERE e.user_id = ? AND e.type = 'FROM' AND e.tx_to = ? "
                "AND e.src_id IN (SELECT value FROM json_each(?))",
                (user_id, FAR, json.dumps(missing))).fetchall()

        return self._through_kept(user_id, memory_ids, KeptReads.missing, read, KeptReads.fill,
                                  KeptReads.sources)

    def _kept_at(self, user_id: str, generation: int) -> KeptReads:
        """The user's kept reads, started over when they belong to another generation (under
        ``self._lock``)."""
        kept = self._kept.get(user_id)
        if kept is None or kept.generation != generation:
            kept = self._kept[user_id] = KeptReads(generation)
        return kept

    def _kept_pairs(self, user_id: str, name: str, ids: list[str], read) -> dict[str, list]:
        """{id: what it leads to} from the kept reads' map ``name`` (kept.py), reading what it
        lacks as rows of (id, what it leads to) with ``read(conn, missing)``."""
        return self._through_kept(user_id, ids, lambda k, ids: k.unread(name, ids), read,
                                  lambda k, ids, rows: k.keep_pairs(name, ids, rows),
                                  lambda k, ids: k.pairs_of(name, ids))

    def _through_kept(self, user_id: str, wanted: list, missing, read, keep, answer):
        """``answer(kept, wanted)`` from the user's kept reads, reading (``read(conn, missing)``)
        and keeping (``keep(kept, missing, rows)``) what they lack, in one snapshot with the
        generation they belong to; a write in between leaves them unkept (read again next time)."""
        generation = self._generation(user_id)
        with self._lock:
            kept = self._kept_at(user_id, generation)
            lacking = missing(kept, wanted)
            if not lacking:
                return answer(kept, wanted)
        with self._tx(write=False) as conn:  # the rows and their generation from one snapshot
            read_at = self._generation(user_id)
            rows = read(conn, lacking)
        with self._lock:
            if kept.generation == read_at:
                keep(kept, lacking, rows)
                return answer(kept, wanted)
        fresh = KeptReads(read_at)
        keep(fresh, lacking, rows)
        return {**answer(kept, [w for w in wanted if w not in set(lacking)]), **answer(fresh, lacking)}

    def _find_by_content_hash(self, user_id: str, hashes: list[str]) -> list[MemoryVersion]:
        query = (f"SELECT {R.VERSION_COLUMNS} FROM versions INDEXED BY versions_by_hash "
                 "WHERE user_id = ? AND tx_to = ? AND content_hash IN ({}) ORDER BY tx_from, id")
        rows = _select_in(self._conn(), query, hashes, (user_id, FAR))
        return [R.to_version(r) for chunk in rows for r in chunk]

    def _export_graph(self, user_id: str) -> UserGraph:
        graph = UserGraph(user_id)
        with self._tx(write=False) as conn:
            for table, convert in (("episodes", R.to_episode), ("memories", R.to_memory),
                                   ("versions", R.to_version), ("entities", R.to_entity),
                                   ("edges", R.to_edge)):
                rows = conn.execute(f"SELECT {_TABLES[table][0]} FROM {table} "
                                    "WHERE user_id = ? ORDER BY id", (user_id,)).fetchall()
                setattr(graph, table, [convert(r) for r in rows])
        self._access.seen(graph.memories)
        return graph

    def _find_entities(self, user_id: str, keys: list[str]) -> list[Entity]:
        rows = self._conn().execute(
            f"SELECT DISTINCT {_ENTITY_COLUMNS_E} FROM entity_keys k "
            "JOIN entities e ON e.id = k.entity_id WHERE k.user_id = ? "
            "AND k.key IN (SELECT value FROM json_each(?)) ORDER BY e.created_at, e.id",
            (user_id, json.dumps(keys))).fetchall()
        return [R.to_entity(r) for r in rows]

    def _list_facts(self, flt: SearchFilter, predicates: list[str] | None, limit: int) -> list[SearchHit]:
        where, params = _filter_sql(flt)
        join = " JOIN memories m ON m.id = v.memory_id" if _needs_memory(flt) else ""
        order = "ORDER BY v.valid_from DESC, v.tx_from DESC, v.id LIMIT ?"
        conn = self._conn()
        if predicates is None:
            return self._hits(flt.user_id, [(rid, 0.0) for (rid,) in conn.execute(
                f"SELECT v.rid FROM versions v{join} WHERE {where} AND v.predicate IS NOT NULL {order}",
                (*params, limit)).fetchall()])
        # One predicate at a time walks its index entries latest first and stops at the limit
        # (an IN over several would sort all of them); the lists are merged in the same order.
        rows = []
        for predicate in dict.fromkeys(predicates):
            rows += conn.execute(
                "SELECT v.rid, v.valid_from, v.tx_from, v.id FROM versions v INDEXED BY "
                f"versions_by_predicate_time{join} WHERE {where} AND v.predicate = ? {order}",
                (*params, predicate, limit)).fetchall()
        rows.sort(key=lambda r: (-r[1], -r[2], r[3]))
        return self._hits(flt.user_id, [(r[0], 0.0) for r in rows[:limit]])

    def _memory_owner(self, memory_id: str) -> str:
        row = self._conn().execute("SELECT user_id FROM memories WHERE id = ?", (memory_id,)).fetchone()
        if row is None:
            raise NotFound(f"no memory {memory_id!r} in {self.url}")
        return row[0]

    def _get_run(self, user_id: str, run_id: str) -> ch.RunRecord:
        row = self._conn().execute("SELECT * FROM runs WHERE user_id = ? AND run_id = ?",
                                   (user_id, run_id)).fetchone()
        if row is None:
            raise NotFound(f"no Editor run {run_id!r} was published for user {user_id!r}")
        return _to_run(row)

    def _list_runs(self, user_id: str) -> list[ch.RunRecord]:
        rows = self._conn().execute("SELECT * FROM runs WHERE user_id = ? ORDER BY applied_at, "
                                    "run_id", (user_id,)).fetchall()
        return [_to_run(r) for r in rows]

    def _counts(self, user_id: str) -> dict[str, int]:
        conn = self._conn()
        return {t: conn.execute(f"SELECT count(*) FROM {t} WHERE user_id = ?", (user_id,)).fetchone()[0]
                for t in ("episodes", "memories", "versions", "entities", "edges", "runs")}

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


def _unusable(path: Path, exc: Exception) -> str:
    return (f"{path} is not a usable dualmem SQLite store ({exc}); "
            "point DUALMEM_STORE at another file or move this one away")


def _select_in(conn: sqlite3.Connection, query: str, ids: list[str],
               params: tuple = ()) -> Iterator[list[tuple]]:
    for start in range(0, len(ids), CHUNK):
        chunk = ids[start:start + CHUNK]
        yield conn.execute(query.format(", ".join("?" for _ in chunk)), (*params, *chunk)).fetchall()


def _tx_sql(alias: str, known_at: datetime | None, all_versions: bool) -> tuple[str, list]:
    if all_versions:
        return "1 = 1", []
    if known_at is None:
        return f"{alias}tx_to = ?", [FAR]
    known = to_micros(known_at)
    return f"{alias}tx_from <= ? AND ? < {alias}tx_to", [known, known]


def _needs_memory(flt: SearchFilter) -> bool:
    return flt.agent_id is not None or flt.session_id is not None or flt.kinds is not None


def _filter_sql(flt: SearchFilter) -> tuple[str, list]:
    where, params = _tx_sql("v.", flt.known_at, False)
    clauses, params = ["v.user_id = ?", where], [flt.user_id, *params]
    if flt.valid_at is not None:
        valid = to_micros(flt.valid_at)
        clauses.append("v.valid_from <= ? AND ? < v.valid_to")
        params += [valid, valid]
    for column, value in (("m.agent_id", flt.agent_id), ("m.session_id", flt.session_id)):
        if value is not None:
            clauses.append(f"{column} = ?")
            params.append(value)
    for column, values in (("m.kind", flt.kinds), ("v.status", flt.statuses)):
        if values is not None:
            clauses.append(f"{column} IN (SELECT value FROM json_each(?))")
            params.append(json.dumps(list(values)))
    return " AND ".join(clauses), params


def _to_run(row: tuple) -> ch.RunRecord:
    return ch.RunRecord(run_id=row[1], user_id=row[0], applied_at=from_micros(row[2]),
                        journal=json.loads(row[3]), skipped=json.loads(row[4]), meta=json.loads(row[5]))
