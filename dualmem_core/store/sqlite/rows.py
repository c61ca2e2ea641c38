"""Conversion between SQLite rows and the store's records."""

from __future__ import annotations

import json
import sqlite3
from datetime import UTC, datetime, timedelta

import numpy as np

from ...timeutil import to_micros
from ..models import Edge, EdgeType, Entity, Episode, Memory, MemoryVersion

EPISODE_COLUMNS = ("id, user_id, text, observed_at, source_id, speaker, role, agent_id, "
                   "session_id, recorded_at, created_by")
MEMORY_COLUMNS = ("id, user_id, kind, agent_id, session_id, created_at, created_by, "
                  "review_state, access_count, last_accessed_at")
VERSION_COLUMNS = ("id, memory_id, user_id, text, embedding, subject, predicate, object, "
                   "confidence, salience, status, negated, valid_from, valid_to, tx_from, tx_to, "
                   "created_by, content_hash, search_text")
ENTITY_COLUMNS = "id, user_id, name, type, aliases, created_at, created_by"
EDGE_COLUMNS = "id, user_id, type, src_id, dst_id, props, created_by, tx_from, tx_to"


def placeholders(columns: str) -> str:
    return ", ".join("?" for _ in columns.split(","))


def prefixed(columns: str, alias: str) -> str:
    return ", ".join(f"{alias}.{c.strip()}" for c in columns.split(","))


def _t(value: datetime | None, default: int) -> int:
    return default if value is None else to_micros(value)


_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


_MADE: dict[int, datetime] = {}  # micros -> datetime, for values read again
_MAX_MADE = 100_000  # cleared when full: a bound on memory, not an eviction policy


def from_micros(value: int) -> datetime:
    """``timeutil.from_micros``, remembered: a recall converts a few hundred of these, mostly
    values it has met before (the open end of time, the times of memories it read), and a
    dictionary lookup costs a tenth of building a datetime. Datetimes are immutable, so one
    object may be shared."""
    made = _MADE.get(value)
    if made is None:
        if len(_MADE) >= _MAX_MADE:
            _MADE.clear()
        made = _MADE[value] = _EPOCH + timedelta(microseconds=value)
    return made


def _dt(value: int | None) -> datetime | None:
    return None if value is None else from_micros(value)


def episode_row(e: Episode, now: int) -> tuple:
    return (e.id, e.user_id, e.text, to_micros(e.observed_at), e.source_id, e.speaker, e.role,
            e.agent_id, e.session_id, _t(e.recorded_at, now), e.created_by)


def memory_row(m: Memory, now: int) -> tuple:
    return (m.id, m.user_id, m.kind, m.agent_id, m.session_id, _t(m.created_at, now),
            m.created_by, m.review_state, m.access_count,
            None if m.last_accessed_at is None else to_micros(m.last_accessed_at))


def version_row(v: MemoryVersion, now: int) -> tuple:
    blob = None if v.embedding is None else np.asarray(v.embedding, dtype=np.float32).tobytes()
    return (v.id, v.memory_id, v.user_id, v.text, blob, v.subject, v.predicate, v.object,
            float(v.confidence), float(v.salience), v.status, int(bool(v.negated)), to_micros(v.valid_from),
            to_micros(v.valid_to), _t(v.tx_from, now), to_micros(v.tx_to), v.created_by,
            v.content_hash, v.search_text)


def entity_row(e: Entity, now: int) -> tuple:
    return (e.id, e.user_id, e.name, e.type, json.dumps(list(e.aliases)), _t(e.created_at, now),
            e.created_by)


def edge_row(e: Edge, now: int) -> tuple:
    props = json.dumps(e.props, sort_keys=True) if e.props else "{}"  # most edges carry none
    return (e.id, e.user_id, EdgeType(e.type).value, e.src_id, e.dst_id, props, e.created_by,
            _t(e.tx_from, now), to_micros(e.tx_to))


def to_episode(r: sqlite3.Row | tuple) -> Episode:
    return Episode(id=r[0], user_id=r[1], text=r[2], observed_at=from_micros(r[3]), source_id=r[4],
                   speaker=r[5], role=r[6], agent_id=r[7], session_id=r[8],
                   recorded_at=from_micros(r[9]), created_by=r[10])


def to_memory(r: sqlite3.Row | tuple) -> Memory:
    return Memory(id=r[0], user_id=r[1], kind=r[2], agent_id=r[3], session_id=r[4],
                  created_at=from_micros(r[5]), created_by=r[6], review_state=r[7],
                  access_count=r[8], last_accessed_at=_dt(r[9]))


def to_version(r: sqlite3.Row | tuple) -> MemoryVersion:
    vector = None if r[4] is None else np.frombuffer(r[4], dtype=np.float32)
    return MemoryVersion(id=r[0], memory_id=r[1], user_id=r[2], text=r[3], embedding=vector,
                         subject=r[5], predicate=r[6], object=r[7], confidence=r[8],
                         salience=r[9], status=r[10], negated=bool(r[11]),
                         valid_from=from_micros(r[12]), valid_to=from_micros(r[13]),
                         tx_from=from_micros(r[14]), tx_to=from_micros(r[15]), created_by=r[16],
                         content_hash=r[17], search_text=r[18])


def to_entity(r: sqlite3.Row | tuple) -> Entity:
    return Entity(id=r[0], user_id=r[1], name=r[2], type=r[3], aliases=tuple(json.loads(r[4])),
                  created_at=from_micros(r[5]), created_by=r[6])


# The stored text -> its member: a dictionary lookup instead of an Enum call per edge read (an
# export reads every edge of the user).
_EDGE_TYPES = {t.value: t for t in EdgeType}


def to_edge(r: sqlite3.Row | tuple) -> Edge:
    return Edge(id=r[0], user_id=r[1], type=_EDGE_TYPES[r[2]], src_id=r[3], dst_id=r[4],
                props={} if r[5] == "{}" else json.loads(r[5]), created_by=r[6], tx_from=from_micros(r[7]),
                tx_to=from_micros(r[8]))
