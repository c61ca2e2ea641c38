"""Stage 2, supersede: a newer value of a single-valued fact ends the older one.

Facts are grouped by subject and predicate (the user's own name counts as "user"). For a
single-valued predicate (lives in, works at, spouse, age, favourite X: see
``writer/predicates.py``) the facts of a group, ordered by when they became true, form a chain:
each run of the same value is ended where the next value begins, gets status ``superseded``
and a ``SUPERSEDES`` edge from the fact that replaced it. The chain is recomputed from the
Writer's own valid times, so a fact told late about an earlier period slots into its place
(it ends the value before it and is ended by the one after it) instead of superseding the
present, and a rerun changes nothing. A group is revisited when something new arrives in it,
or when a superseded member lost its successor (forgotten since): the chain heals.

Multi-valued predicates (likes, has a pet, visited) never supersede on a different value. For
any predicate, a negated fact ("doesn't eat meat anymore") ends the same positive fact that
held when it was said.
"""

from __future__ import annotations

from collections import defaultdict
from datetime import datetime, timedelta

from ..store import EdgeType, MemoryVersion
from ..store import changes as ch
from ..writer import predicates
from .decisions import Decision, Revise, StageResult, edge
from .view import SELF, GraphView, object_key, subject_key

STAGE = "supersede"
# Two values with the same start ("moved to Boston last month", then "to Chicago last month";
# or both in one message list): the one told later (by first belief, then id) holds, and the
# other ends an instant after it began, since a store refuses an empty valid interval.
INSTANT = timedelta(microseconds=1)


def supersede(view: GraphView, copies: set[str] = frozenset()) -> StageResult:
    """``copies``: memories the dedupe stage of this run folds into others (left out here)."""
    result = StageResult(STAGE)
    self_names = {
        object_key(v.object)
        for v in view.current.values()
        if subject_key(v.subject) == SELF and v.predicate in ("name", "nickname") and v.object
    }
    groups: dict[tuple[str, str], list[str]] = defaultdict(list)
    for memory_id, v in view.current.items():
        if v.predicate and v.status in ("active", "superseded") and memory_id not in copies:
            subject = subject_key(v.subject)
            groups[(SELF if subject in self_names else subject, v.predicate)].append(memory_id)
    new = set(view.new_memory_ids())
    existing = defaultdict(set)  # older memory -> memories with an open SUPERSEDES edge to it
    for e in view.open_edges(EdgeType.SUPERSEDES):
        existing[e.dst_id].add(e.src_id)
    for members in groups.values():
        orphaned = any(
            view.current[m].status == "superseded" and not existing[m] & view.current.keys() for m in members
        )  # its successor was forgotten: the chain must heal
        if not orphaned and not new.intersection(members):
            continue  # incremental: only groups something new arrived in
        desired = _desired(view, members)
        for memory_id in sorted(members, key=lambda m: _order(view, m)):
            status, valid_to, successors = desired[memory_id]
            decision = _decide(view, memory_id, status, valid_to, successors, existing[memory_id])
            if decision is not None:
                result.decisions.append(decision)
    return result


def _original(view: GraphView, memory_id: str) -> MemoryVersion:
    """The version the Writer wrote: its valid times are the evidence the chain is built from."""
    return view.versions_of[memory_id][0]


def _order(view: GraphView, memory_id: str) -> tuple:
    return (_original(view, memory_id).valid_from, view.first_seen(memory_id))


def _desired(view: GraphView, members: list[str]) -> dict[str, tuple[str, datetime, set[str]]]:
    """memory -> (status, valid_to, memories that supersede it) the group should have."""
    out = {m: ("active", _original(view, m).valid_to, set()) for m in members}
    positive = [m for m in members if not view.current[m].negated]
    predicate = view.current[members[0]].predicate
    if predicates.is_single_valued(predicate):
        segments: list[list[str]] = []
        for m in sorted(positive, key=lambda m: _order(view, m)):
            if segments and object_key(view.current[segments[-1][0]].object) == object_key(
                view.current[m].object
            ):
                segments[-1].append(m)
            else:
                segments.append([m])
        for segment, following in zip(segments, segments[1:], strict=False):
            successor = following[0]
            begins = _original(view, successor).valid_from
            for m in segment:
                out[m] = ("superseded", _ended(_original(view, m), begins), {successor})
    for n in (m for m in members if view.current[m].negated):
        said = _original(view, n).valid_from
        for m in positive:
            status, valid_to, by = out[m]
            held = _original(view, m).valid_from <= said < valid_to
            if held and object_key(view.current[m].object) == object_key(view.current[n].object):
                out[m] = ("superseded", _ended(_original(view, m), said), by | {n})
    return out


def _ended(original: MemoryVersion, at: datetime) -> datetime:
    """The end of a value superseded at ``at``: never before it began (see ``INSTANT``)."""
    return max(min(original.valid_to, at), original.valid_from + INSTANT)


def _decide(
    view: GraphView, memory_id: str, status: str, valid_to: datetime, successors: set[str], linked: set[str]
) -> Decision | None:
    current = view.current[memory_id]
    ops: list = []
    if (current.status, current.valid_to) != (status, valid_to):
        ops.append(Revise(memory_id, current.id, {"status": status, "valid_to": valid_to}))
    ops += [edge(view, EdgeType.SUPERSEDES, s, memory_id) for s in sorted(successors - linked)]
    stale = {
        e.id
        for e in view.open_edges(EdgeType.SUPERSEDES)
        if e.dst_id == memory_id and e.src_id in linked - successors
    }
    ops += [ch.CloseEdge(edge_id) for edge_id in sorted(stale)]
    if not ops:
        return None
    action = "supersede" if status == "superseded" else "restore"
    evidence = {
        "predicate": current.predicate,
        "object": current.object,
        "valid_to": valid_to.date().isoformat(),
        "by": ", ".join(view.current[s].object or "" for s in sorted(successors)),
    }
    return Decision(
        action,
        memory_id,
        "single-valued, newer value" if status == "superseded" else "chain changed",
        min(successors) if successors else None,
        evidence,
        ops,
    )
