"""One remember's write batch beyond the records of its messages: the ids every record gets, the
exact duplicates folded into what is stored, and the SIMILAR_TO and MENTIONS links.

Separate from ``writer.py`` so the Writer reads as its API (remember, recall, history, profile,
forget) and the batch it hands the store in one transaction can be read on its own.
"""

from __future__ import annotations

import os
import threading
import time

import numpy as np

from ..providers import Embedder
from ..store import Edge, EdgeType, Entity, Store, WriteBatch
from ..store import models as _models
from .results import RememberResult


class _RandomBits:
    """os.urandom's bytes, read a few kilobytes at a time and kept as hex digits: a remember
    makes hundreds of ids, and a system call each was a tenth of the Writer's own time."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._pool = ""
        self._at = 0

    def hex(self, size: int) -> str:
        """``size`` random bytes as 2 * ``size`` hex digits."""
        digits = 2 * size
        with self._lock:
            if self._at + digits > len(self._pool):
                self._pool, self._at = os.urandom(4096).hex(), 0
            part = self._pool[self._at:self._at + digits]
            self._at += digits
        return part

    def forget(self) -> None:
        self._lock = threading.Lock()
        self._pool, self._at = "", 0


_RANDOM = _RandomBits()
os.register_at_fork(after_in_child=_RANDOM.forget)  # a forked child must not reuse the parent's bytes


def _new_id(prefix: str) -> str:
    """An id like ``models.new_id``'s (prefix, 32 hex digits), but time-ordered: 48 bits of
    milliseconds, then 80 random bits. New records then land at the end of every index on their
    ids instead of on random pages: at 10k memories it halved the time of the store write.
    Inside ``models.reproducible_ids`` they come from its sequence."""
    if _models._sequence is not None:
        return _models.new_id(prefix)
    return f"{prefix}_{time.time_ns() // 1_000_000:012x}{_RANDOM.hex(10)}"


def drop_exact_duplicates(
    store: Store, user_id: str, pending: list, batch: WriteBatch, result: RememberResult
) -> None:
    """An exact duplicate (same normalised text) re-sources the memory that exists."""
    # Only a live memory absorbs a repeat: a superseded one ("lived in Seattle") told again is
    # news (moved back), and a copy the Editor folded away points at its canonical memory.
    stored = {
        v.content_hash: v.memory_id
        for v in store.find_by_content_hash(user_id, [v.content_hash for _, v, _ in pending])
        if v.status == "active"
    }
    first: dict[str, str] = {}
    kept = []
    provenance: dict[str, list[Edge]] = {}  # FROM edges by the memory they start at
    for edge in batch.edges:
        if edge.type == EdgeType.FROM:
            provenance.setdefault(edge.src_id, []).append(edge)
    for memory, version, entities in pending:
        existing = stored.get(version.content_hash) or first.get(version.content_hash)
        if existing is None:
            first[version.content_hash] = memory.id
            kept.append((memory, version, entities))
            result.memory_ids.append(memory.id)
            if memory.kind == "fact":
                result.fact_ids.append(memory.id)
            continue
        if version.content_hash in stored:
            result.skipped_duplicates.append(existing)
        for edge in provenance.get(memory.id, ()):  # move the provenance onto the memory that stays
            edge.src_id = existing
    # A message repeating itself would now hold the same provenance edge twice.
    unique_from = {(e.src_id, e.dst_id): e for e in batch.edges if e.type == EdgeType.FROM}
    batch.edges[:] = [e for e in batch.edges if e.type != EdgeType.FROM] + list(unique_from.values())
    pending[:] = kept
    batch.memories += [m for m, _, _ in kept]
    batch.versions += [v for _, v, _ in kept]


def embed_and_link(store: Store, embedder: Embedder, user_id: str, pending: list, batch: WriteBatch,
                   links: int, threshold: float) -> None:
    """Embed every new memory in one call and link each to its close existing neighbours."""
    if not pending:
        return
    vectors = embedder.embed([v.text for _, v, _ in pending])
    for (_, version, _), vector in zip(pending, vectors, strict=True):
        version.embedding = np.asarray(vector, dtype=np.float32)
    batch.edges += similar_links(store, user_id, [(m.id, v.embedding) for m, v, _ in pending],
                                 links, threshold)


def similar_links(store: Store, user_id: str, embedded: list[tuple[str, np.ndarray]], links: int,
                  threshold: float, calls: list[int] | None = None) -> list[Edge]:
    """SIMILAR_TO edges from each (memory id, vector) to its close existing neighbours: what
    ``embed_and_link`` adds to a remember's batch, and the embedding queue (``embed_queue.py``)
    writes with the vectors it computes later. ``calls`` (the queue's): the remember call of
    each; a memory also links to those of earlier calls among ``embedded``, which inline would
    have been stored (and found) before it."""
    nearest = store.nearest_memories(user_id, [v for _, v in embedded], links, threshold)
    if calls is not None:
        nearest = _with_earlier_calls(embedded, calls, nearest, links, threshold)
    return [Edge(id=_new_id("edge"), user_id=user_id, type=EdgeType.SIMILAR_TO, src_id=memory_id,
                 dst_id=other, props={"score": round(score, 4)})
            for (memory_id, _), neighbours in zip(embedded, nearest, strict=True)
            for other, score in neighbours]


def _with_earlier_calls(embedded: list[tuple[str, np.ndarray]], calls: list[int],
                        nearest: list[list[tuple[str, float]]], links: int,
                        threshold: float) -> list[list[tuple[str, float]]]:
    """``nearest`` with each memory's close neighbours among the memories of earlier calls,
    best first, at most ``links`` memories each."""
    unit = np.stack([v / np.linalg.norm(v) for _, v in embedded]).astype(np.float32)
    scores = unit @ unit.T
    out = []
    for i, found in enumerate(nearest):
        extra = [(embedded[j][0], float(scores[i, j])) for j in range(len(embedded))
                 if calls[j] < calls[i] and scores[i, j] >= threshold]
        best: dict[str, float] = {}
        for memory_id, score in sorted(found + extra, key=lambda pair: -pair[1]):
            best.setdefault(memory_id, score)
        out.append(list(best.items())[:links])
    return out


def link_entities(store: Store, user_id: str, pending: list, batch: WriteBatch) -> None:
    """MENTIONS edges to entities found by exact name or alias, new ones otherwise.
    Fuzzier matches ("Bob" = "Robert Smith") are the Editor's to resolve."""
    names = {name for _, _, entities in pending for name, _ in entities}
    known: dict[str, str] = {}
    for entity in store.find_entities(user_id, sorted(names)):
        for key in (entity.name, *entity.aliases):
            known.setdefault(key.casefold(), entity.id)
    for memory, _, entities in pending:
        for name, type_ in dict.fromkeys(entities):
            entity_id = known.get(name.casefold())
            if entity_id is None:
                entity = Entity(id=_new_id("ent"), user_id=user_id, name=name, type=type_)
                batch.entities.append(entity)
                entity_id = known[name.casefold()] = entity.id
            batch.edges.append(
                Edge(id=_new_id("edge"), user_id=user_id, type=EdgeType.MENTIONS, src_id=memory.id,
                     dst_id=entity_id)
            )
