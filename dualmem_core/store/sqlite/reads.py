"""The embedded store's reads of rows and edges, through the kept reads (``kept_reads.py``)
where recall repeats them."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from datetime import datetime

from ...errors import NotFound
from .. import changes as ch
from ..models import (
    Edge,
    EdgeType,
    Entity,
    Episode,
    Memory,
    MemoryVersion,
    SearchFilter,
    SearchHit,
    UserGraph,
)
from . import rows as R
from .kept_reads import KeptReads
from .queries import (
    _BY_DST,
    _BY_SRC,
    _ENTITY_COLUMNS_E,
    _TABLES,
    _filter_sql,
    _needs_memory,
    _select_in,
    _to_run,
    _tx_sql,
)
from .state import Rows, SQLiteState, V
from .vectors import FAR


class Reads(SQLiteState):
    """Rows, edges, runs and counts (a mixin of ``SQLiteStore``)."""

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
            # Recall's read of every candidate's successors: through the kept reads (kept_reads.py).
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

    def _kept_pairs(self, user_id: str, name: str, ids: list[str],
                    read: Callable[[sqlite3.Connection, list[str]], list]) -> dict[str, list]:
        """{id: what it leads to} from the kept reads' map ``name`` (kept_reads.py), reading what it
        lacks as rows of (id, what it leads to) with ``read(conn, missing)``."""
        return self._through_kept(user_id, ids, lambda k, ids: k.unread(name, ids), read,
                                  lambda k, ids, rows: k.keep_pairs(name, ids, rows),
                                  lambda k, ids: k.pairs_of(name, ids))

    def _through_kept(self, user_id: str, wanted: list[str],
                      missing: Callable[[KeptReads, list[str]], list[str]],
                      read: Callable[[sqlite3.Connection, list[str]], Rows],
                      keep: Callable[[KeptReads, list[str], Rows], None],
                      answer: Callable[[KeptReads, list[str]], dict[str, V]]) -> dict[str, V]:
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
