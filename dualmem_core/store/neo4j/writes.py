"""The Neo4j store's writes: a batch in one statement (``insert.py``), the vector cache kept
current, access counts."""

from __future__ import annotations

from collections import defaultdict
from datetime import datetime

import neo4j

from ...errors import ConflictError
from ...timeutil import utcnow
from ..models import (
    EdgeType,
    WriteBatch,
)
from ..planning import (
    Ref,
    TargetState,
    batch_external_refs,
    check_batch_refs,
)
from . import rows as R
from .forget import _delete_rows
from .insert import NO_REPLAN, insert_statement, vector_changes
from .queries import (
    _TABLES,
)
from .schema import NODE_LABELS
from .state import Neo4jState


class Writes(Neo4jState):
    """Write batches, access counts and imports (a mixin of ``Neo4jStore``)."""

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
        if record is None:  # only a clock-bumping write returns no row (``insert_statement``)
            raise ConflictError("a source id of this write was stored meanwhile; nothing was written")
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
