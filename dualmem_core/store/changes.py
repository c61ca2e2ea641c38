"""Change sets: what an Editor run asks a store to apply, atomically, under its run id.

Every operation names its targets by id and carries a guard on the state it expects. If a guard
fails (the Writer changed the target after the snapshot), a store either raises or, in skip mode,
skips the operation's whole ``group`` and reports it, so the Editor never clobbers newer writes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from .models import Edge, Entity, Memory, MemoryVersion


@dataclass(slots=True)
class AddMemory:
    memory: Memory
    group: str | None = None


@dataclass(slots=True)
class AddVersion:
    version: MemoryVersion
    group: str | None = None


@dataclass(slots=True)
class AddEntity:
    entity: Entity
    group: str | None = None


@dataclass(slots=True)
class AddEdge:
    edge: Edge
    group: str | None = None


@dataclass(slots=True)
class CloseVersion:
    """End a version's transaction time. Guard: it is still open."""

    version_id: str
    at: datetime | None = None  # the store's clock when None
    group: str | None = None


@dataclass(slots=True)
class ReopenVersion:
    """Undo a ``CloseVersion``. Guard: it is closed at exactly ``closed_at``."""

    version_id: str
    closed_at: datetime
    group: str | None = None


@dataclass(slots=True)
class CloseEdge:
    """End an edge's transaction time. Guard: it is still open."""

    edge_id: str
    at: datetime | None = None
    group: str | None = None


@dataclass(slots=True)
class ReopenEdge:
    """Undo a ``CloseEdge``. Guard: it is closed at exactly ``closed_at``."""

    edge_id: str
    closed_at: datetime
    group: str | None = None


@dataclass(slots=True)
class SetReviewState:
    """Mark a memory reviewed (or back). Guard: its state is ``expected``."""

    memory_id: str
    state: str
    expected: str
    group: str | None = None


@dataclass(slots=True)
class RemoveCreated:
    """Delete a record that run ``created_by`` made (used to undo that run). Guard: its maker."""

    kind: str  # "memory" | "version" | "entity" | "edge"
    id: str
    created_by: str
    group: str | None = None


Operation = (
    AddMemory
    | AddVersion
    | AddEntity
    | AddEdge
    | CloseVersion
    | ReopenVersion
    | CloseEdge
    | ReopenEdge
    | SetReviewState
    | RemoveCreated
)


@dataclass(slots=True)
class ChangeSet:
    user_id: str
    run_id: str
    operations: list[Operation] = field(default_factory=list)
    meta: dict[str, Any] = field(default_factory=dict)  # JSON-able; kept with the run's record


@dataclass(slots=True)
class Skipped:
    index: int
    group: str
    reason: str


@dataclass(slots=True)
class ChangeReceipt:
    run_id: str
    user_id: str
    applied: int = 0
    skipped: list[Skipped] = field(default_factory=list)
    already_applied: bool = False
    applied_at: datetime | None = None


@dataclass(slots=True)
class RunRecord:
    """A published run and its journal: one entry per applied operation, with old values."""

    run_id: str
    user_id: str
    applied_at: datetime
    journal: list[dict[str, Any]]
    skipped: list[dict[str, Any]]
    meta: dict[str, Any] = field(default_factory=dict)


def group_of(op: Operation, index: int) -> str:
    return op.group if op.group is not None else f"#{index}"
