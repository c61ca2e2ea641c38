"""The embedded store's deletions: forgetting what a source said, and a whole user."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable

from ..forgetting import ForgetReceipt, neighbour_texts, redact_run
from . import lease as leases
from .queries import (
    _BY_DST,
    _BY_SRC,
)
from .state import SQLiteState


class Forget(SQLiteState):
    """Forget and delete a user (a mixin of ``SQLiteStore``)."""

    def _forget_targets(self, conn: sqlite3.Connection, user_id: str, source_ids: list[str],
                        episode_ids: list[str], memory_ids: list[str]) -> tuple[set[str], set[str]]:
        def ids_in(sql: str, *params: object) -> list[str]:
            return [r[0] for r in conn.execute(sql, params).fetchall()]

        episodes = set(ids_in(
            "SELECT id FROM episodes WHERE user_id = ? AND (source_id IN (SELECT value FROM "
            "json_each(?)) OR id IN (SELECT value FROM json_each(?)))",
            user_id, json.dumps(source_ids), json.dumps(episode_ids)))
        explicit = set(ids_in("SELECT id FROM memories WHERE user_id = ? AND id IN "
                              "(SELECT value FROM json_each(?))", user_id, json.dumps(memory_ids)))
        return episodes, explicit

    @staticmethod
    def _edge_pairs(conn: sqlite3.Connection,
                    user_id: str) -> Callable[[str, str, set[str]], list[tuple[str, str]]]:
        def pairs(edge_type: str, side: str, ids: set[str]) -> list[tuple[str, str]]:
            column = "src_id" if side == "src" else "dst_id"
            table = _BY_SRC if side == "src" else _BY_DST
            return conn.execute(
                f"SELECT src_id, dst_id FROM {table} WHERE user_id = ? AND type = ? AND {column} "
                "IN (SELECT value FROM json_each(?))", (user_id, edge_type, json.dumps(list(ids)))
            ).fetchall()

        return pairs

    def _delete_forgotten(self, conn: sqlite3.Connection, receipt: ForgetReceipt) -> None:
        user_id = receipt.user_id
        gone = json.dumps(sorted(receipt.deleted_ids))
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

    @staticmethod
    def _redact_runs(conn: sqlite3.Connection, user_id: str, deleted_ids: set[str]) -> None:
        for run_id, *record in conn.execute("SELECT run_id, journal, skipped, meta FROM runs "
                                            "WHERE user_id = ?", (user_id,)).fetchall():
            journal, skipped, meta = (json.loads(f) for f in record)
            kept = redact_run(journal, skipped, meta, deleted_ids)
            conn.execute("UPDATE runs SET journal = ?, skipped = ?, meta = ? WHERE user_id = ? "
                         "AND run_id = ?", (*(json.dumps(f) for f in kept), user_id, run_id))

    def _forget_finish(self, conn: sqlite3.Connection, user_id: str) -> None:
        # FTS5 only marks deleted rows until its segments merge; merge now so the
        # forgotten words leave the index, then checkpoint so the WAL drops old pages.
        conn.execute("INSERT INTO versions_fts (versions_fts) VALUES ('optimize')")
        self._bump(conn, user_id)

    def _forgotten(self, user_id: str) -> None:
        self._conn().execute("PRAGMA wal_checkpoint(TRUNCATE)")
        self._drop_cache(user_id)

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
