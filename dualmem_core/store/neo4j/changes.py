"""The Neo4j store's Editor change sets: planned against the records' locked state,
applied in one transaction."""

from __future__ import annotations

import json
from collections import defaultdict
from datetime import datetime

import neo4j

from ...timeutil import FAR_FUTURE
from .. import changes as ch
from ..planning import (
    Ref,
    TargetState,
)
from . import rows as R
from .queries import (
    _run_key,
)
from .rows import one
from .state import Neo4jState
from .vectors import BUMP_CLOCK, NEW_EPOCH


class Changes(Neo4jState):
    """Guarded change sets (a mixin of ``Neo4jStore``)."""

    def _run_applied_at(self, tx: neo4j.ManagedTransaction, changes: ch.ChangeSet) -> datetime | None:
        key = _run_key(changes.user_id, changes.run_id)
        done = tx.run("MATCH (r:EditorRun {key: $key}) RETURN r.applied_at AS at", key=key).single()
        return None if done is None else R.native(done["at"])

    def _change_state(self, tx: neo4j.ManagedTransaction, refs: set[Ref]) -> dict[Ref, TargetState]:
        return self._read_state(tx, refs, lock=True)

    def _apply_operations(self, tx: neo4j.ManagedTransaction, user_id: str, ops: list[ch.Operation],
                          state: dict[Ref, TargetState], now: datetime) -> None:
        removes = any(isinstance(op, ch.RemoveCreated) and op.kind in ("version", "memory")
                      for op in ops)
        seq = one(tx.run(f"{BUMP_CLOCK} {NEW_EPOCH if removes else ''} RETURN c.seq AS seq",
                         user=user_id))["seq"]
        self._apply_plan(tx, user_id, ops, state, now, seq)

    def _record_run(self, tx: neo4j.ManagedTransaction, changes: ch.ChangeSet, now: datetime,
                    record: tuple) -> None:
        journal, skipped, meta = record
        tx.run("CREATE (r:EditorRun) SET r = $props", props={
            "key": _run_key(changes.user_id, changes.run_id), "run_id": changes.run_id,
            "user_id": changes.user_id, "applied_at": now, "journal": json.dumps(journal),
            "skipped": json.dumps(skipped), "meta": json.dumps(meta)}).consume()

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
