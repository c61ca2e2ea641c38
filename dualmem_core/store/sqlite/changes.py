"""The embedded store's steps of an Editor change set (``Store._apply_changes`` in ``base.py``
runs them in order): the run's record, the rows' state, the operations."""

from __future__ import annotations

import json
import sqlite3
from datetime import datetime

from ...timeutil import from_micros, to_micros
from .. import changes as ch
from ..planning import Ref, TargetState
from .state import SQLiteState
from .vectors import FAR


class Changes(SQLiteState):
    """Guarded change sets (a mixin of ``SQLiteStore``)."""

    def _run_applied_at(self, conn: sqlite3.Connection, changes: ch.ChangeSet) -> datetime | None:
        done = conn.execute("SELECT applied_at FROM runs WHERE user_id = ? AND run_id = ?",
                            (changes.user_id, changes.run_id)).fetchone()
        return None if done is None else from_micros(done[0])

    def _change_state(self, conn: sqlite3.Connection, refs: set[Ref]) -> dict[Ref, TargetState]:
        return self._read_state(conn, refs)

    def _apply_operations(self, conn: sqlite3.Connection, user_id: str, ops: list[ch.Operation],
                          state: dict[Ref, TargetState], now: datetime) -> None:
        for op in ops:
            self._apply_op(conn, op, to_micros(now))

    def _record_run(self, conn: sqlite3.Connection, changes: ch.ChangeSet, now: datetime,
                    record: tuple) -> None:
        conn.execute("INSERT INTO runs VALUES (?, ?, ?, ?, ?, ?)", (
            changes.user_id, changes.run_id, to_micros(now), *(json.dumps(r) for r in record)))
        self._bump(conn, changes.user_id)

    def _changed(self, user_id: str) -> None:
        self._drop_cache(user_id)

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
                assert at is not None  # the plan sets the store's clock (planning.py)
                conn.execute("UPDATE versions SET tx_to = ? WHERE id = ?", (to_micros(at), i))
            case ch.ReopenVersion(version_id=i):
                conn.execute("UPDATE versions SET tx_to = ? WHERE id = ?", (FAR, i))
            case ch.CloseEdge(edge_id=i, at=at):
                assert at is not None  # the plan sets the store's clock (planning.py)
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
