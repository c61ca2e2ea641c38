"""SQL pieces the embedded store's parts share: table layouts, indexed edge lookups, filters."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Iterator
from datetime import datetime
from typing import Any

from ...timeutil import from_micros, to_micros
from .. import changes as ch
from ..models import (
    SearchFilter,
)
from . import rows as R
from .vectors import FAR

CHUNK = 500  # ids per IN (...) list, well under SQLite's variable limit
# Each table's columns and its row function (of that table's record: the record type differs).
_TABLES: dict[str, tuple[str, Callable[[Any, int], tuple]]] = {"episodes": (R.EPISODE_COLUMNS, R.episode_row),
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
