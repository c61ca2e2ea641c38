"""Stage 2, supersede: a newer value of a single-valued fact ends the older one.

Facts are grouped by subject and predicate (the user's own name counts as "user"). For a
single-valued predicate (lives in, works at, spouse, age, favourite X: see
``vocab/predicates.py``) the facts of a group, ordered by when they became true, form a chain:
each run of the same value is ended where the next value begins, gets status ``superseded``
and a ``SUPERSEDES`` edge from the fact that replaced it. The chain is recomputed from the
Writer's own valid times, joined over a fact's repeats (its ``DUPLICATE_OF`` copies: "my last
day at Brightline was June 27" ends "I work at Brightline"; see ``stints.py``), so a fact told
late about an earlier period slots into its place (it ends the value before it and is ended by
the one after it) instead of superseding the present, and a rerun changes nothing. A group is
revisited when something new arrives in it (a repeat of a member too), or when a superseded
member lost its successor (forgotten since): the chain heals.

Multi-valued predicates (likes, has a pet, visited) never supersede on a different value. For
any predicate, a negated fact ("doesn't eat meat anymore") ends the same positive fact that
held when it was said, and a status of having no partner ("user is single", told for "we broke
up") ends the partner or marriage that held when it began (``ENDED_BY_STATUS``).

Then the user's own messages, triple or not (``replaced.py``): a later message that changes
what an earlier one said supersedes it ("left the bakery!!" ends "work at a bakery"), and a
message saying a fact changed ends that fact too; the chain keeps such an ending.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence, Set

from ..store import EdgeType
from ..store import changes as ch
from ..store.models import WRITER, Edge
from ..vocab import predicates
from .config import EditorConfig
from .decisions import Decision, Revise, StageResult, edge
from .judge import Judge
from .replaced import replaced
from .stints import Interval, ended, fact_slots, joined, original_interval, value_keys
from .told_anew import told_anew
from .view import GraphView, object_key

STAGE = "supersede"
# Two values with the same start told in two messages ("moved to Boston last month", then "to
# Chicago last month"): the one told later (by first belief, then id) holds, and the other ends
# an instant after it began (``stints.INSTANT``). Told in one message, both stay (``_said_together``).
# A status saying the subject has no partner (any more) ends the partner facts that held when it
# began: "Nadia and I broke up on Tuesday" is told as "user is single" from Tuesday. Being
# divorced or widowed ends a marriage only: a partner may have come since.
ENDED_BY_STATUS = {
    "partner": frozenset({"single"}),
    "spouse": frozenset({"single", "divorced", "widowed", "separated"}),
}


# Predicates whose value only grows with time: a number below an earlier-begun one means the
# earlier one was dated too early, not that the value went down (``_out_of_order``).
GROWING = frozenset({"age"})


def supersede(
    view: GraphView,
    copies: dict[str, str] | None = None,
    config: EditorConfig | None = None,
    judge: Judge | None = None,
) -> StageResult:
    """``copies``: copy -> canonical, the memories the dedupe stage of this run folds away
    (left out here; their validity counts as evidence for their canonical).

    Then the user's messages: a later one that changes what an earlier one said supersedes it,
    with or without a triple (``replaced.py``)."""
    result = StageResult(STAGE)
    copies = copies or {}
    copies_of: dict[str, list[str]] = defaultdict(list)
    for e in view.open_edges(EdgeType.DUPLICATE_OF):
        copies_of[e.dst_id].append(e.src_id)
    for copy, canonical in copies.items():
        copies_of[canonical].append(copy)
    evidence = {
        canonical: joined(original_interval(view, m) for m in [canonical, *tellings] if m in view.current)
        for canonical, tellings in copies_of.items()
        if canonical in view.current
    }
    groups = fact_slots(view, leave_out=set(copies))
    new = set(view.new_memory_ids()) | {copies[c] for c in copies}  # a canonical given a repeat
    # older memory -> memories with an open SUPERSEDES edge to it
    existing: dict[str, set[str]] = defaultdict(set)
    # older memory -> its open SUPERSEDES edges, read once: a revisited group looks up its own
    # members' edges, not every edge of the graph per member (that grew as members x edges)
    edges_into: dict[str, list[Edge]] = defaultdict(list)
    told_ended: dict[str, set[str]] = defaultdict(set)  # fact -> messages that said it changed
    for e in view.open_edges(EdgeType.SUPERSEDES):
        existing[e.dst_id].add(e.src_id)
        edges_into[e.dst_id].append(e)
        if e.src_id in view.current and view.memories[e.src_id].kind == "observation":
            told_ended[e.dst_id].add(e.src_id)
    for (subject, predicate), members in groups.items():
        statuses = [
            m
            for m in groups.get((subject, "relationship_status"), ())
            if not view.current[m].negated
            and object_key(view.current[m].object) in ENDED_BY_STATUS.get(predicate, ())
        ]
        orphaned = any(
            view.current[m].status == "superseded" and not existing[m] & view.current.keys() for m in members
        )  # its successor was forgotten: the chain must heal
        if not orphaned and not new.intersection(members + statuses):
            continue  # incremental: only groups something new arrived in
        nicknames = groups.get((subject, "nickname"), ())
        other_names = _other_names(view, nicknames) if predicate == "name" else set()
        desired = _desired(view, members, evidence, statuses, other_names, told_ended)
        for memory_id in members:
            status, valid, superseded_by = desired[memory_id]
            decision = _decide(view, memory_id, status, valid, superseded_by, existing[memory_id],
                               edges_into.get(memory_id, ()))
            if decision is not None:
                result.decisions.append(decision)
    successors: dict[str, set[str]] = defaultdict(set)  # fact -> facts superseding it after this run
    for older, by in existing.items():
        successors[older] |= by
    for d in result.decisions:
        if d.action == "supersede":
            successors[d.subject] |= {op.edge.src_id for op in d.ops if isinstance(op, ch.AddEdge)}
        elif d.action == "restore":
            successors[d.subject].clear()
    config = config or EditorConfig()
    _fold(view, result, replaced(view, config, judge, successors))
    decided = {d.subject for d in result.decisions} | {
        op.memory_id for d in result.decisions for op in d.ops if isinstance(op, Revise)}
    result.decisions += told_anew(view, config, decided, successors)
    return result


def _fold(view: GraphView, result: StageResult, told: list[Decision]) -> None:
    """Add the decisions about messages. One that only follows a fact decision of this run (the
    message that told the fact, superseded by the message that told its successor, or restored
    with it) joins that decision: one change, shown once, applied together."""
    told_in = defaultdict(set)  # memory -> the episodes the Writer linked it to
    for e in view.open_edges(EdgeType.FROM):
        if e.created_by == WRITER:
            told_in[e.src_id].add(e.dst_id)
    facts = [d for d in result.decisions if view.memories[d.subject].kind == "fact"]
    for d in told:
        host = next((
            f for f in facts
            if f.action == d.action and told_in[f.subject] & told_in[d.subject]
            and (d.target is None or (f.target is not None and told_in[f.target] & told_in[d.target]))
        ), None)
        if host is None or d.action not in ("supersede", "restore"):
            result.decisions.append(d)
        else:
            host.ops += d.ops
            host.evidence["message"] = f"{d.reason}: {view.current[d.subject].text[:60]}"


def _other_names(view: GraphView, nicknames: Sequence[str]) -> set[str]:
    return {object_key(view.current[m].object) for m in nicknames if not view.current[m].negated}


def _same_person_named(values: dict[str, str], m: str, others: Set[str]) -> bool:
    """A name that is a nickname of the subject ("Bia" for Beatriz Carvalho), or part of another
    name told ("Beatriz"), names the same person: it neither ends nor is ended by the full name."""
    words = set(values[m].split())
    return values[m] in others or any(words < set(v.split()) for n, v in values.items() if n != m)


def _desired(
    view: GraphView, members: list[str], evidence: dict[str, Interval], statuses: Sequence[str] = (),
    other_names: Set[str] = frozenset(),
    told_ended: dict[str, set[str]] | None = None,
) -> dict[str, tuple[str, Interval, set[str]]]:
    """memory -> (status, validity, memories that supersede it) the group should have.

    ``members`` come in chain order; a memory's evidence is the validity its tellings wrote;
    ``statuses`` are facts that end every value of the group holding when they begin;
    ``other_names`` (for the ``name`` predicate) the subject's nicknames; ``told_ended`` the
    messages that said a fact changed, with no triple (``replaced.py``): they end it too."""
    known = {m: evidence.get(m) or original_interval(view, m) for m in members}
    values = value_keys(view, members)
    out: dict[str, tuple[str, Interval, set[str]]] = {m: ("active", known[m], set()) for m in members}
    positive = [m for m in members if not view.current[m].negated]
    predicate = view.current[members[0]].predicate
    assert predicate is not None  # members are one slot of fact_slots: facts with a predicate
    if predicate == "name":
        positive = [m for m in positive if not _same_person_named(values, m, other_names)]
    if predicates.is_single_valued(predicate):
        segments: list[list[str]] = []
        for m in positive:
            if segments and values[segments[-1][0]] == values[m]:
                segments[-1].append(m)
            else:
                segments.append([m])
        misplaced = _out_of_order(predicate, [values[s[0]] for s in segments])
        for i, segment in enumerate(segments[:-1]):
            # A value told out of order ends nothing: the next value in order does.
            successor = next((s[0] for j, s in enumerate(segments[i + 1 :], i + 1) if j not in misplaced),
                             segments[i + 1][0])
            begins = original_interval(view, successor)[0]
            for m in segment:
                if _said_together(view, m, successor):
                    continue  # one message, two values from the same moment: neither is news
                out[m] = ("superseded", ended(known[m], begins), {successor})
    enders = [(n, True) for n in members if view.current[n].negated] + [(n, False) for n in statuses]
    for n, same_value_only in enders:
        said = original_interval(view, n)[0]
        for m in positive:
            status, valid, by = out[m]
            held = known[m][0] <= said < valid[1]
            same = values[m] == values.get(n)
            if held and (same or not same_value_only):
                out[m] = ("superseded", ended(known[m], said), by | {n})
    # The other way round: a value said again after its negation ("I don't eat pork", later "so
    # I guess I eat pork now"; "not married", later "married Tasha") ends the negation.
    for n in positive:
        said = original_interval(view, n)[0]
        for m in (m for m in members if view.current[m].negated and values[m] == values[n]):
            status, valid, by = out[m]
            if known[m][0] < said < valid[1]:
                out[m] = ("superseded", ended(known[m], said), by | {n})
    for m in positive:
        for n in sorted((told_ended or {}).get(m, ())):
            said = view.current[n].valid_from
            status, valid, by = out[m]
            if known[m][0] <= said:
                out[m] = ("superseded", ended(valid if status == "superseded" else known[m], said), by | {n})
    return out


def _out_of_order(predicate: str, values: list[str]) -> set[int]:
    """Positions in a chain of values (ordered by when they began) of a predicate that only grows
    (``GROWING``: an age) whose value is above one that began after it: a telling dated too early
    (by an extractor that read "41 in May", told in March, as 41 since last May; the rule Writer
    reads it forward, an LLM extractor or a memory stored earlier may not). Such a value
    ends nothing: it and the value before it are ended by the next value in order, so
    39 -> 41 -> 40 chains as 39 -> 40 and 41 -> 40."""
    if predicates.canonical(predicate) not in GROWING:
        return set()
    numbers = [_number(v) for v in values]
    return {
        i for i, n in enumerate(numbers)
        if n is not None and any(m is not None and m < n for m in numbers[i + 1 :])
    }


def _number(value: str) -> float | None:
    try:
        return float(value)
    except ValueError:
        return None


def _said_together(view: GraphView, older: str, newer: str) -> bool:
    """Both values come from one message and begin at the same moment ("call me Bia; only my mum
    calls me Beatriz"): an extraction that read two values where one was meant, or two that hold
    at once. Superseding either by the order they were read in would be a guess; both stay."""
    return (original_interval(view, older)[0] == original_interval(view, newer)[0]
            and bool(set(view.sources.get(older, ())) & set(view.sources.get(newer, ()))))


def _decide(
    view: GraphView, memory_id: str, status: str, valid: Interval, successors: set[str], linked: set[str],
    edges_into: Sequence[Edge] = (),
) -> Decision | None:
    """``linked``: the memories with an open SUPERSEDES edge to it; ``edges_into``: those edges."""
    current = view.current[memory_id]
    ops: list = []
    if (current.status, current.valid_from, current.valid_to) != (status, *valid):
        fields = {"status": status, "valid_from": valid[0], "valid_to": valid[1]}
        ops.append(Revise(memory_id, current.id, fields))
    ops += [edge(view, EdgeType.SUPERSEDES, s, memory_id) for s in sorted(successors - linked)]
    gone = linked - successors
    stale = {e.id for e in edges_into if e.src_id in gone} if gone else set()
    ops += [ch.CloseEdge(edge_id) for edge_id in sorted(stale)]
    if not ops:
        return None
    if status == "superseded":
        action, reason = "supersede", "single-valued, newer value"
    elif current.status == "active" and not stale:
        action, reason = "redate", "its repeats know its dates"  # "my last day there was June 27"
    else:
        action, reason = "restore", "chain changed"
    evidence = {
        "predicate": current.predicate,
        "object": current.object,
        "valid_from": valid[0].date().isoformat(),
        "valid_to": valid[1].date().isoformat(),
        "by": ", ".join(view.current[s].object or "" for s in sorted(successors)),
    }
    return Decision(action, memory_id, reason, min(successors) if successors else None, evidence, ops)
