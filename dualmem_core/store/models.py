"""Records of the bitemporal graph, shared by every store backend.

Valid time (``valid_from``/``valid_to``) is when a fact held in the world; transaction time
(``tx_from``/``tx_to``) is when the memory believed it. Both are closed-open intervals and an
open end is ``FAR_FUTURE``. A change never overwrites: it closes one interval and opens another.
"""

from __future__ import annotations

import hashlib
import itertools
import re
import unicodedata
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from typing import Any

import numpy as np

from ..timeutil import FAR_FUTURE

WRITER = "writer"  # ``created_by`` of everything the Writer makes; Editor runs use their run id


class EdgeType(StrEnum):
    FROM = "FROM"  # Memory -> Episode: provenance
    MENTIONS = "MENTIONS"  # Memory -> Entity
    SUPERSEDES = "SUPERSEDES"  # newer Memory -> older Memory
    DUPLICATE_OF = "DUPLICATE_OF"  # copy Memory -> canonical Memory
    SIMILAR_TO = "SIMILAR_TO"  # Memory -> Memory, props["score"]
    MERGED_INTO = "MERGED_INTO"  # Entity -> Entity
    DISTINCT_FROM = "DISTINCT_FROM"  # Entity -> Entity: a remembered "these differ"
    RELATED = "RELATED"  # Entity -> Entity, props["relation"]


# What each edge type connects: (source kind, target kind).
EDGE_ENDPOINTS: dict[EdgeType, tuple[str, str]] = {
    EdgeType.FROM: ("memory", "episode"),
    EdgeType.MENTIONS: ("memory", "entity"),
    EdgeType.SUPERSEDES: ("memory", "memory"),
    EdgeType.DUPLICATE_OF: ("memory", "memory"),
    EdgeType.SIMILAR_TO: ("memory", "memory"),
    EdgeType.MERGED_INTO: ("entity", "entity"),
    EdgeType.DISTINCT_FROM: ("entity", "entity"),
    EdgeType.RELATED: ("entity", "entity"),
}


_sequence: Iterator[str] | None = None  # set by reproducible_ids()


def new_id(prefix: str) -> str:
    if _sequence is not None:
        return f"{prefix}_{next(_sequence)}"
    return f"{prefix}_{uuid.uuid4().hex}"


@contextmanager
def reproducible_ids() -> Iterator[None]:
    """While the block runs, new ids (the Writer's, the stores', the Editor's runs) count up in
    creation order behind one random prefix instead of being random each, so whatever breaks a
    tie by id breaks it the same way every time: for measurements such as the evaluation, whose
    numbers must not move between runs of the same code. The prefix keeps them unique across
    runs; one process at a time should write while it is on (ids are in creation order only
    within it)."""
    global _sequence
    salt = uuid.uuid4().hex[:12]
    previous, _sequence = _sequence, (f"{salt}{n:020x}" for n in itertools.count(1))
    try:
        yield
    finally:
        _sequence = previous


_SPACES = re.compile(r"\s+")


def normalize_text(text: str) -> str:
    """Case-, width- and whitespace-insensitive form used to spot exact duplicates."""
    return _SPACES.sub(" ", unicodedata.normalize("NFKC", text).casefold()).strip()


def content_hash(text: str) -> str:
    return hashlib.sha256(normalize_text(text).encode("utf-8")).hexdigest()[:32]


@dataclass(slots=True)
class Episode:
    """One raw message as received. Stored first, so a failed extraction loses nothing."""

    user_id: str
    text: str
    observed_at: datetime
    id: str = field(default_factory=lambda: new_id("ep"))
    source_id: str | None = None
    speaker: str | None = None
    role: str | None = None
    agent_id: str | None = None
    session_id: str | None = None
    recorded_at: datetime | None = None  # transaction time; the store's clock when None
    created_by: str = WRITER


@dataclass(slots=True)
class Memory:
    """Identity of one fact or observation; its content lives in versions."""

    user_id: str
    kind: str = "fact"  # "fact" | "observation" | anything a later stage adds
    id: str = field(default_factory=lambda: new_id("mem"))
    agent_id: str | None = None
    session_id: str | None = None
    created_at: datetime | None = None  # the store's clock when None
    created_by: str = WRITER
    review_state: str = "new"  # "new" from the Writer, "reviewed" once an Editor run saw it
    access_count: int = 0
    last_accessed_at: datetime | None = None


@dataclass(slots=True)
class MemoryVersion:
    """One bitemporal version of a memory's content."""

    memory_id: str
    user_id: str
    text: str
    valid_from: datetime
    id: str = field(default_factory=lambda: new_id("ver"))
    embedding: np.ndarray | None = None
    subject: str | None = None
    predicate: str | None = None
    object: str | None = None
    confidence: float = 0.5
    salience: float = 0.5
    status: str = "active"  # "active" | "superseded" | "duplicate" | ...
    negated: bool = False  # the triple holds with negative polarity ("does not eat meat")
    valid_to: datetime = FAR_FUTURE
    tx_from: datetime | None = None  # the store's clock when None
    tx_to: datetime = FAR_FUTURE
    created_by: str = WRITER
    content_hash: str = ""  # derived from text when empty
    # What full-text search matches and scores this version by, when it is not ``text`` alone:
    # an observation's speaker and the turns before it carry meaning the message lacks. Never
    # shown: hits and answers show ``text``. None indexes ``text``.
    search_text: str | None = None

    def __post_init__(self) -> None:
        if not self.content_hash and isinstance(self.text, str):
            self.content_hash = content_hash(self.text)


@dataclass(slots=True)
class Entity:
    """A person, place, organisation or thing a memory mentions."""

    user_id: str
    name: str
    type: str = "thing"
    id: str = field(default_factory=lambda: new_id("ent"))
    aliases: tuple[str, ...] = ()
    created_at: datetime | None = None
    created_by: str = WRITER


def entity_keys(entity: Entity) -> list[str]:
    """The normalised name and aliases an entity is found by."""
    return sorted({normalize_text(n) for n in (entity.name, *entity.aliases) if n.strip()})


@dataclass(slots=True)
class Edge:
    """A typed, stamped link; closing it sets ``tx_to`` rather than deleting it."""

    user_id: str
    type: EdgeType
    src_id: str
    dst_id: str
    id: str = field(default_factory=lambda: new_id("edge"))
    props: dict[str, Any] = field(default_factory=dict)
    created_by: str = WRITER
    tx_from: datetime | None = None
    tx_to: datetime = FAR_FUTURE


@dataclass(slots=True)
class WriteBatch:
    """Everything one call writes; a store applies it all or nothing."""

    episodes: list[Episode] = field(default_factory=list)
    memories: list[Memory] = field(default_factory=list)
    versions: list[MemoryVersion] = field(default_factory=list)
    entities: list[Entity] = field(default_factory=list)
    edges: list[Edge] = field(default_factory=list)

    def user_ids(self) -> set[str]:
        records: list[Episode | Memory | MemoryVersion | Entity | Edge] = [
            *self.episodes, *self.memories, *self.versions, *self.entities, *self.edges]
        return {r.user_id for r in records}

    def is_empty(self) -> bool:
        return not (self.episodes or self.memories or self.versions or self.entities or self.edges)


@dataclass(slots=True)
class UserGraph:
    """One user's whole graph, every version and edge included (open and closed)."""

    user_id: str
    episodes: list[Episode] = field(default_factory=list)
    memories: list[Memory] = field(default_factory=list)
    versions: list[MemoryVersion] = field(default_factory=list)
    entities: list[Entity] = field(default_factory=list)
    edges: list[Edge] = field(default_factory=list)

    def as_batch(self) -> WriteBatch:
        return WriteBatch(self.episodes, self.memories, self.versions, self.entities, self.edges)


@dataclass(slots=True)
class SearchFilter:
    """Who and when a search looks at. Filters apply inside the search, never after top-k."""

    user_id: str
    agent_id: str | None = None
    session_id: str | None = None
    valid_at: datetime | None = None  # None: any valid time
    known_at: datetime | None = None  # None: what the store believes now
    kinds: tuple[str, ...] | None = None
    statuses: tuple[str, ...] | None = None


@dataclass(slots=True)
class SearchHit:
    memory: Memory
    version: MemoryVersion
    score: float  # cosine similarity for vector search, BM25 (higher is better) for text


@dataclass(slots=True)
class Neighbour:
    """A memory reached in one hop through entities it shares with the seeds."""

    memory_id: str
    via_entities: tuple[str, ...]
    seed_ids: tuple[str, ...]
