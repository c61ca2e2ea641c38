"""One Cypher statement that inserts a whole batch: a round trip per write, not one per table.

Each table is an ``UNWIND`` inside its own ``CALL`` subquery, in dependency order (a later one
sees what an earlier one created); every subquery returns how many rows it wrote, so a row that
found no endpoint makes the caller roll the transaction back.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from datetime import datetime
from typing import Any

from ...timeutil import FAR_FUTURE
from ..models import EDGE_ENDPOINTS, EdgeType
from . import rows as R
from .schema import NODE_LABELS
from .vectors import BUMP_CLOCK

# Every part of an insert is an index seek whatever the statistics say, so the plan never needs
# redoing; as a store grows, Neo4j would otherwise re-plan it (slowly) every time its label
# counts drift past the divergence threshold.
NO_REPLAN = "CYPHER replan=skip "
_NODE_PROPS: dict[str, Callable[[Any, datetime], dict]] = {
    "episodes": R.episode_props, "memories": R.memory_props, "entities": R.entity_props}
_TABLE_LABELS = {"episodes": "Episode", "memories": "Memory", "entities": "Entity"}
_REF_KINDS = ("entity", "episode", "memory")  # what a write batch can point at


Statement = tuple[str, dict, dict[str, tuple[int, str]]]


def insert_statement(tables: dict[str, list], user_id: str, now: datetime, bump_clock: bool,
                     refs: dict[str, list[str]] | None = None) -> Statement:
    """(query, parameters, {column: (rows expected, what)}) inserting ``tables``' records.

    With ``bump_clock`` the statement also bumps the user's clock (see ``vectors``), stamps the
    new versions with the new seq and returns ``seq`` and ``epoch``; otherwise ``$seq`` must
    be passed. With ``refs`` ({node kind: ids}) it first reads the owner of each of those
    records that exists, returned as ``state`` ([kind, id, user_id] each), for the caller to
    check (and roll back on) before it trusts the counts.

    The text depends only on ``bump_clock`` and ``refs is None`` (every table and edge type
    is always there, empty or not), so Neo4j plans it once: a cold plan of a statement this
    size took seconds, and varying which tables a batch fills made dozens of them. For the
    same reason every list travels inside one map parameter ``$b``: Neo4j keys its plan cache
    on the parameters' types too, and an empty list has another type than a list of maps.
    """
    parts = [NO_REPLAN]
    rows_of: dict[str, list] = {}
    expected: dict[str, tuple[int, str]] = {}
    carried = ""
    if refs is not None:
        reads = []
        for kind in sorted({*_REF_KINDS, *refs}):
            rows_of[f"ref_{kind}"] = refs.get(kind, [])
            reads.append(f"UNWIND $b.ref_{kind} AS id MATCH (n:{NODE_LABELS[kind]} {{id: id}}) "
                         f"RETURN ['{kind}', n.id, n.user_id] AS s")
        parts.append(f"CALL () {{ CALL () {{ {' UNION ALL '.join(reads)} }} RETURN collect(s) AS state }} ")
        carried = ", state"
    if bump_clock:
        # Under the user's clock (its write lock orders every write of the user), a source id
        # stored meanwhile by another writer is found by a read and the statement returns no
        # row: no write is refused by the unique key, whose failure mid-transaction the driver
        # did not always recover from (a raw ResultFailedError, or a connection that hung).
        rows_of["sources"] = [e.source_id for e in tables.get("episodes") or () if e.source_id is not None]
        parts.append(f"{BUMP_CLOCK} WITH c.seq AS seq, c.epoch AS epoch{carried} "
                     "CALL () { UNWIND $b.sources AS s "
                     "OPTIONAL MATCH (x:Episode {user_id: $user, source_id: s}) "
                     f"RETURN count(x) AS taken }} WITH seq, epoch{carried}, taken WHERE taken = 0 ")
    else:
        parts.append(f"WITH $seq AS seq{carried} ")
    for table in ("episodes", "entities", "memories"):
        label = _TABLE_LABELS[table]
        records = tables.get(table) or ()
        rows_of[table] = [R.with_time_pairs(_NODE_PROPS[table](r, now), label) for r in records]
        expected[table] = (len(rows_of[table]), table)
        parts.append(f"CALL () {{ UNWIND $b.{table} AS row CREATE (n:{label}) "
                     f"SET n = row{R.set_times('n', label, 'row')} RETURN count(n) AS {table} }} ")
    rows = [R.version_row(v, now) for v in tables.get("versions") or ()]
    rows_of["versions"] = [R.with_time_pairs(r["props"], "MemoryVersion") for r in rows]
    expected["versions"] = (len(rows), "versions (their memory is gone)")
    # ``ord``, the version's place in its write, orders the versions of one seq as they were
    # written (ids are random): the per-user caches break ties by it, the same in every process.
    parts.append("CALL (seq) { UNWIND range(0, size($b.versions) - 1) AS ord "
                 "WITH ord, $b.versions[ord] AS row MATCH (m:Memory {id: row.memory_id}) "
                 "CREATE (v:MemoryVersion)-[:VERSION_OF]->(m) SET v = row, v.seq = seq, v.ord = ord"
                 f"{R.set_times('v', 'MemoryVersion', 'row')} "
                 "RETURN count(v) AS versions } ")
    # float32 through the procedure: half the size of a list property
    rows_of["vectors"] = [{"id": r["props"]["id"], "embedding": r["embedding"]} for r in rows
                         if r["embedding"] is not None]
    expected["vectors"] = (len(rows_of["vectors"]), "vectors")
    parts.append("CALL () { UNWIND $b.vectors AS row MATCH (v:MemoryVersion {id: row.id}) "
                 "CALL db.create.setNodeVectorProperty(v, 'embedding', row.embedding) "
                 "RETURN count(v) AS vectors } ")
    by_type: dict[EdgeType, list[dict]] = defaultdict(list)
    for edge in tables.get("edges") or ():
        row = R.edge_row(edge, now)
        by_type[EdgeType(edge.type)].append(row | {"props": R.with_time_pairs(row["props"], "edge")})
    for edge_type in EdgeType:
        src, dst = (NODE_LABELS[k] for k in EDGE_ENDPOINTS[edge_type])
        name = f"edges_{edge_type.value.lower()}"
        rows_of[name] = by_type[edge_type]
        expected[name] = (len(rows_of[name]), f"{edge_type.value} edges (an endpoint is gone)")
        parts.append(f"CALL () {{ UNWIND $b.{name} AS row MATCH (a:{src} {{id: row.src}}) "
                     f"MATCH (b:{dst} {{id: row.dst}}) CREATE (a)-[r:{edge_type.value}]->(b) "
                     f"SET r = row.props{R.set_times('r', 'edge', 'row.props')} "
                     f"RETURN count(r) AS {name} }} ")
    columns = ["seq", *(["epoch"] if bump_clock else []), *(["state"] if refs is not None else []), *expected]
    parts.append("RETURN " + ", ".join(columns))
    return "".join(parts), {"user": user_id, "b": rows_of}, expected


def vector_changes(versions: list) -> list[tuple[str, str, bool, object]]:
    """What inserting ``versions`` does to a user's vector cache (see ``VectorCache.apply``)."""
    return [(v.id, v.memory_id, v.tx_to == FAR_FUTURE, v.embedding) for v in versions]
