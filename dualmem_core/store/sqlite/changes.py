"""The embedded store's Editor change sets: planned against the rows' state, applied in one transaction."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import asdict

from ...timeutil import from_micros, to_micros, utcnow
from .. import changes as ch
from ..forgetting import absent_ids, redact_run
from ..planning import (
    change_refs,
    plan_changes,
)
from .vectors import FAR


class Changes:
    """Guarded change sets (a mixin of ``SQLiteStore``)."""

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
