"""Small builders for store records in tests, so each test states only what it is about."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime

import numpy as np

from dualmem_core.store import Edge, EdgeType, Entity, Episode, Memory, MemoryVersion, WriteBatch

T0 = datetime(2026, 1, 1, tzinfo=UTC)


def at(month: int, day: int = 1, hour: int = 0) -> datetime:
    return datetime(2026, month, day, hour, tzinfo=UTC)


@dataclass
class Builder:
    """Accumulates one user's records into a write batch."""

    user_id: str
    batch: WriteBatch = field(default_factory=WriteBatch)

    def episode(self, text: str, when: datetime = T0, **kw: object) -> Episode:
        ep = Episode(user_id=self.user_id, text=text, observed_at=when, **kw)
        self.batch.episodes.append(ep)
        return ep

    def memory(self, text: str, vector: np.ndarray | None = None, *, valid_from: datetime = T0,
               kind: str = "fact", episode: Episode | None = None, mem_kw: dict | None = None,
               **version_kw: object) -> tuple[Memory, MemoryVersion]:
        mem = Memory(user_id=self.user_id, kind=kind, **(mem_kw or {}))
        ver = MemoryVersion(memory_id=mem.id, user_id=self.user_id, text=text,
                            valid_from=valid_from, embedding=vector, **version_kw)
        self.batch.memories.append(mem)
        self.batch.versions.append(ver)
        if episode is not None:
            self.edge(EdgeType.FROM, mem.id, episode.id)
        return mem, ver

    def entity(self, name: str, type_: str = "person", **kw: object) -> Entity:
        ent = Entity(user_id=self.user_id, name=name, type=type_, **kw)
        self.batch.entities.append(ent)
        return ent

    def edge(self, type_: EdgeType, src: str, dst: str, **kw: object) -> Edge:
        e = Edge(user_id=self.user_id, type=type_, src_id=src, dst_id=dst, **kw)
        self.batch.edges.append(e)
        return e


def write_built(store, user_id: str, build, embedder) -> Builder:
    """``build(builder)`` one user's records, embed every version's text, write them in one batch."""
    b = Builder(user_id)
    build(b)
    for v in b.batch.versions:
        v.embedding = embedder.embed([v.text])[0]
    store.write(b.batch)
    return b
