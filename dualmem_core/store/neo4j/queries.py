"""Cypher pieces the Neo4j store's parts share: projections, the hub test, filters, run keys."""

from __future__ import annotations

import json
from datetime import datetime

from .. import changes as ch
from ..models import (
    SearchFilter,
)
from . import rows as R

FAR = R.FAR_CYPHER
# Search results leave embeddings out: the driver decodes 384 floats a hit in pure Python.
# Times come back as integer microseconds (``rows.projection``): decoding DATETIMEs is slow too.
_VERSION_NO_VECTOR = R.projection("v", "MemoryVersion", vector=False)
_MEMORY = R.projection("m", "Memory")
# An entity is a hub when more than $max live memories mention it. Counting stops at $max + 1
# (LIMIT before count): a place a large user named 2,000 times costs 51 reads, not 2,000.
_NOT_A_HUB = (f"CALL (e) {{ MATCH (:Memory)-[r:MENTIONS]->(e) WHERE r.tx_to = {FAR} WITH r LIMIT $max + 1 "
              "RETURN count(r) AS mentions } WITH e, seeds WHERE mentions <= $max ")
_TABLES = ("episodes", "entities", "memories", "versions", "edges")


def _tx_cypher(alias: str, known_at: datetime | None, all_versions: bool) -> tuple[str, dict]:
    if all_versions:
        return "true", {}
    if known_at is None:
        return f"{alias}.tx_to = {FAR}", {}
    known = R.time_param("known")  # times go as integer pairs: a DATETIME parameter packs slowly
    return f"{alias}.tx_from <= {known} AND {known} < {alias}.tx_to", {"known": R.time_pair(known_at)}


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
    return ch.RunRecord(run_id=p["run_id"], user_id=p["user_id"], applied_at=R.native_at(p["applied_at"]),
                        journal=json.loads(p["journal"]), skipped=json.loads(p["skipped"]),
                        meta=json.loads(p.get("meta") or "{}"))
