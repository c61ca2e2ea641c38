"""The embedded store's writes: a batch's rows, the user's generation, the caches a write keeps current."""

from __future__ import annotations

import json
import sqlite3
from collections import defaultdict
from datetime import datetime

import numpy as np

from ...timeutil import from_micros, to_micros, utcnow
from ..models import (
    WriteBatch,
    entity_keys,
)
from ..planning import (
    Ref,
    TargetState,
    batch_external_refs,
    batch_new_refs,
    check_batch_refs,
)
from . import rows as R
from .queries import (
    _STATE_QUERIES,
    _TABLES,
    _select_in,
)
from .state import SQLiteState

_MAX_PENDING_TEXTS = 20_000  # versions written since a user's last text search, kept to tokenize


class Writes(SQLiteState):
    """Write batches, access counts and imports (a mixin of ``SQLiteStore``)."""

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
