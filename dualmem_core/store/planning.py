"""Backend-independent checks for writes and change sets.

A backend reads the current state of every record a batch or change set refers to, inside its
own transaction; these pure functions then decide what is allowed, so both backends accept and
refuse exactly the same things.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, NoReturn

from ..errors import ConflictError, InvalidInput, NotFound, TenantViolation
from ..timeutil import FAR_FUTURE
from . import changes as ch
from .models import EDGE_ENDPOINTS, EdgeType, WriteBatch
from .validate import check_batch, check_id, check_user_id

Ref = tuple[str, str]  # (kind, id) with kind in memory | version | entity | edge | episode


@dataclass(slots=True)
class TargetState:
    """What a guard needs to know about one stored record."""

    user_id: str
    created_by: str = ""
    tx_to: datetime | None = None  # versions and edges
    review_state: str | None = None  # memories
    edge_type: str | None = None  # edges, for backends that look relationships up by type


def batch_external_refs(batch: WriteBatch) -> set[Ref]:
    """Records a batch points at without containing them (they must already be stored)."""
    inside = {("memory", m.id) for m in batch.memories}
    inside |= {("episode", e.id) for e in batch.episodes}
    inside |= {("entity", e.id) for e in batch.entities}
    refs = {("memory", v.memory_id) for v in batch.versions}
    for edge in batch.edges:
        src_kind, dst_kind = EDGE_ENDPOINTS[EdgeType(edge.type)]
        refs |= {(src_kind, edge.src_id), (dst_kind, edge.dst_id)}
    return refs - inside


def batch_new_refs(batch: WriteBatch) -> set[Ref]:
    """Ids a batch creates; none may exist yet."""
    return (
        {("episode", e.id) for e in batch.episodes}
        | {("memory", m.id) for m in batch.memories}
        | {("version", v.id) for v in batch.versions}
        | {("entity", e.id) for e in batch.entities}
        | {("edge", e.id) for e in batch.edges}
    )


def check_batch_refs(user_id: str, external: dict[Ref, TargetState], wanted: set[Ref],
                     taken: set[Ref]) -> None:
    """Raise unless every referenced record exists for this user and no new id is taken."""
    for kind, rid in sorted(wanted):
        state = external.get((kind, rid))
        if state is None:
            raise NotFound(f"{kind} {rid!r} does not exist for user {user_id!r}")
        if state.user_id != user_id:
            raise TenantViolation(
                f"{kind} {rid!r} belongs to another user; a write for {user_id!r} cannot link to it"
            )
    if taken:
        kind, rid = sorted(taken)[0]
        raise ConflictError(f"{kind} id {rid!r} already exists; ids must be unique")


def change_refs(changes: ch.ChangeSet) -> set[Ref]:
    """Every stored record a change set reads, creates or points at."""
    refs: set[Ref] = set()
    for op in changes.operations:
        match op:
            case ch.AddMemory(memory=m):
                refs.add(("memory", m.id))
            case ch.AddVersion(version=v):
                refs |= {("version", v.id), ("memory", v.memory_id)}
            case ch.AddEntity(entity=e):
                refs.add(("entity", e.id))
            case ch.AddEdge(edge=e):
                src_kind, dst_kind = EDGE_ENDPOINTS[EdgeType(e.type)]
                refs |= {("edge", e.id), (src_kind, e.src_id), (dst_kind, e.dst_id)}
            case ch.CloseVersion(version_id=i) | ch.ReopenVersion(version_id=i):
                refs.add(("version", i))
            case ch.CloseEdge(edge_id=i) | ch.ReopenEdge(edge_id=i):
                refs.add(("edge", i))
            case ch.SetReviewState(memory_id=i):
                refs.add(("memory", i))
            case ch.RemoveCreated(kind=k, id=i):
                refs.add((k, i))
    return refs


@dataclass(slots=True)
class Plan:
    """The operations to apply, already in apply order, and what was skipped."""

    operations: list[ch.Operation] = field(default_factory=list)
    skipped: list[ch.Skipped] = field(default_factory=list)
    journal: list[dict[str, Any]] = field(default_factory=list)


class _GuardFailed(Exception):
    def __init__(self, error: Exception):
        self.error = error


def validate_changes(changes: ch.ChangeSet, dimension: int) -> None:
    """Check the records a change set adds, as a write batch would be checked."""
    check_user_id(changes.user_id)
    check_id(changes.run_id, "run_id")
    try:
        json.dumps(changes.meta)
    except (TypeError, ValueError) as exc:
        raise InvalidInput(f"change set meta must be JSON-serialisable: {exc}") from None
    adds = WriteBatch(
        memories=[op.memory for op in changes.operations if isinstance(op, ch.AddMemory)],
        versions=[op.version for op in changes.operations if isinstance(op, ch.AddVersion)],
        entities=[op.entity for op in changes.operations if isinstance(op, ch.AddEntity)],
        edges=[op.edge for op in changes.operations if isinstance(op, ch.AddEdge)],
    )
    if not adds.is_empty():
        if adds.user_ids() != {changes.user_id}:
            raise TenantViolation(
                f"change set for {changes.user_id!r} adds records of other users: "
                f"{sorted(adds.user_ids() - {changes.user_id})}"
            )
        check_batch(adds, dimension)
    for op in changes.operations:
        if isinstance(op, ch.RemoveCreated) and op.kind not in ("memory", "version", "entity", "edge"):
            raise InvalidInput(f"RemoveCreated.kind must be memory, version, entity or edge, not {op.kind!r}")


def plan_changes(changes: ch.ChangeSet, state: dict[Ref, TargetState], now: datetime,
                 on_conflict: str) -> Plan:
    """Decide which operations apply, given the stored state of everything they touch.

    ``on_conflict="raise"`` raises at the first failed guard; ``"skip"`` drops the failed
    operation's whole group (and anything that depended on it) and reports why.
    """
    if on_conflict not in ("raise", "skip"):
        raise InvalidInput(f"on_conflict must be 'raise' or 'skip', not {on_conflict!r}")
    for (kind, rid), target in state.items():
        if target.user_id != changes.user_id:
            raise TenantViolation(
                f"run {changes.run_id!r} for user {changes.user_id!r} touches {kind} {rid!r} "
                "of another user; nothing was applied"
            )
    failed: dict[str, str] = {}
    while True:
        try:
            return _simulate(changes, state, now, failed)
        except _GuardFailed as exc:
            if on_conflict == "raise":
                raise exc.error from None
            index, reason = exc.error.args[1], str(exc.error)
            failed[ch.group_of(changes.operations[index], index)] = reason


def _simulate(changes: ch.ChangeSet, state: dict[Ref, TargetState], now: datetime,
              failed: dict[str, str]) -> Plan:
    sim = {ref: dataclasses.replace(s) for ref, s in state.items()}
    plan = Plan()
    user = changes.user_id

    def fail(error_type: type[Exception], index: int, message: str) -> NoReturn:
        raise _GuardFailed(error_type(message, index))

    def need(kind: str, rid: str, index: int) -> TargetState:
        target = sim.get((kind, rid))
        if target is None:
            fail(NotFound, index, f"{kind} {rid!r} does not exist (forgotten or never written)")
        return target

    def create(kind: str, rid: str, index: int, target: TargetState) -> None:
        if (kind, rid) in sim:
            fail(ConflictError, index, f"{kind} id {rid!r} already exists")
        sim[(kind, rid)] = target

    for index, op in _in_apply_order(changes.operations):
        group = ch.group_of(op, index)
        if group in failed:
            plan.skipped.append(ch.Skipped(index, group, failed[group]))
            continue
        entry: dict[str, Any] = {"op": type(op).__name__, "group": group}
        match op:
            case ch.AddMemory(memory=m):
                create("memory", m.id, index, TargetState(user, m.created_by, None, m.review_state))
                entry["id"] = m.id
            case ch.AddVersion(version=v):
                need("memory", v.memory_id, index)
                create("version", v.id, index, TargetState(user, v.created_by, v.tx_to))
                entry["id"] = v.id
            case ch.AddEntity(entity=e):
                create("entity", e.id, index, TargetState(user, e.created_by))
                entry["id"] = e.id
            case ch.AddEdge(edge=e):
                src_kind, dst_kind = EDGE_ENDPOINTS[EdgeType(e.type)]
                need(src_kind, e.src_id, index)
                need(dst_kind, e.dst_id, index)
                create("edge", e.id, index, TargetState(user, e.created_by, e.tx_to))
                entry["id"] = e.id
            case ch.CloseVersion(version_id=i, at=at) | ch.CloseEdge(edge_id=i, at=at):
                kind = "version" if isinstance(op, ch.CloseVersion) else "edge"
                target = need(kind, i, index)
                if target.tx_to != FAR_FUTURE:
                    fail(ConflictError, index, f"{kind} {i!r} was already closed")
                closed_at = at or now
                target.tx_to = closed_at
                entry |= {"id": i, "closed_at": closed_at.isoformat()}
                op = dataclasses.replace(op, at=closed_at)  # the backend writes this exact time
            case ch.ReopenVersion(version_id=i, closed_at=c) | ch.ReopenEdge(edge_id=i, closed_at=c):
                kind = "version" if isinstance(op, ch.ReopenVersion) else "edge"
                target = need(kind, i, index)
                if target.tx_to != c:
                    fail(ConflictError, index, f"{kind} {i!r} is not closed at {c.isoformat()}")
                target.tx_to = FAR_FUTURE
                entry |= {"id": i, "closed_at": c.isoformat()}
            case ch.SetReviewState(memory_id=i, state=new, expected=old):
                target = need("memory", i, index)
                if target.review_state != old:
                    fail(ConflictError, index,
                         f"memory {i!r} is {target.review_state!r}, expected {old!r}")
                target.review_state = new
                entry |= {"id": i, "state": new, "previous": old}
            case ch.RemoveCreated(kind=k, id=i, created_by=maker):
                target = need(k, i, index)
                if target.created_by != maker:
                    fail(ConflictError, index, f"{k} {i!r} was made by {target.created_by!r}, not {maker!r}")
                del sim[(k, i)]
                entry |= {"kind": k, "id": i, "created_by": maker}
            case _:
                raise InvalidInput(f"unknown change operation {type(op).__name__}")
        plan.operations.append(op)
        plan.journal.append(entry)
    return plan


_STAGES = {ch.AddEntity: 0, ch.AddMemory: 1, ch.AddVersion: 2, ch.AddEdge: 3, ch.CloseVersion: 4,
           ch.CloseEdge: 4, ch.ReopenVersion: 5, ch.ReopenEdge: 5, ch.SetReviewState: 6}
_REMOVAL_STAGES = {"edge": 7, "version": 8, "memory": 9, "entity": 9}


def _in_apply_order(operations: list[ch.Operation]) -> list[tuple[int, ch.Operation]]:
    """(index, op) in the order a plan is checked and applied: nodes before the edges that need
    them, edge removals before node removals; stable within a stage, so callers need not sort."""
    def stage(item: tuple[int, ch.Operation]) -> int:
        op = item[1]
        return _REMOVAL_STAGES[op.kind] if isinstance(op, ch.RemoveCreated) else _STAGES[type(op)]

    return sorted(enumerate(operations), key=stage)
