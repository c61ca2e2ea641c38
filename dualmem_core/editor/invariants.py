"""What must hold of a user's graph after an Editor run, checked before anything is published.

A change set is applied to the snapshot in memory (as a store would, every guard passing) and
the result is checked against each of ``INVARIANTS``. An edge "joins the user's records" when
both ends are records of the user's graph of the kinds its type connects; following
``MERGED_INTO`` or ``DUPLICATE_OF`` must end at one canonical record, never loop.

A violation the snapshot already had (same invariant, same memory, edge or record) is marked
``preexisting``: the run did not cause it (a forgotten successor, say), even if the run rewrote
the memory meanwhile, and the caller decides whether that should stop a publish.
"""

from __future__ import annotations

import dataclasses
from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime
from typing import cast

from ..store import changes as ch
from ..store.models import EDGE_ENDPOINTS, Edge, EdgeType, UserGraph
from ..timeutil import FAR_FUTURE, utcnow

INVARIANTS = {
    "one_belief_at_a_time": "The versions of a memory believed now do not overlap in valid time.",
    "superseded_has_successor": "A memory believed superseded is superseded by a memory still believed.",
    "edges_within_user": "Every record is the user's, and every open edge joins the user's records.",
    "no_merge_cycles": "Open MERGED_INTO (entities) and DUPLICATE_OF (memories) edges form no cycle.",
    "changes_within_user": "The change set adds and targets only records of the user's graph.",
}
_FOLDS = (EdgeType.MERGED_INTO, EdgeType.DUPLICATE_OF)
_TABLES = {"memory": "memories", "version": "versions", "entity": "entities", "edge": "edges"}
_ADDS = {
    ch.AddMemory: ("memory", "memory"),
    ch.AddVersion: ("version", "version"),
    ch.AddEntity: ("entity", "entity"),
    ch.AddEdge: ("edge", "edge"),
}
_TARGETS = {
    ch.CloseVersion: ("version", "version_id"),
    ch.ReopenVersion: ("version", "version_id"),
    ch.CloseEdge: ("edge", "edge_id"),
    ch.ReopenEdge: ("edge", "edge_id"),
    ch.SetReviewState: ("memory", "memory_id"),
}


@dataclass(frozen=True, slots=True)
class Violation:
    invariant: str
    subject: str  # the id of the record it is about: the same before and after a change set
    message: str
    preexisting: bool = False  # the snapshot already had a violation of this invariant here


Violations = dict[str, list[Violation]]


def apply_in_memory(graph: UserGraph, changes: ch.ChangeSet, at: datetime | None = None) -> UserGraph:
    """The graph a store would hold after applying ``changes`` with every guard passing.

    ``graph`` is left as it is. Operations on records the graph lacks are ignored here; the
    ``changes_within_user`` invariant reports them.
    """
    at = at or utcnow()
    records = {kind: {r.id: r for r in getattr(graph, table)} for kind, table in _TABLES.items()}
    for op in changes.operations:
        if type(op) in _ADDS:
            kind, attr = _ADDS[type(op)]
            record = getattr(op, attr)
            if kind in ("version", "edge"):
                record = dataclasses.replace(record, tx_from=record.tx_from or at)
            records[kind][record.id] = record
        elif isinstance(op, ch.RemoveCreated):
            records.get(op.kind, {}).pop(op.id, None)
        else:
            kind, attr = _TARGETS[type(op)]
            target = records[kind].get(getattr(op, attr))
            if target is None:
                continue
            if isinstance(op, ch.SetReviewState):
                target = dataclasses.replace(target, review_state=op.state)
            elif isinstance(op, ch.ReopenVersion | ch.ReopenEdge):
                target = dataclasses.replace(target, tx_to=FAR_FUTURE)
            else:
                # _TARGETS' other kinds, closes (an add was handled above)
                closing = cast("ch.CloseVersion | ch.CloseEdge", op)
                target = dataclasses.replace(target, tx_to=closing.at or at)
            records[kind][target.id] = target
    return UserGraph(
        graph.user_id,
        episodes=list(graph.episodes),
        memories=list(records["memory"].values()),
        versions=list(records["version"].values()),
        entities=list(records["entity"].values()),
        edges=list(records["edge"].values()),
    )


def check_graph(graph: UserGraph) -> Violations:
    """The graph invariants' violations (every invariant but ``changes_within_user``)."""
    return {
        "one_belief_at_a_time": _overlapping_beliefs(graph),
        "superseded_has_successor": _orphaned_supersessions(graph),
        "edges_within_user": _foreign_records(graph),
        "no_merge_cycles": _fold_cycles(graph),
    }


def check_change_set(
    before: UserGraph, changes: ch.ChangeSet, user_id: str | None = None, at: datetime | None = None
) -> Violations:
    """Every invariant's violations in the graph ``changes`` would leave, in ``INVARIANTS`` order.

    ``user_id``: whose run this is (the snapshot's user when None).
    """
    user_id = user_id or before.user_id
    known = {(v.invariant, v.subject) for vs in check_graph(before).values() for v in vs}
    after = check_graph(apply_in_memory(before, changes, at))
    after["changes_within_user"] = _foreign_changes(before, changes, user_id)
    return {
        name: [
            dataclasses.replace(v, preexisting=True) if (v.invariant, v.subject) in known else v
            for v in after[name]
        ]
        for name in INVARIANTS
    }


def _overlapping_beliefs(graph: UserGraph) -> list[Violation]:
    believed = defaultdict(list)
    for v in graph.versions:
        if v.tx_to == FAR_FUTURE:
            believed[v.memory_id].append(v)
    out = []
    for memory_id, versions in sorted(believed.items()):
        versions.sort(key=lambda v: (v.valid_from, v.id))
        for a, b in zip(versions, versions[1:], strict=False):
            if b.valid_from < a.valid_to:
                out.append(
                    Violation(
                        "one_belief_at_a_time",
                        memory_id,
                        f"versions {a.id} and {b.id} are both believed and overlap in valid time "
                        f"([{a.valid_from:%Y-%m-%d}, {a.valid_to:%Y-%m-%d}) and "
                        f"[{b.valid_from:%Y-%m-%d}, {b.valid_to:%Y-%m-%d}))",
                    )
                )
    return out


def _orphaned_supersessions(graph: UserGraph) -> list[Violation]:
    believed = {v.memory_id for v in graph.versions if v.tx_to == FAR_FUTURE}
    successors = defaultdict(set)
    for e in _open(graph.edges, EdgeType.SUPERSEDES):
        if e.src_id in believed:
            successors[e.dst_id].add(e.src_id)
    return [
        Violation(
            "superseded_has_successor",
            v.memory_id,
            f"version {v.id} is superseded but no believed memory supersedes {v.memory_id}",
        )
        for v in sorted(graph.versions, key=lambda v: v.memory_id)
        if v.tx_to == FAR_FUTURE and v.status == "superseded" and not successors[v.memory_id]
    ]


def _foreign_records(graph: UserGraph) -> list[Violation]:
    out = []
    for table in ("episodes", "memories", "versions", "entities", "edges"):
        for r in getattr(graph, table):
            if r.user_id != graph.user_id:
                out.append(
                    Violation(
                        "edges_within_user",
                        r.id,
                        f"{table[:-1]} {r.id} belongs to {r.user_id!r}, not {graph.user_id!r}",
                    )
                )
    ids = {
        "memory": {m.id for m in graph.memories},
        "episode": {e.id for e in graph.episodes},
        "entity": {e.id for e in graph.entities},
    }
    for e in sorted((e for e in graph.edges if e.tx_to == FAR_FUTURE), key=lambda e: e.id):
        src_kind, dst_kind = EDGE_ENDPOINTS[e.type]
        for end, node, kind in (("source", e.src_id, src_kind), ("target", e.dst_id, dst_kind)):
            if node not in ids[kind]:
                message = f"{e.type} edge {e.id}: its {end} {node} is no {kind} of {graph.user_id!r}"
                out.append(Violation("edges_within_user", e.id, message))
    return out


def _fold_cycles(graph: UserGraph) -> list[Violation]:
    out = []
    for type_ in _FOLDS:
        into = defaultdict(list)
        for e in _open(graph.edges, type_):
            into[e.src_id].append(e.dst_id)
        for cycle in _cycles(into):
            out.append(
                Violation(
                    "no_merge_cycles",
                    min(cycle),
                    f"{type_} edges form a cycle: {' -> '.join([*cycle, cycle[0]])}",
                )
            )
    return out


def _cycles(into: dict[str, list[str]]) -> list[list[str]]:
    """Cycles of a "folded into" relation, by one depth-first search (at least one per loop)."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    found = []
    for start in sorted(into):
        if start in state:
            continue
        path, stack = [], [(start, iter(sorted(into.get(start, ()))))]
        state[start] = 1
        path.append(start)
        while stack:
            node, nexts = stack[-1]
            nxt = next(nexts, None)
            if nxt is None:
                state[node] = 2
                stack.pop()
                path.pop()
            elif state.get(nxt) == 1:
                found.append(path[path.index(nxt) :])
            elif nxt not in state:
                state[nxt] = 1
                path.append(nxt)
                stack.append((nxt, iter(sorted(into.get(nxt, ())))))
    return found


def _foreign_changes(before: UserGraph, changes: ch.ChangeSet, user_id: str) -> list[Violation]:
    out = []

    def flag(subject: str, message: str) -> None:
        out.append(Violation("changes_within_user", subject, message))

    if changes.user_id != user_id:
        flag(changes.run_id, f"change set {changes.run_id} is for {changes.user_id!r}, not {user_id!r}")
    if before.user_id != user_id:
        flag(changes.run_id, f"the snapshot is {before.user_id!r}'s graph, not {user_id!r}'s")
    known = {kind: {r.id for r in getattr(before, table)} for kind, table in _TABLES.items()}
    for index, op in enumerate(changes.operations):
        name = type(op).__name__
        if type(op) in _ADDS:
            kind, attr = _ADDS[type(op)]
            record = getattr(op, attr)
            if record.user_id != user_id:
                flag(record.id, f"operation {index} ({name}) adds a {kind} of {record.user_id!r}")
            known[kind].add(record.id)
            continue
        if isinstance(op, ch.RemoveCreated):
            kind, target = op.kind, op.id
        else:
            kind, target = _TARGETS[type(op)][0], getattr(op, _TARGETS[type(op)][1])
        if target not in known.get(kind, ()):
            flag(target, f"operation {index} ({name}) targets {kind} {target}, not in {user_id!r}'s graph")
    return out


def _open(edges: list[Edge], type_: EdgeType) -> list[Edge]:
    return [e for e in edges if e.type == type_ and e.tx_to == FAR_FUTURE]
