"""Conversion between Neo4j nodes/relationships and the store's records.

Times are native Neo4j DATETIME values (UTC); embeddings are float32 vector properties.
"""

from __future__ import annotations

import hashlib
import json
from datetime import UTC, datetime, timedelta
from typing import Any, cast

import neo4j
import numpy as np

from ...timeutil import FAR_FUTURE
from ..models import Edge, EdgeType, Entity, Episode, Memory, MemoryVersion, entity_keys


def one(result: neo4j.Result) -> neo4j.Record:
    """The record of a query that always returns one row (an aggregate, a MERGE, an OPTIONAL MATCH)."""
    record = result.single()
    assert record is not None, "the query returns one row"
    return record


def user_clock(tx: neo4j.ManagedTransaction, user_id: str) -> tuple[int, str | None]:
    """The user's ``UserClock`` (seq, epoch): what the per-user caches (vectors, texts) compare
    with what they hold; (0, None) for a user nothing was written for."""
    clock = one(tx.run(
        "OPTIONAL MATCH (c:UserClock {user_id: $user}) RETURN c.seq AS seq, c.epoch AS epoch", user=user_id))
    return clock["seq"] or 0, clock["epoch"]


# The order versions were written in (seq, then place in the write; ``insert``), for the rows of
# the per-user caches: ranking breaks equal scores by row, so the rows must come in the same
# order in every process, as SQLite's do by rowid. Versions written before ``ord`` count as 0.
WRITTEN_ORDER = "v.seq, coalesce(v.ord, 0), v.id"


def user_key(user_id: str) -> str:
    """A short token naming the tenant inside the fulltext index (Lucene drops huge tokens)."""
    return "u" + hashlib.sha256(user_id.encode("utf-8")).hexdigest()[:32]


# Temporal properties of each record, and a map projection returning them as integer
# microseconds since the epoch: the driver decodes a DATETIME in pure Python (tens of
# microseconds each, hundreds a recall); an integer costs nothing.
TIMES = {"Episode": ("observed_at", "recorded_at"), "Memory": ("created_at", "last_accessed_at"),
         "MemoryVersion": ("valid_from", "valid_to", "tx_from", "tx_to"), "Entity": ("created_at",),
         "edge": ("tx_from", "tx_to")}
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def micros(expr: str) -> str:
    """Cypher for a DATETIME as microseconds since the epoch (null stays null)."""
    return f"{expr}.epochSeconds * 1000000 + {expr}.nanosecond / 1000"


# A version's properties besides its times and its vector, by name: ``.*`` would read the
# 384-float vector from the property store for every hit only to drop it.
VERSION_FIELDS = ("id", "memory_id", "user_id", "text", "subject", "predicate", "object", "confidence",
                  "salience", "status", "negated", "created_by", "content_hash", "search_text")


def projection(alias: str, label: str, *, vector: bool = True) -> str:
    """``properties(alias)`` with its times as integer microseconds (a version without the vector
    names its properties, so the vector is never read)."""
    fields = [f"{f}: {micros(f'{alias}.{f}')}" for f in TIMES[label]]
    if not vector:
        assert label == "MemoryVersion", label
        return f"{alias} {{{', '.join([f'.{f}' for f in VERSION_FIELDS] + fields)}}}"
    return f"{alias} {{.*, {', '.join(fields)}}}"


def time_pair(value: datetime | None) -> list[int] | None:
    """A time as [epoch seconds, nanosecond] for a write's parameters: the driver packs each
    DATETIME parameter in pure Python (slowly), an integer pair costs nothing."""
    if value is None:
        return None
    micro = (value - _EPOCH) // timedelta(microseconds=1)
    return [micro // 1_000_000, micro % 1_000_000 * 1000]


def with_time_pairs(props: dict, label: str) -> dict:
    """``props`` with its times (``TIMES[label]``) as ``time_pair``s."""
    return props | {f: time_pair(props[f]) for f in TIMES[label] if f in props}


def set_times(alias: str, label: str, row: str) -> str:
    """Cypher setting ``alias``'s times back to DATETIMEs from the pairs in map ``row``."""
    return "".join(f", {alias}.{f} = CASE WHEN {row}.{f} IS NULL THEN null ELSE "
                   f"datetime({{epochSeconds: {row}.{f}[0], nanosecond: {row}.{f}[1]}}) END"
                   for f in TIMES[label])


def time_param(name: str) -> str:
    """Cypher for the DATETIME of the ``time_pair`` passed as parameter ``name``."""
    return f"datetime({{epochSeconds: ${name}[0], nanosecond: ${name}[1]}})"


# FAR_FUTURE (the tx_to of what is current) as a Cypher literal: no parameter to pack at all.
FAR_CYPHER = f"datetime('{FAR_FUTURE.isoformat()}')"


def native(value: Any) -> datetime | None:
    if value is None:
        return None
    if isinstance(value, int):  # from a ``projection``
        return _EPOCH + timedelta(microseconds=value)
    return value.to_native()


def native_at(value: Any) -> datetime:
    """``native`` of a time every such record holds (typed as never None; converted alike)."""
    return cast(datetime, native(value))


def episode_props(e: Episode, now: datetime) -> dict:
    return {"id": e.id, "user_id": e.user_id, "text": e.text, "observed_at": e.observed_at,
            "source_id": e.source_id, "speaker": e.speaker, "role": e.role,
            "agent_id": e.agent_id, "session_id": e.session_id,
            "recorded_at": e.recorded_at or now, "created_by": e.created_by}


def memory_props(m: Memory, now: datetime) -> dict:
    return {"id": m.id, "user_id": m.user_id, "kind": m.kind, "agent_id": m.agent_id,
            "session_id": m.session_id, "created_at": m.created_at or now,
            "created_by": m.created_by, "review_state": m.review_state,
            "access_count": m.access_count, "last_accessed_at": m.last_accessed_at}


def version_row(v: MemoryVersion, now: datetime) -> dict:
    props = {"id": v.id, "memory_id": v.memory_id, "user_id": v.user_id,
             "user_key": user_key(v.user_id), "text": v.text, "subject": v.subject,
             "predicate": v.predicate, "object": v.object, "confidence": float(v.confidence),
             "salience": float(v.salience), "status": v.status, "negated": bool(v.negated),
             "valid_from": v.valid_from,
             "valid_to": v.valid_to, "tx_from": v.tx_from or now, "tx_to": v.tx_to,
             "created_by": v.created_by, "content_hash": v.content_hash,
             # ``search`` is what the fulltext index reads (schema.py): always set, so the index
             # needs one property; ``search_text`` keeps the version's own field (None: unset).
             "search_text": v.search_text, "search": v.text if v.search_text is None else v.search_text}
    embedding = None if v.embedding is None else np.asarray(v.embedding, np.float32).tolist()
    return {"props": props, "embedding": embedding}


def entity_props(e: Entity, now: datetime) -> dict:
    return {"id": e.id, "user_id": e.user_id, "name": e.name, "type": e.type,
            "aliases": list(e.aliases), "created_at": e.created_at or now,
            "created_by": e.created_by, "keys": entity_keys(e)}


def edge_row(e: Edge, now: datetime) -> dict:
    return {"src": e.src_id, "dst": e.dst_id,
            "props": {"id": e.id, "user_id": e.user_id, "created_by": e.created_by,
                      "tx_from": e.tx_from or now, "tx_to": e.tx_to,
                      "props": json.dumps(e.props, sort_keys=True)}}


def to_episode(p: dict) -> Episode:
    return Episode(id=p["id"], user_id=p["user_id"], text=p["text"],
                   observed_at=native_at(p["observed_at"]), source_id=p.get("source_id"),
                   speaker=p.get("speaker"), role=p.get("role"), agent_id=p.get("agent_id"),
                   session_id=p.get("session_id"), recorded_at=native(p["recorded_at"]),
                   created_by=p["created_by"])


def to_memory(p: dict) -> Memory:
    return Memory(id=p["id"], user_id=p["user_id"], kind=p["kind"], agent_id=p.get("agent_id"),
                  session_id=p.get("session_id"), created_at=native(p["created_at"]),
                  created_by=p["created_by"], review_state=p["review_state"],
                  access_count=p.get("access_count", 0),
                  last_accessed_at=native(p.get("last_accessed_at")))


def to_version(p: dict) -> MemoryVersion:
    vector = p.get("embedding")
    return MemoryVersion(
        id=p["id"], memory_id=p["memory_id"], user_id=p["user_id"], text=p["text"],
        embedding=None if vector is None else np.asarray(vector, dtype=np.float32),
        subject=p.get("subject"), predicate=p.get("predicate"), object=p.get("object"),
        confidence=p["confidence"], salience=p["salience"], status=p["status"],
        negated=bool(p.get("negated", False)),
        valid_from=native_at(p["valid_from"]), valid_to=native_at(p["valid_to"]),
        tx_from=native(p["tx_from"]), tx_to=native_at(p["tx_to"]), created_by=p["created_by"],
        content_hash=p["content_hash"], search_text=p.get("search_text"))


def to_entity(p: dict) -> Entity:
    return Entity(id=p["id"], user_id=p["user_id"], name=p["name"], type=p["type"],
                  aliases=tuple(p.get("aliases") or ()), created_at=native(p["created_at"]),
                  created_by=p["created_by"])


def to_edge(p: dict, type_: str, src: str, dst: str) -> Edge:
    return Edge(id=p["id"], user_id=p["user_id"], type=EdgeType(type_), src_id=src, dst_id=dst,
                props=json.loads(p["props"]), created_by=p["created_by"],
                tx_from=native(p["tx_from"]), tx_to=native_at(p["tx_to"]))

