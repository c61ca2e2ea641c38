"""What the Writer returns: plain dataclasses a caller can log, show or serialise."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from .facts import Fact


@dataclass(slots=True)
class RememberResult:
    """What one ``remember`` stored."""

    episode_ids: list[str] = field(default_factory=list)
    memory_ids: list[str] = field(default_factory=list)  # new memories: observations and facts
    fact_ids: list[str] = field(default_factory=list)  # the facts among them
    skipped_duplicates: list[str] = field(default_factory=list)  # existing memories re-sourced
    already_stored: list[str] = field(default_factory=list)  # source ids stored before: not written again
    facts: list[Fact] = field(default_factory=list)
    extractor: str = "rules"


@dataclass(slots=True)
class Hit:
    """One recalled memory, with why it ranked and where it came from."""

    memory_id: str
    version_id: str
    text: str
    score: float
    why: dict[str, float]
    sources: list[str]  # source ids of the episodes it came from
    current: bool  # False for a superseded or ended fact
    valid_from: datetime
    valid_to: datetime
    kind: str
    subject: str | None = None
    predicate: str | None = None
    object: str | None = None


@dataclass(slots=True)
class VersionView:
    version_id: str
    text: str
    status: str
    valid_from: datetime
    valid_to: datetime
    tx_from: datetime
    tx_to: datetime
    created_by: str


@dataclass(slots=True)
class History:
    """A memory's versions in transaction-time order and its supersession links."""

    memory_id: str
    user_id: str
    versions: list[VersionView]
    superseded_by: list[str]  # memories that superseded this one
    supersedes: list[str]  # memories this one superseded
    sources: list[str]


@dataclass(slots=True)
class ProfileEntry:
    predicate: str
    value: str
    text: str
    memory_id: str
    since: datetime
    sources: list[str]
