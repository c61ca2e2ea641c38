"""The Neo4j store: the production graph (a server, Aura or a cluster) behind the same contract.

A write is one statement in one transaction (what it points at checked, then every table's
rows, see ``insert``). Vector and text searches rank the user's own versions in the process
(``vectors.py``, ``text_index.py``) and filter the candidates on the server, widening while the
filters leave fewer than k; Lucene's fulltext index serves only query words the tokenizer makes
a phrase. There is no vector index: nothing would read it.

``Neo4jStore`` is its driver, schema and leases (here) and one mixin per concern: ``writes``,
``changes`` (the Editor's change sets), ``forget``, ``search`` and ``reads``, the same modules
as the embedded store's; ``queries`` holds the Cypher they share.
"""

from __future__ import annotations

import atexit
import logging
import os
import threading
import weakref
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime
from typing import Any, TypeVar
from urllib.parse import urlsplit

import neo4j
from neo4j import GraphDatabase
from neo4j import exceptions as neo_errors

from ...errors import ConflictError, DualmemError, StoreConfigError, StoreUnavailable
from ..base import DEFAULT_DIMENSION, Store, duplicates_warning
from ..lease import Lease
from . import lease as leases
from .changes import Changes
from .forget import Forget
from .reads import Reads
from .rows import one
from .schema import (
    FULLTEXT_INDEX,
    FULLTEXT_PROPERTIES,
    SOURCE_CONSTRAINT,
    SOURCE_CONSTRAINT_STATEMENT,
    SOURCE_DUPLICATES,
    SOURCE_INDEX,
    SOURCE_INDEX_STATEMENT,
    schema_statements,
)
from .search import Search
from .vectors import VectorCache, VectorWrites
from .writes import Writes

T = TypeVar("T")
log = logging.getLogger(__name__)
_BACKFILL_ROWS = 10_000  # versions per transaction when a store gains a property (migrations)


class Neo4jStore(VectorWrites, Writes, Changes, Forget, Search, Reads, Store):
    def __init__(self, url: str, *, dimension: int | None = None, user: str | None = None,
                 password: str | None = None, database: str | None = None,
                 connection_timeout: float = 5.0, retry_seconds: float | None = None):
        self.url = url
        # How long a transaction that hit a transient error (a leader switch, a deadlock, the
        # server gone) is retried, with the driver's backoff (1 s, doubling, jittered; each
        # retry logged as a warning by the "neo4j" logger), before StoreUnavailable.
        self.retry_seconds = float(retry_seconds if retry_seconds is not None
                                   else os.environ.get("DUALMEM_NEO4J_RETRY_SECONDS", 15.0))
        try:
            _ = urlsplit(url).port  # raises on a port that is not a number
        except ValueError as exc:
            raise StoreConfigError(f"bad Neo4j URL {url!r}: {exc}") from None
        user = user or os.environ.get("NEO4J_USER") or os.environ.get("NEO4J_USERNAME")
        password = password if password is not None else os.environ.get("NEO4J_PASSWORD")
        self.database = database or os.environ.get("NEO4J_DATABASE") or None
        auth = (user, password or "") if user else None
        try:
            self._driver = GraphDatabase.driver(url, auth=auth, connection_timeout=connection_timeout,
                                                max_transaction_retry_time=self.retry_seconds,
                                                notifications_min_severity="OFF")
        except (ValueError, neo_errors.ConfigurationError) as exc:
            raise StoreConfigError(f"bad Neo4j URL {url!r}: {exc}") from None
        try:
            self._driver.verify_connectivity()
        except neo_errors.AuthError as exc:
            self._driver.close()
            raise StoreConfigError(f"Neo4j at {url} refused the credentials: {exc.message}; "
                                   "set NEO4J_USER and NEO4J_PASSWORD") from None
        except Exception as exc:  # the driver raises several kinds for an unreachable server
            self._driver.close()
            raise StoreUnavailable(
                f"cannot reach Neo4j at {url} ({type(exc).__name__}: {exc}); start one with "
                "`dualmem neo4j start` or point DUALMEM_STORE/NEO4J_URI at a running server"
            ) from None
        self._pinned = threading.local()  # the read transaction of a ``reading()`` block
        self._accesses = _AccessRecorder(self)
        self.dimension = self._set_up_schema(dimension)
        self._vectors = VectorCache(self.dimension)  # the Writer's SIMILAR_TO neighbours

    # -- plumbing -------------------------------------------------------------------------

    def _run(self, work: Callable[..., T], *args: Any, write: bool = True) -> T:
        """Run ``work(tx, *args)`` in one managed transaction (retried on transient errors), or
        in the read transaction of the ``reading()`` block this thread is in."""
        pinned = None if write else getattr(self._pinned, "tx", None)
        with self._errors():
            if pinned is not None:
                return work(pinned, *args)
            with self._driver.session(database=self.database) as session:
                call = session.execute_write if write else session.execute_read
                return call(work, *args)
        raise AssertionError("unreachable")  # _errors() re-raises

    def _in_write(self, work: Callable[[neo4j.ManagedTransaction], T]) -> T:
        return self._run(work)

    @contextmanager
    def reading(self) -> Iterator[None]:
        """Reads in this block share one read transaction: one round trip each. Access counts
        recorded just before the block may not show in the memories read inside it. (Auto-commit
        reads on one session save BEGIN and ROLLBACK, but a recall at 100k measured slower at
        the median that way, alternating both in one process.)"""
        if getattr(self._pinned, "tx", None) is not None:  # nested: the outer block's
            yield
            return
        with self._errors():
            session = self._driver.session(database=self.database, default_access_mode=neo4j.READ_ACCESS)
            try:
                tx = session.begin_transaction()
            except BaseException:
                session.close()
                raise
        self._pinned.tx, self._pinned.sources = tx, {}
        try:
            yield
        finally:
            self._pinned.tx, self._pinned.sources = None, None
            try:
                tx.close()  # read only: nothing to commit
            finally:
                session.close()

    @contextmanager
    def _errors(self) -> Iterator[None]:
        """The driver's errors as the store's."""
        try:
            yield
        except DualmemError:
            raise
        except neo_errors.ConstraintError as exc:
            raise ConflictError(f"write refused by Neo4j, nothing was written: {exc.message}") from None
        except neo_errors.ResultFailedError as exc:
            # The driver's rollback of a failed transaction can raise this instead of the failure
            # itself (its cause), depending on timing: two writers racing for one source id.
            cause = exc.__cause__
            if isinstance(cause, neo_errors.ConstraintError):
                raise ConflictError(f"write refused by Neo4j, nothing was written: {cause.message}") from None
            raise DualmemError(f"Neo4j at {self.url} failed a query: {cause or exc}") from None
        except (neo_errors.ServiceUnavailable, neo_errors.SessionExpired, OSError) as exc:
            raise StoreUnavailable(f"Neo4j at {self.url} became unreachable ({exc}; retried for "
                                   f"{self.retry_seconds:g} s); nothing was written; "
                                   "retry once it is back") from None
        except neo_errors.Neo4jError as exc:
            raise DualmemError(f"Neo4j at {self.url} refused a query: {exc.code}: {exc.message}") from None

    def _set_up_schema(self, wanted: int | None) -> int:
        def meta(tx: neo4j.ManagedTransaction) -> int:
            record = one(tx.run("MERGE (m:DualmemMeta {key: 'store'}) ON CREATE SET m.dimension = $dim "
                                "RETURN m.dimension AS dim", dim=wanted or DEFAULT_DIMENSION))
            return int(record["dim"])

        with self._driver.session(database=self.database) as session:
            self._migrate_fulltext(session)
            for statement in schema_statements():
                try:
                    session.run(statement).consume()
                except neo_errors.ClientError as exc:
                    # Two processes setting up at once: the other one created it first.
                    if "EquivalentSchemaRuleAlreadyExists" not in (exc.code or ""):
                        raise StoreConfigError(f"Neo4j schema set-up failed: {exc.message}") from None
            self._unique_sources(session)
        dimension = self._run(meta)
        if wanted is not None and wanted != dimension:
            raise StoreConfigError(
                f"Neo4j at {self.url} holds {dimension}-dimensional vectors, not {wanted}; "
                "use the embedder it was created with, or another database")
        self._run(lambda tx: tx.run("CALL db.awaitIndexes(300)").consume(), write=False)
        return dimension

    def _unique_sources(self, session: neo4j.Session) -> None:
        """One source id names one message of a user: a uniqueness constraint holds it, also
        against concurrent writers. A store made before it that already repeats a source id
        cannot take it: it keeps the plain index and opens, with a warning naming the duplicates
        (forget all but one, and the next open adds the constraint)."""
        if session.run("SHOW CONSTRAINTS YIELD name WHERE name = $name RETURN name",
                       name=SOURCE_CONSTRAINT).single() is not None:
            return
        found = [(r["user"], r["source"], r["n"]) for r in session.run(SOURCE_DUPLICATES)]
        if not found:
            # The constraint brings its own index on the same properties, which Neo4j refuses
            # to create beside the plain one of older stores.
            session.run(f"DROP INDEX {SOURCE_INDEX} IF EXISTS").consume()
            try:
                session.run(SOURCE_CONSTRAINT_STATEMENT).consume()
                return
            except neo_errors.Neo4jError as exc:
                if "EquivalentSchemaRuleAlreadyExists" in (exc.code or ""):
                    return  # another process opening the store at once made it
                # A duplicate written since the look-up: as below.
                found = [(r["user"], r["source"], r["n"]) for r in session.run(SOURCE_DUPLICATES)]
                if not found:
                    raise StoreConfigError(f"Neo4j schema set-up failed: {exc.message}") from None
        log.warning(duplicates_warning(f"Neo4j at {self.url}", found))
        session.run(SOURCE_INDEX_STATEMENT).consume()

    @staticmethod
    def _migrate_fulltext(session: neo4j.Session) -> None:
        """A store made before search texts: its fulltext index reads ``text``. Every version gets
        ``search`` (its text: none had a search text), in batches of their own transactions, then
        the old index goes and the schema statements build the new one. Idempotent: processes
        opening the store at once may each run it."""
        found = session.run("SHOW INDEXES YIELD name, properties WHERE name = $name RETURN properties",
                            name=FULLTEXT_INDEX).single()
        if found is None or list(found["properties"]) == FULLTEXT_PROPERTIES:
            return
        try:
            session.run("MATCH (v:MemoryVersion) WHERE v.search IS NULL CALL (v) { "
                        "SET v.search = coalesce(v.search_text, v.text) } "
                        f"IN TRANSACTIONS OF {_BACKFILL_ROWS} ROWS").consume()
            session.run(f"DROP INDEX {FULLTEXT_INDEX} IF EXISTS").consume()
        except neo_errors.ClientError as exc:
            raise StoreConfigError(f"Neo4j fulltext index migration failed: {exc.message}") from None

    def close(self) -> None:
        try:
            self._accesses.close()
        finally:
            self._driver.close()

    def _acquire_lease(self, user_id: str, owner: str, seconds: float) -> Lease:
        return self._run(leases.acquire, self.url, user_id, owner, seconds)

    def _release_lease(self, user_id: str, owner: str) -> None:
        self._run(leases.release, user_id, owner)

    def list_users(self) -> list[str]:
        def work(tx: neo4j.ManagedTransaction) -> list[str]:
            users: set[str] = set()
            for label in ("Episode", "Memory", "Entity"):
                users |= {r["u"] for r in tx.run(
                    f"MATCH (n:{label}) WHERE n.user_id IS NOT NULL RETURN DISTINCT n.user_id AS u")}
            return sorted(users)

        return self._run(work, write=False)


class _AccessRecorder:
    """Recall's access counts, written in batches by one background thread.

    ``add`` returns at once; ``flush`` (called by reads that return memories, and on close)
    writes whatever is queued in the calling thread, so those reads see every access made
    before them. A failed background write is kept and retried by the next flush.
    """

    def __init__(self, store: Neo4jStore):
        self._store = weakref.ref(store)
        self._queue: list[tuple[str, list[str], datetime]] = []
        self._cv = threading.Condition()
        self._writing = threading.Lock()  # one write at a time, in queue order
        self._thread: threading.Thread | None = None
        self._closed = False
        atexit.register(self.close)

    def add(self, user_id: str, memory_ids: list[str], at: datetime) -> None:
        with self._cv:
            self._queue.append((user_id, memory_ids, at))
            if self._thread is None and not self._closed:
                self._thread = threading.Thread(target=self._loop, name="dualmem-access", daemon=True)
                self._thread.start()
            self._cv.notify()

    def flush(self) -> None:
        with self._writing:
            with self._cv:
                items, self._queue = self._queue, []
            if items:
                self._write(items)

    def close(self) -> None:
        with self._cv:
            self._closed = True
            self._cv.notify()
        try:
            self.flush()
        except DualmemError as exc:
            log.warning("access counts not recorded: %s", exc)

    def _loop(self) -> None:
        while True:
            with self._cv:
                while not self._queue and not self._closed:
                    self._cv.wait()
                if self._closed:
                    return
            try:
                self.flush()
            except DualmemError as exc:  # kept (re-queued): the next flush retries it
                log.warning("access counts not recorded yet: %s", exc)
                with self._cv:
                    self._cv.wait(1.0)

    def _write(self, items: list[tuple[str, list[str], datetime]]) -> None:
        rows: dict[tuple[str, str], dict] = {}
        for user_id, memory_ids, at in items:  # in call order: the last call's time stays
            for memory_id in memory_ids:
                row = rows.setdefault((user_id, memory_id), {"id": memory_id, "user": user_id, "n": 0})
                row["n"] += 1
                row["at"] = at
        store = self._store()
        if store is None:
            return
        try:
            store._write_accesses(list(rows.values()))
        except BaseException:
            with self._cv:
                self._queue[:0] = items
            raise
