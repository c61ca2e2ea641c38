"""The Neo4j store: the production graph (a server, Aura or a cluster) behind the same contract.

A write is two statements in one transaction (the state of what it points at, then every
table's rows in one statement, see ``writes``). Searches go through the HNSW
vector index and the fulltext index; because Neo4j 5.26 cannot filter inside those indexes,
a search over-fetches and falls back to an exact ranking (the process's vector cache, or a
user-scoped scan) when the filters leave fewer than k hits, so a filter never thins the results.
"""

from __future__ import annotations

import atexit
import json
import logging
import os
import threading
import weakref
from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict
from datetime import datetime
from typing import Any, TypeVar
from urllib.parse import urlsplit

import neo4j
import numpy as np
from neo4j import GraphDatabase
from neo4j import exceptions as neo_errors

from ...errors import ConflictError, DualmemError, NotFound, StoreConfigError, StoreUnavailable
from ...timeutil import FAR_FUTURE, utcnow
from .. import changes as ch
from ..base import DEFAULT_DIMENSION, Store, rank_neighbours
from ..forgetting import ForgetReceipt, absent_ids, neighbour_texts, redact_run, select_forgotten
from ..lease import Lease
from ..models import (
    EDGE_ENDPOINTS,
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
)
from ..planning import (
    Ref,
    TargetState,
    batch_external_refs,
    change_refs,
    check_batch_refs,
    plan_changes,
)
from . import lease as leases
from . import rows as R
from .schema import FULLTEXT_INDEX, FULLTEXT_PROPERTIES, NODE_LABELS, VECTOR_INDEX, schema_statements
from .vectors import BUMP_CLOCK, NEW_EPOCH, VectorCache
from .writes import NO_REPLAN, insert_statement, vector_changes

T = TypeVar("T")
FAR = R.FAR_CYPHER
log = logging.getLogger(__name__)
# Search results leave embeddings out: the driver decodes 384 floats a hit in pure Python.
# Times come back as integer microseconds (``rows.projection``): decoding DATETIMEs is slow too.
_VERSION_NO_VECTOR = R.projection("v", "MemoryVersion", vector=False)
_MEMORY = R.projection("m", "Memory")
OVERFETCH = 10  # fulltext candidates per wanted hit before taking all of the user's matches
MIN_FETCH = 100  # ... and never fewer than this many
VECTOR_FETCH = 4  # HNSW candidates per wanted hit before an exact ranking
CACHE_FETCH = 16  # cached-vector candidates per wanted hit, first try (filters rejected many)
CACHE_WIDEN = 8  # ... multiplied by this while the filters leave fewer than k
_BACKFILL_ROWS = 10_000  # versions per transaction when a store gains a property (migrations)
# An entity is a hub when more than $max live memories mention it. Counting stops at $max + 1
# (LIMIT before count): a place a large user named 2,000 times costs 51 reads, not 2,000.
_NOT_A_HUB = (f"CALL (e) {{ MATCH (:Memory)-[r:MENTIONS]->(e) WHERE r.tx_to = {FAR} WITH r LIMIT $max + 1 "
              "RETURN count(r) AS mentions } WITH e, seeds WHERE mentions <= $max ")
_TABLES = ("episodes", "entities", "memories", "versions", "edges")


class Neo4jStore(Store):
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

    @contextmanager
    def reading(self) -> Iterator[None]:
        """Reads in this block share one read transaction: one round trip each. Access counts
        recorded just before the block may not show in the memories read inside it. (Auto-commit
        reads on one session save BEGIN and ROLLBACK, but a recall at 100k measured 2-5 ms
        slower at the median that way, alternating both in one process.)"""
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
        self._pinned.tx = tx
        try:
            yield
        finally:
            self._pinned.tx = None
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
        except (neo_errors.ServiceUnavailable, neo_errors.SessionExpired, OSError) as exc:
            raise StoreUnavailable(f"Neo4j at {self.url} became unreachable ({exc}; retried for "
                                   f"{self.retry_seconds:g} s); nothing was written; "
                                   "retry once it is back") from None
        except neo_errors.Neo4jError as exc:
            raise DualmemError(f"Neo4j at {self.url} refused a query: {exc.code}: {exc.message}") from None

    def _set_up_schema(self, wanted: int | None) -> int:
        def meta(tx: neo4j.ManagedTransaction) -> int:
            record = tx.run("MERGE (m:DualmemMeta {key: 'store'}) ON CREATE SET m.dimension = $dim "
                            "RETURN m.dimension AS dim", dim=wanted or DEFAULT_DIMENSION).single()
            return int(record["dim"])

        with self._driver.session(database=self.database) as session:
            self._migrate_fulltext(session)
            for statement in schema_statements(wanted or DEFAULT_DIMENSION):
                try:
                    session.run(statement).consume()
                except neo_errors.ClientError as exc:
                    # Two processes setting up at once: the other one created it first.
                    if "EquivalentSchemaRuleAlreadyExists" not in (exc.code or ""):
                        raise StoreConfigError(f"Neo4j schema set-up failed: {exc.message}") from None
        dimension = self._run(meta)
        index_dims = self._run(lambda tx: tx.run(
            "SHOW INDEXES YIELD name, options WHERE name = $name RETURN options", name=VECTOR_INDEX
        ).single()["options"]["indexConfig"]["vector.dimensions"], write=False)
        if wanted is not None and wanted != dimension or int(index_dims) != dimension:
            raise StoreConfigError(
                f"Neo4j at {self.url} holds {dimension}-dimensional vectors (index: {index_dims}), "
                f"not {wanted}; use the embedder it was created with, or another database")
        self._run(lambda tx: tx.run("CALL db.awaitIndexes(300)").consume(), write=False)
        return dimension

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

    # -- shared steps ---------------------------------------------------------------------

    def _read_state(self, tx: neo4j.ManagedTransaction, refs: set[Ref], lock: bool = False,
                    edge_types: dict[str, EdgeType] | None = None) -> dict[Ref, TargetState]:
        """Owner and guard fields of every referenced record that exists.

        ``edge_types`` names the type of edges whose type is known, so they are looked up in
        that type's index only instead of in all of them.
        """
        by_kind: dict[str, list[str]] = defaultdict(list)
        for kind, rid in refs:
            by_kind[kind].append(rid)
        edge_types = edge_types or {}
        # Writing a property takes the record's write lock for the rest of the transaction, so
        # nothing can change a target between this check and the change that depends on it.
        touch = "SET n.user_id = n.user_id " if lock else ""
        state: dict[Ref, TargetState] = {}
        nodes = [kind for kind in by_kind if kind != "edge"]
        if nodes:  # every node kind in one round trip
            result = tx.run(NO_REPLAN + " UNION ALL ".join(
                f"UNWIND ${kind} AS id MATCH (n:{NODE_LABELS[kind]} {{id: id}}) {touch}"
                f"RETURN '{kind}' AS kind, n.id AS id, n.user_id AS u, n.created_by AS c, "
                "n.tx_to AS t, n.review_state AS s" for kind in nodes), {k: by_kind[k] for k in nodes})
            for r in result:
                state[(r["kind"], r["id"])] = TargetState(r["u"], r["c"], R.native(r["t"]), r["s"])
        for kind, ids in by_kind.items():
            if kind == "edge":
                for edge_type in EdgeType:
                    typed = [i for i in ids if edge_types.get(i, edge_type) == edge_type]
                    if not typed:
                        continue
                    result = tx.run(
                        f"UNWIND $ids AS id MATCH ()-[n:{edge_type.value} {{id: id}}]->() {touch}"
                        "RETURN n.id AS id, n.user_id AS u, n.created_by AS c, n.tx_to AS t", ids=typed)
                    for r in result:
                        state[(kind, r["id"])] = TargetState(r["u"], r["c"], R.native(r["t"]),
                                                             edge_type=edge_type.value)
        return state

    def _insert(self, tx: neo4j.ManagedTransaction, user_id: str, tables: dict[str, list], now: datetime,
                seq: int | None = None, wanted: set[Ref] | None = None) -> tuple[str | None, int]:
        """Insert the records in one statement; without ``seq``, bump the user's clock for it.
        ``wanted`` records must exist for this user (checked in the same statement, the whole
        transaction rolled back if not). Returns the clock's (epoch, seq) after the write
        (epoch None when ``seq`` was given)."""
        refs: dict[str, list[str]] | None = None
        if wanted is not None:
            refs = defaultdict(list)
            for kind, rid in sorted(wanted):
                refs[kind].append(rid)
        query, params, expected = insert_statement(tables, user_id, now, bump_clock=seq is None, refs=refs)
        record = tx.run(query, params, seq=seq).single()
        if wanted is not None:
            state = {(kind, rid): TargetState(owner) for kind, rid, owner in record["state"]}
            check_batch_refs(user_id, state, wanted, set())
        for column, (count, what) in expected.items():
            if record[column] != count:
                raise ConflictError(f"only {record[column]} of {count} {what} could be written; "
                                    "nothing was written")
        return (record["epoch"] if seq is None else None), record["seq"]

    def _checked_insert(self, tx: neo4j.ManagedTransaction, user_id: str, batch: WriteBatch,
                        now: datetime) -> tuple[str | None, int]:
        # One round trip: the statement reads the owners of what the batch points at, then
        # inserts; a batch pointing at what is missing or another user's is rolled back whole.
        # Uniqueness constraints guard every new id (a clash raises ConflictError).
        return self._insert(tx, user_id, {t: getattr(batch, t) for t in _TABLES}, now,
                            wanted=batch_external_refs(batch))

    # -- writes ---------------------------------------------------------------------------

    def _write(self, user_id: str, batch: WriteBatch) -> None:
        epoch, seq = self._run(self._checked_insert, user_id, batch, utcnow())
        self._vectors.written(user_id, epoch, seq, vector_changes(batch.versions))

    def _apply_changes(self, changes: ch.ChangeSet, on_conflict: str) -> ch.ChangeReceipt:
        now = utcnow()
        key = _run_key(changes.user_id, changes.run_id)

        def work(tx: neo4j.ManagedTransaction) -> ch.ChangeReceipt:
            receipt = ch.ChangeReceipt(changes.run_id, changes.user_id, applied_at=now)
            done = tx.run("MATCH (r:EditorRun {key: $key}) RETURN r.applied_at AS at", key=key).single()
            if done is not None:
                receipt.already_applied, receipt.applied_at = True, R.native(done["at"])
                return receipt
            refs = change_refs(changes)
            state = self._read_state(tx, refs, lock=True)
            plan = plan_changes(changes, state, now, on_conflict)
            removes = any(isinstance(op, ch.RemoveCreated) and op.kind in ("version", "memory")
                          for op in plan.operations)
            seq = tx.run(f"{BUMP_CLOCK} {NEW_EPOCH if removes else ''} RETURN c.seq AS seq",
                         user=changes.user_id).single()["seq"]
            self._apply_plan(tx, changes.user_id, plan.operations, state, now, seq)
            journal, skipped, meta = redact_run(plan.journal, [asdict(s) for s in plan.skipped],
                                                changes.meta, absent_ids(refs, state, plan.journal))
            tx.run("CREATE (r:EditorRun) SET r = $props", props={
                "key": key, "run_id": changes.run_id, "user_id": changes.user_id, "applied_at": now,
                "journal": json.dumps(journal), "skipped": json.dumps(skipped),
                "meta": json.dumps(meta)}).consume()
            receipt.applied, receipt.skipped = len(plan.operations), plan.skipped
            return receipt

        return self._run(work)

    def _apply_plan(self, tx: neo4j.ManagedTransaction, user_id: str, ops: list[ch.Operation],
                    state: dict[Ref, TargetState], now: datetime, seq: int) -> None:
        adds: dict[str, list] = defaultdict(list)
        updates: dict[str, list[dict]] = defaultdict(list)
        for op in ops:
            match op:
                case ch.AddMemory(memory=m):
                    adds["memories"].append(m)
                case ch.AddVersion(version=v):
                    adds["versions"].append(v)
                case ch.AddEntity(entity=e):
                    adds["entities"].append(e)
                case ch.AddEdge(edge=e):
                    adds["edges"].append(e)
                case ch.CloseVersion(version_id=i, at=at):
                    updates["version_tx"].append({"id": i, "value": at})
                case ch.ReopenVersion(version_id=i):
                    updates["version_tx"].append({"id": i, "value": FAR_FUTURE})
                case ch.CloseEdge(edge_id=i, at=at):
                    updates[f"edge_tx:{state[('edge', i)].edge_type}"].append({"id": i, "value": at})
                case ch.ReopenEdge(edge_id=i):
                    updates[f"edge_tx:{state[('edge', i)].edge_type}"].append(
                        {"id": i, "value": FAR_FUTURE})
                case ch.SetReviewState(memory_id=i, state=s):
                    updates["review"].append({"id": i, "value": s})
                case ch.RemoveCreated(kind="edge", id=i):
                    updates[f"remove_edge:{state[('edge', i)].edge_type}"].append({"id": i})
                case ch.RemoveCreated(kind=kind, id=i):
                    updates[f"remove_{kind}"].append({"id": i})
        if adds:
            self._insert(tx, user_id, adds, now, seq)
        for name, rows in updates.items():
            tx.run(_update_query(name), rows=rows, seq=seq).consume()

    def _record_access(self, user_id: str, memory_ids: list[str], at: datetime) -> None:
        # A write transaction per recall cost about as much as the recall: accesses are queued
        # and written by a background thread, batched; reads of memories wait for the queue.
        self._accesses.add(user_id, memory_ids, at)

    def _write_accesses(self, rows: list[dict]) -> None:
        self._run(lambda tx: tx.run(
            "UNWIND $rows AS row MATCH (m:Memory {id: row.id}) WHERE m.user_id = row.user "
            "SET m.access_count = coalesce(m.access_count, 0) + row.n, m.last_accessed_at = row.at",
            rows=rows).consume())

    def _import_graph(self, user_id: str, batch: WriteBatch, replace: bool) -> None:
        def work(tx: neo4j.ManagedTransaction) -> None:
            if replace:
                _delete_rows(tx, user_id)
            self._checked_insert(tx, user_id, batch, utcnow())

        self._run(work)

    def _forget(self, user_id: str, source_ids: list[str], episode_ids: list[str],
                memory_ids: list[str]) -> ForgetReceipt:
        def work(tx: neo4j.ManagedTransaction) -> ForgetReceipt:
            episodes = {r["id"] for r in tx.run(
                "MATCH (e:Episode) WHERE e.user_id = $user AND e.source_id IN $sources RETURN e.id AS id "
                "UNION MATCH (e:Episode) USING INDEX e:Episode(id) WHERE e.id IN $ids AND e.user_id = $user "
                "RETURN e.id AS id",
                user=user_id, sources=source_ids, ids=episode_ids)}
            explicit = {r["id"] for r in tx.run(
                "MATCH (m:Memory) USING INDEX m:Memory(id) WHERE m.id IN $ids AND m.user_id = $user "
                "RETURN m.id AS id",
                ids=memory_ids, user=user_id)}

            def pairs(edge_type: str, side: str, ids: set[str]) -> list[tuple[str, str]]:
                src, dst = (NODE_LABELS[k] for k in EDGE_ENDPOINTS[EdgeType(edge_type)])
                end = "a" if side == "src" else "b"
                return [(r["a"], r["b"]) for r in tx.run(
                    f"MATCH (a:{src})-[r:{edge_type}]->(b:{dst}) WHERE {end}.id IN $ids "
                    "AND r.user_id = $user RETURN a.id AS a, b.id AS b", ids=list(ids), user=user_id)]

            memories, entities, kept = select_forgotten(episodes, explicit, pairs)
            receipt = ForgetReceipt(user_id, sorted(episodes), sorted(memories), sorted(entities),
                                    kept_memory_ids=sorted(kept), source_ids=sorted(set(source_ids)))
            said = [r["text"] for r in tx.run(
                "MATCH (e:Episode) WHERE e.id IN $ids AND e.user_id = $user RETURN e.text AS text",
                ids=receipt.episode_ids, user=user_id)]
            # Later messages were indexed with the forgotten ones as context (``search_text``):
            # they go back to being searched by their own text.
            tx.run("MATCH (v:MemoryVersion) WHERE v.user_id = $user AND v.search_text IS NOT NULL "
                   "AND any(t IN $texts WHERE v.search_text CONTAINS t) "
                   "SET v.search_text = null, v.search = v.text",
                   user=user_id, texts=neighbour_texts(said)).consume()
            for edge_type in EdgeType:
                src, dst = (NODE_LABELS[k] for k in EDGE_ENDPOINTS[edge_type])
                for end in ("a", "b"):
                    receipt.edges += tx.run(
                        f"MATCH (a:{src})-[r:{edge_type.value}]->(b:{dst}) WHERE {end}.id IN $ids "
                        "AND r.user_id = $user DELETE r RETURN count(r) AS c",
                        ids=receipt.memory_ids + receipt.entity_ids + receipt.episode_ids,
                        user=user_id).single()["c"]
            receipt.versions = tx.run(
                "MATCH (v:MemoryVersion) WHERE v.user_id = $user AND v.memory_id IN $ids "
                "DETACH DELETE v RETURN count(v) AS c", user=user_id, ids=receipt.memory_ids).single()["c"]
            if receipt.versions:  # vector caches reload the user
                tx.run(f"{BUMP_CLOCK} {NEW_EPOCH}", user=user_id).consume()
            for label, ids in (("Memory", receipt.memory_ids), ("Entity", receipt.entity_ids),
                               ("Episode", receipt.episode_ids)):
                tx.run(f"MATCH (n:{label}) WHERE n.id IN $ids AND n.user_id = $user DETACH DELETE n",
                       ids=ids, user=user_id).consume()
            for r in tx.run("MATCH (r:EditorRun) WHERE r.user_id = $user RETURN r.key AS key, r.journal "
                            "AS journal, r.skipped AS skipped, r.meta AS meta", user=user_id).data():
                journal, skipped, meta = redact_run(json.loads(r["journal"]), json.loads(r["skipped"]),
                                                    json.loads(r["meta"] or "{}"), receipt.deleted_ids)
                tx.run("MATCH (r:EditorRun {key: $key}) SET r.journal = $journal, r.skipped = $skipped, "
                       "r.meta = $meta", key=r["key"], journal=json.dumps(journal),
                       skipped=json.dumps(skipped), meta=json.dumps(meta)).consume()
            return receipt

        return self._run(work)

    def _delete_user(self, user_id: str) -> dict[str, int]:
        counts = self._run(_delete_rows, user_id)
        self._vectors.forget(user_id)
        return counts

    # -- search ---------------------------------------------------------------------------

    def _vector_search(self, unit_query: np.ndarray, flt: SearchFilter, k: int) -> list[SearchHit]:
        return self._hybrid_search(unit_query, [], flt, k, [])[0]

    def _hybrid_search(self, unit_query: np.ndarray, terms: list[str], flt: SearchFilter, k: int,
                       cues: list[str]) -> tuple[list[SearchHit], list[SearchHit], list[SearchHit]]:
        """The index searches in one statement (the cue list is the text search once more,
        of other words, over observations); each widens on its own (a rare second round trip)
        when the filters left it fewer than k hits.

        The HNSW index is asked for k * VECTOR_FETCH candidates: its walk grows with the fetch
        and was most of a recall (at 10k, min of 20: 9 ms for 50, 12 for 200, 22 for 400), and
        at 100k it beat an exact scan of the cached vectors (memory-bound, 15+ ms). When the
        filters leave fewer than k (or other users' vectors crowd the fetch), current versions
        are ranked exactly from this process's vector cache, as many as it takes; as of a past
        ``known_at`` (closed versions too), by a user-scoped scan on the server."""
        where, params = _filter_cypher(flt)
        params |= {"q": unit_query.tolist(), "k": k, "fetch": max(k * OVERFETCH, MIN_FETCH)}
        tail = f"WHERE {where['v']} MATCH (v)-[:VERSION_OF]->(m:Memory) WHERE {where['m']} "
        vector = (f"CALL db.index.vector.queryNodes('{VECTOR_INDEX}', $vfetch, $q) "
                  f"YIELD node AS v, score {tail}")
        text = cue = ""
        if terms:
            params["lucene"] = _lucene(flt.user_id, terms)
            text = (f"CALL db.index.fulltext.queryNodes('{FULLTEXT_INDEX}', $lucene, {{limit: $fetch}}) "
                    f"YIELD node AS v, score {tail}")
        if cues:
            params["cue_lucene"] = _lucene(flt.user_id, cues)
            cue = (f"CALL db.index.fulltext.queryNodes('{FULLTEXT_INDEX}', $cue_lucene, {{limit: $fetch}}) "
                   f"YIELD node AS v, score {tail}AND m.kind = 'observation' ")
        lists = self._searches([vector, text, cue], params | {"vfetch": k * VECTOR_FETCH})
        if len(lists[0]) < k and flt.known_at is None:
            lists[0] = self._cached_vector_search(unit_query, flt.user_id, k, tail, params)
        else:
            if len(lists[0]) < k:
                exact = ("MATCH (v:MemoryVersion) WHERE v.user_id = $user AND v.embedding IS NOT NULL "
                         f"WITH v, vector.similarity.cosine(v.embedding, $q) AS score {tail}")
                lists[0] = self._searches([exact], params)[0]
            for hit in lists[0]:  # Neo4j reports cosine as (1 + cos) / 2; give callers the cosine
                hit.score = 2.0 * hit.score - 1.0
        for i, head in ((1, text), (2, cue)):  # the tenant clause already narrowed Lucene to the user
            if head and len(lists[i]) < k:
                lists[i] = self._searches([head], params | {"fetch": 2**31 - 1})[0]
        return lists[0], lists[1], lists[2]

    def _cached_vector_search(self, unit_query: np.ndarray, user_id: str, k: int, tail: str,
                              params: dict) -> list[SearchHit]:
        """The top k current versions by exact cosine that pass the filters (``tail``): the
        cache's best candidates go in in order, k * CACHE_FETCH of them, widened CACHE_WIDEN-fold
        until k pass or every current version of the user was tried."""
        vector = ("UNWIND $candidates AS c MATCH (v:MemoryVersion {id: c[0]}) "
                  f"WITH v, c[1] AS score {tail}")
        entry = self._vectors.entry(user_id)
        wanted, caught_up = k * CACHE_FETCH, False
        while True:
            with entry.lock:
                if entry.seq < 0:  # never loaded: no point ranking an empty cache
                    self._run(self._vectors.refresh, user_id, entry, write=False)
                candidates, every = entry.ranked_versions(unit_query, wanted)
                ranked_at = [entry.seq, entry.epoch]
            # The user's clock comes back with the hits: when the cache was behind (another
            # process wrote), it catches up and the search runs again, once: a write landing
            # after that is the race any read-then-search has.
            lists, clock = self._searches([vector], params | {"candidates": [list(c) for c in candidates]},
                                          clock=True)
            if [clock[0] or 0, clock[1]] != ranked_at and not caught_up:
                with entry.lock:
                    self._run(self._vectors.refresh, user_id, entry, write=False)
                caught_up = True
                continue
            if len(lists[0]) >= k or every:
                return lists[0]
            wanted *= CACHE_WIDEN

    def _nearest_memories(self, user_id: str, unit: np.ndarray, k: int,
                          min_score: float) -> list[list[tuple[str, float]]]:
        # Exact, over this process's copy of the user's vectors, brought up to date first.
        entry = self._vectors.entry(user_id)
        with entry.lock:
            self._run(self._vectors.refresh, user_id, entry, write=False)
            return entry.nearest(unit, k, min_score)

    def _text_search(self, terms: list[str], flt: SearchFilter, k: int) -> list[SearchHit]:
        where, params = _filter_cypher(flt)
        params |= {"lucene": _lucene(flt.user_id, terms), "k": k}
        query = (f"CALL db.index.fulltext.queryNodes('{FULLTEXT_INDEX}', $lucene, {{limit: $fetch}}) "
                 f"YIELD node AS v, score WHERE {where['v']} MATCH (v)-[:VERSION_OF]->(m:Memory) "
                 f"WHERE {where['m']} ")
        hits = self._searches([query], params | {"fetch": max(k * OVERFETCH, MIN_FETCH)})[0]
        if len(hits) < k:  # the tenant clause already narrowed Lucene to this user: take all
            hits = self._searches([query], params | {"fetch": 2**31 - 1})[0]
        return hits

    def _searches(self, heads: list[str], params: dict, clock: bool = False) -> Any:
        """Run searches (each yielding ``v``, ``m``, ``score``) in one statement: the top $k of
        each, best first. An empty head gives an empty list. With ``clock``, also the user's
        clock as [seq, epoch] (see ``vectors``), read in the same statement."""
        parts = [f"CALL () {{ {head} WITH v, m, score ORDER BY score DESC, v.id LIMIT $k "
                 f"RETURN collect({{v: {_VERSION_NO_VECTOR}, m: {_MEMORY}, score: score}}) AS hits{i} }} "
                 for i, head in enumerate(heads) if head]
        columns = [f"hits{i}" for i, h in enumerate(heads) if h]
        if clock:
            parts.append("CALL () { OPTIONAL MATCH (c:UserClock {user_id: $user}) "
                         "RETURN [c.seq, c.epoch] AS clock } ")
            columns.append("clock")
        query = "".join(parts) + "RETURN " + ", ".join(columns)

        def work(tx: neo4j.ManagedTransaction) -> Any:
            record = tx.run(query, params).single()
            lists = [[SearchHit(R.to_memory(h["m"]), R.to_version(h["v"]), float(h["score"]))
                      for h in record[f"hits{i}"]] if head else [] for i, head in enumerate(heads)]
            return (lists, record["clock"]) if clock else lists

        return self._run(work, write=False)

    def _search(self, query: str, params: dict) -> list[SearchHit]:
        def work(tx: neo4j.ManagedTransaction) -> list[SearchHit]:
            return [SearchHit(R.to_memory(r["m"]), R.to_version(r["v"]), float(r["score"]))
                    for r in tx.run(query, params)]

        return self._run(work, write=False)

    def _entity_neighbours(self, user_id: str, memory_ids: list[str], max_entity_degree: int,
                           limit: int) -> list[Neighbour]:
        def work(tx: neo4j.ManagedTransaction) -> tuple[list, dict]:
            seeds_of: dict[str, tuple[str, ...]] = {}
            pairs = []
            for r in tx.run(
                "MATCH (s:Memory)-[r1:MENTIONS]->(e:Entity) WHERE s.id IN $seeds AND s.user_id = $user "
                f"AND r1.tx_to = {FAR} WITH e, collect(DISTINCT s.id) AS seeds "
                f"{_NOT_A_HUB}"
                f"OPTIONAL MATCH (n:Memory)-[r2:MENTIONS]->(e) WHERE r2.tx_to = {FAR} "
                "AND NOT n.id IN $seeds AND n.user_id = $user "
                "RETURN e.id AS entity, seeds, collect(n.id) AS members",
                seeds=memory_ids, user=user_id, max=max_entity_degree):
                seeds_of[r["entity"]] = tuple(sorted(r["seeds"]))
                pairs += [(m, r["entity"]) for m in r["members"]]
            return pairs, seeds_of

        pairs, seeds_of = self._run(work, write=False)
        return rank_neighbours(pairs, seeds_of, limit)

    def _expand(self, user_id: str, seeds: list[str], known: set[str], known_at: datetime | None,
                max_entity_degree: int, limit: int) -> tuple[list[Neighbour], list[Memory],
                                                             list[MemoryVersion]]:
        # One statement: the neighbours ranked as ``rank_neighbours`` ranks them, then the
        # memory and versions of each one the caller does not hold yet.
        self._flush_accesses()
        tx_where, params = _tx_cypher("v", known_at, False)
        query = (
            "MATCH (s:Memory)-[r1:MENTIONS]->(e:Entity) WHERE s.id IN $seeds AND s.user_id = $user "
            f"AND r1.tx_to = {FAR} WITH e, collect(DISTINCT s.id) AS seeds "
            f"{_NOT_A_HUB}"
            f"MATCH (n:Memory)-[r2:MENTIONS]->(e) WHERE r2.tx_to = {FAR} AND NOT n.id IN $seeds "
            "AND n.user_id = $user "
            "WITH n, collect(DISTINCT e.id) AS via, collect(seeds) AS seed_lists "
            "ORDER BY size(via) DESC, n.id LIMIT $limit "
            "CALL (n) { MATCH (v:MemoryVersion)-[:VERSION_OF]->(n) WHERE NOT n.id IN $held "
            f"AND v.user_id = $user AND {tx_where} RETURN collect({_VERSION_NO_VECTOR}) AS versions }} "
            f"RETURN n.id AS id, via, seed_lists, versions, "
            f"CASE WHEN n.id IN $held THEN null ELSE {R.projection('n', 'Memory')} END AS m")

        def work(tx: neo4j.ManagedTransaction) -> list:
            return list(tx.run(query, params, seeds=seeds, user=user_id, max=max_entity_degree,
                               limit=limit, held=sorted(known)))

        neighbours, memories, versions = [], [], []
        for r in self._run(work, write=False):
            neighbours.append(Neighbour(r["id"], tuple(sorted(r["via"])),
                                        tuple(sorted({s for seeds_ in r["seed_lists"] for s in seeds_}))))
            if r["m"] is not None:
                memories.append(R.to_memory(r["m"]))
                versions += [R.to_version(v) for v in r["versions"]]
        neighbours.sort(key=lambda n: (-len(n.via_entities), n.memory_id))
        versions.sort(key=lambda v: (v.memory_id, v.tx_from, v.valid_from, v.id))
        return neighbours, memories, versions

    # -- reads ----------------------------------------------------------------------------

    def _read(self, query: str, convert: Callable[[dict], T], **params: Any) -> list[T]:
        return self._run(lambda tx: [convert(r["n"]) for r in tx.run(query, params)], write=False)

    def _flush_accesses(self) -> None:
        """Write queued access counts before a read returning memories, except inside a
        ``reading()`` block: recall reads memories without their counts, and waiting there
        for the previous recall's count write would cost every recall a write transaction."""
        if getattr(self._pinned, "tx", None) is None:
            self._accesses.flush()

    def _get_memories(self, user_id: str, ids: list[str]) -> list[Memory]:
        self._flush_accesses()
        # Hinted here and below: in a store dominated by one user the planner would seek that
        # user's index and filter every one of their records (10k db hits at 10k memories).
        return self._read("MATCH (m:Memory) USING INDEX m:Memory(id) WHERE m.id IN $ids "
                          f"AND m.user_id = $user RETURN {_MEMORY} AS n", R.to_memory, ids=ids, user=user_id)

    def _get_episodes(self, user_id: str, ids: list[str]) -> list[Episode]:
        return self._read("MATCH (e:Episode) USING INDEX e:Episode(id) WHERE e.id IN $ids "
                          f"AND e.user_id = $user RETURN {R.projection('e', 'Episode')} AS n",
                          R.to_episode, ids=ids, user=user_id)

    def _sources_of(self, user_id: str, memory_ids: list[str]) -> dict[str, list[str]]:
        # One round trip instead of the edges, then their episodes; and a row per memory, its
        # sources collected in order: a fact told hundreds of times came back as hundreds of
        # records, each decoded in Python.
        def work(tx: neo4j.ManagedTransaction) -> dict[str, list[str]]:
            return {r["m"]: r["sources"] for r in tx.run(
                "MATCH (m:Memory)-[r:FROM]->(e:Episode) WHERE m.id IN $ids AND r.user_id = $user "
                f"AND r.tx_to = {FAR} AND e.user_id = $user "
                "WITH m.id AS m, CASE WHEN e.source_id IS NULL OR e.source_id = '' THEN e.id "
                "ELSE e.source_id END AS source, e.observed_at AS at "
                "ORDER BY at, source RETURN m, collect(source) AS sources", ids=memory_ids, user=user_id)}

        return self._run(work, write=False)

    def _episodes_by_source(self, user_id: str, source_ids: list[str]) -> list[Episode]:
        return self._read("MATCH (e:Episode) WHERE e.user_id = $user AND e.source_id IN $sources "
                          f"RETURN {R.projection('e', 'Episode')} AS n ORDER BY e.observed_at, e.id",
                          R.to_episode,
                          user=user_id, sources=source_ids)

    def _get_versions(self, user_id: str, memory_ids: list[str], known_at: datetime | None,
                      all_versions: bool, embeddings: bool) -> list[MemoryVersion]:
        tx_where, params = _tx_cypher("v", known_at, all_versions)
        props = R.projection("v", "MemoryVersion", vector=embeddings)
        return self._read(
            "MATCH (v:MemoryVersion) USING INDEX v:MemoryVersion(user_id, memory_id) "
            f"WHERE v.user_id = $user AND v.memory_id IN $ids AND {tx_where} "
            f"RETURN {props} AS n ORDER BY v.memory_id, v.tx_from, v.valid_from, v.id",
            R.to_version, user=user_id, ids=memory_ids, **params)

    def _get_edges(self, user_id: str, node_ids: list[str] | None, types: list[EdgeType] | None,
                   known_at: datetime | None, all_versions: bool) -> list[Edge]:
        tx_where, params = _tx_cypher("r", known_at, all_versions)
        edges: dict[str, Edge] = {}

        branches = []
        for edge_type in types or list(EdgeType):
            src, dst = (NODE_LABELS[k] for k in EDGE_ENDPOINTS[edge_type])
            pattern = f"(a:{src})-[r:{edge_type.value}]->(b:{dst})"
            # Anchor on the source's user index: with many users the planner would
            # otherwise scan a whole label for the relationship's user_id.
            ends = ([f"MATCH (a:{src}) WHERE a.user_id = $user MATCH {pattern} WHERE r.user_id = $user"]
                    if node_ids is None else
                    [f"MATCH {pattern} WHERE a.id IN $ids AND r.user_id = $user",
                     f"MATCH {pattern} WHERE b.id IN $ids AND r.user_id = $user"])
            branches += [f"{match} AND {tx_where} RETURN '{edge_type.value}' AS type, "
                         f"{R.projection('r', 'edge')} AS p, a.id AS a, b.id AS b" for match in ends]

        def work(tx: neo4j.ManagedTransaction) -> None:  # one round trip for every type and end
            for r in tx.run(" UNION ALL ".join(branches), user=user_id, ids=node_ids, **params):
                edges[r["p"]["id"]] = R.to_edge(r["p"], r["type"], r["a"], r["b"])

        self._run(work, write=False)
        return sorted(edges.values(), key=lambda e: (e.tx_from, e.id))

    def _find_by_content_hash(self, user_id: str, hashes: list[str]) -> list[MemoryVersion]:
        return self._read(
            "MATCH (v:MemoryVersion) USING INDEX v:MemoryVersion(user_id, content_hash) "
            "WHERE v.user_id = $user AND v.content_hash IN $hashes "
            f"AND v.tx_to = {FAR} RETURN {R.projection('v', 'MemoryVersion')} AS n "
            "ORDER BY v.tx_from, v.id",
            R.to_version, user=user_id, hashes=hashes)

    def _export_graph(self, user_id: str) -> UserGraph:
        self._accesses.flush()

        def work(tx: neo4j.ManagedTransaction) -> UserGraph:
            graph = UserGraph(user_id)
            for table, label, convert in (("episodes", "Episode", R.to_episode),
                                          ("memories", "Memory", R.to_memory),
                                          ("versions", "MemoryVersion", R.to_version),
                                          ("entities", "Entity", R.to_entity)):
                setattr(graph, table, [convert(r["n"]) for r in tx.run(
                    f"MATCH (n:{label}) WHERE n.user_id = $user RETURN {R.projection('n', label)} AS n "
                    "ORDER BY n.id", user=user_id)])
            return graph

        graph = self._run(work, write=False)
        graph.edges = sorted(self._get_edges(user_id, None, None, None, True), key=lambda e: e.id)
        return graph

    def _find_entities(self, user_id: str, keys: list[str]) -> list[Entity]:
        return self._read("MATCH (e:Entity) WHERE e.user_id = $user AND any(k IN e.keys WHERE k IN $keys) "
                          f"RETURN {R.projection('e', 'Entity')} AS n ORDER BY e.created_at, e.id",
                          R.to_entity,
                          user=user_id, keys=keys)

    def _list_facts(self, flt: SearchFilter, predicates: list[str] | None, limit: int) -> list[SearchHit]:
        self._flush_accesses()
        where, params = _filter_cypher(flt)
        order = "ORDER BY v.valid_from DESC, v.tx_from DESC, v.id LIMIT $limit"
        if predicates is None:
            return self._search(
                f"MATCH (v:MemoryVersion) WHERE {where['v']} AND v.predicate IS NOT NULL "
                f"MATCH (v)-[:VERSION_OF]->(m:Memory) WHERE {where['m']} "
                f"RETURN {_VERSION_NO_VECTOR} AS v, {_MEMORY} AS m, 0.0 AS score {order}",
                params | {"limit": limit})
        # One predicate at a time, read from the (user, predicate, valid_from) index latest first,
        # so each stops at the limit instead of sorting every such fact; then merged. The
        # ``WITH v ORDER BY`` before the expand is what lets the planner read the index in
        # order (a PartialTop over the first rows): without it, it read every fact of the
        # predicate and sorted them (513 rows for 10 at 10k memories, 18 ms mean at 100k).
        return self._search(
            "UNWIND $predicates AS p CALL (p) { "
            "MATCH (v:MemoryVersion) USING INDEX v:MemoryVersion(user_id, predicate, valid_from) "
            f"WHERE {where['v']} AND v.predicate = p AND v.valid_from IS NOT NULL "
            "WITH v ORDER BY v.valid_from DESC "
            f"MATCH (v)-[:VERSION_OF]->(m:Memory) WHERE {where['m']} "
            f"RETURN v, m {order} }} "
            f"RETURN {_VERSION_NO_VECTOR} AS v, {_MEMORY} AS m, 0.0 AS score {order}",
            params | {"predicates": list(dict.fromkeys(predicates)), "limit": limit})

    def _memory_owner(self, memory_id: str) -> str:
        owners = self._run(lambda tx: [r["u"] for r in tx.run(
            "MATCH (m:Memory {id: $id}) RETURN m.user_id AS u", id=memory_id)], write=False)
        if not owners:
            raise NotFound(f"no memory {memory_id!r} in {self.url}")
        return owners[0]

    def _get_run(self, user_id: str, run_id: str) -> ch.RunRecord:
        runs = self._read("MATCH (r:EditorRun {key: $key}) RETURN properties(r) AS n", _to_run,
                          key=_run_key(user_id, run_id))
        if not runs:
            raise NotFound(f"no Editor run {run_id!r} was published for user {user_id!r}")
        return runs[0]

    def _list_runs(self, user_id: str) -> list[ch.RunRecord]:
        return self._read("MATCH (r:EditorRun) WHERE r.user_id = $user RETURN properties(r) AS n "
                          "ORDER BY r.applied_at, r.run_id", _to_run, user=user_id)

    def _counts(self, user_id: str) -> dict[str, int]:
        def work(tx: neo4j.ManagedTransaction) -> dict[str, int]:
            counts = {}
            for name, label in (("episodes", "Episode"), ("memories", "Memory"),
                                ("versions", "MemoryVersion"), ("entities", "Entity"),
                                ("runs", "EditorRun")):
                counts[name] = tx.run(f"MATCH (n:{label}) WHERE n.user_id = $user RETURN count(n) AS c",
                                      user=user_id).single()["c"]
            counts["edges"] = sum(
                tx.run(f"MATCH ()-[r:{t.value}]->() WHERE r.user_id = $user RETURN count(r) AS c",
                       user=user_id).single()["c"] for t in EdgeType)
            return counts

        return self._run(work, write=False)

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


def _update_query(name: str) -> str:
    kind, _, edge_type = name.partition(":")
    match kind:
        case "version_tx":
            return ("UNWIND $rows AS row MATCH (v:MemoryVersion {id: row.id}) "
                    "SET v.tx_to = row.value, v.seq = $seq")  # the vector caches see it
        case "edge_tx":
            return f"UNWIND $rows AS row MATCH ()-[r:{edge_type} {{id: row.id}}]->() SET r.tx_to = row.value"
        case "review":
            return "UNWIND $rows AS row MATCH (m:Memory {id: row.id}) SET m.review_state = row.value"
        case "remove_edge":
            return f"UNWIND $rows AS row MATCH ()-[r:{edge_type} {{id: row.id}}]->() DELETE r"
        case "remove_version":
            return "UNWIND $rows AS row MATCH (v:MemoryVersion {id: row.id}) DETACH DELETE v"
        case "remove_memory":
            return ("UNWIND $rows AS row MATCH (m:Memory {id: row.id}) "
                    "OPTIONAL MATCH (v:MemoryVersion)-[:VERSION_OF]->(m) DETACH DELETE v, m")
        case "remove_entity":
            return "UNWIND $rows AS row MATCH (e:Entity {id: row.id}) DETACH DELETE e"
    raise ValueError(name)


def _delete_rows(tx: neo4j.ManagedTransaction, user_id: str) -> dict[str, int]:
    counts = {"edges": 0}
    for edge_type in EdgeType:
        counts["edges"] += tx.run(f"MATCH ()-[r:{edge_type.value}]->() WHERE r.user_id = $user "
                                  "DELETE r RETURN count(r) AS c", user=user_id).single()["c"]
    for name, label in (("versions", "MemoryVersion"), ("memories", "Memory"),
                        ("entities", "Entity"), ("episodes", "Episode"), ("runs", "EditorRun")):
        counts[name] = tx.run(f"MATCH (n:{label}) WHERE n.user_id = $user DETACH DELETE n "
                              "RETURN count(n) AS c", user=user_id).single()["c"]
    leases.clear(tx, user_id)
    # A clock made again later gets a new epoch: other processes' caches reload the user.
    tx.run("MATCH (c:UserClock {user_id: $user}) DELETE c", user=user_id).consume()
    return counts


def _tx_cypher(alias: str, known_at: datetime | None, all_versions: bool) -> tuple[str, dict]:
    if all_versions:
        return "true", {}
    if known_at is None:
        return f"{alias}.tx_to = {FAR}", {}
    known = R.time_param("known")  # times go as integer pairs: a DATETIME parameter packs slowly
    return f"{alias}.tx_from <= {known} AND {known} < {alias}.tx_to", {"known": R.time_pair(known_at)}


def _lucene(user_id: str, terms: list[str]) -> str:
    """A full-text query for any of ``terms`` (each quoted: never Lucene syntax) in the user's
    versions' search texts (``search``: the search text, else the text). The tenant clause
    scores nothing (boost 0): it would add one constant to every hit's score, which recall
    divides by the best, so a weak match would look stronger than on SQLite (FTS5 gives the
    tenant column no weight)."""
    words = " OR ".join(f'"{t}"' for t in terms)
    return f'user_key:"{R.user_key(user_id)}"^0 AND search:({words})'


def _filter_cypher(flt: SearchFilter) -> tuple[dict[str, str], dict]:
    tx_where, params = _tx_cypher("v", flt.known_at, False)
    v, m = ["v.user_id = $user", tx_where], ["true"]
    params["user"] = flt.user_id
    if flt.valid_at is not None:
        valid = R.time_param("valid")
        v.append(f"v.valid_from <= {valid} AND {valid} < v.valid_to")
        params["valid"] = R.time_pair(flt.valid_at)
    if flt.statuses is not None:
        v.append("v.status IN $statuses")
        params["statuses"] = list(flt.statuses)
    if flt.kinds is not None:
        m.append("m.kind IN $kinds")
        params["kinds"] = list(flt.kinds)
    for field, value in (("agent_id", flt.agent_id), ("session_id", flt.session_id)):
        if value is not None:
            m.append(f"m.{field} = ${field}")
            params[field] = value
    return {"v": " AND ".join(v), "m": " AND ".join(m)}, params


def _run_key(user_id: str, run_id: str) -> str:
    return json.dumps([user_id, run_id])


def _to_run(p: dict) -> ch.RunRecord:
    return ch.RunRecord(run_id=p["run_id"], user_id=p["user_id"], applied_at=R.native(p["applied_at"]),
                        journal=json.loads(p["journal"]), skipped=json.loads(p["skipped"]),
                        meta=json.loads(p.get("meta") or "{}"))


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
