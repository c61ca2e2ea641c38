"""The same fact told more than once: which triple facts describe one stretch of time.

People repeat themselves with different knowledge of time: "I work at Brightline" in January,
"my last day at Brightline was June 27" in July. The Writer stores two facts with one triple
(user, works_at, Brightline) and two validities, open and ended. They are one fact (one stint
at Brightline), and the telling that knows its end is the better evidence for it. But "I live
in Portland" in 2020 and again in 2024, after a move to Seattle, are two stints: the first
ended when Seattle began.

So two facts with one triple are the same stint when

* their validities overlap (what they say can be true at once; a start the Writer could not
  date, ``EARLIEST``, overlaps whatever ended after it), checked against everything the cluster
  has gathered so far, in the order the facts became true; and
* for a single-valued predicate, no other value came in between (they are in one run of the
  chain the supersede stage builds, in the same order).

A stint's *evidence* is what all its tellings know together: the earliest datable start and
the earliest end. Dedupe folds the later tellings into the first; supersede dates the chain
from the evidence, so the two stages agree.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence, Set
from datetime import datetime, timedelta

from ..timeutil import EARLIEST
from ..vocab import predicates
from .view import GraphView, object_key

Interval = tuple[datetime, datetime]
# A store refuses an empty valid interval: a value ended where it began ends an instant after.
INSTANT = timedelta(microseconds=1)


def original_interval(view: GraphView, memory_id: str) -> Interval:
    """The validity the Writer wrote (the first version): the evidence, before any Editor run."""
    first = view.versions_of[memory_id][0]
    return first.valid_from, first.valid_to


def joined(intervals: Iterable[Interval]) -> Interval:
    """What several tellings of one stint know together: earliest datable start, earliest end."""
    intervals = list(intervals)
    dated = [start for start, _ in intervals if start > EARLIEST]
    return (min(dated) if dated else EARLIEST), min(end for _, end in intervals)


def overlaps(a: Interval, b: Interval) -> bool:
    return max(a[0], b[0]) < min(a[1], b[1])


def chain_order(view: GraphView, memory_id: str) -> tuple:
    """When a fact became true as first told, then when it was first believed (ties)."""
    return (original_interval(view, memory_id)[0], view.first_seen(memory_id))


def fact_slots(view: GraphView, leave_out: Set[str] = frozenset()) -> dict[tuple[str, str], list[str]]:
    """(subject, predicate) -> the triple facts believed or superseded now, oldest first.

    The user's own names count as the user (the Writer calls the speaker "user")."""
    slots: dict[tuple[str, str], list[str]] = defaultdict(list)
    for memory_id, v in view.current.items():
        if v.predicate and v.status in ("active", "superseded") and memory_id not in leave_out:
            slots[(view.fact_subject(memory_id), v.predicate)].append(memory_id)
    for members in slots.values():
        members.sort(key=lambda m: chain_order(view, m))
    return slots


_FUNCTION_WORDS = frozenset("of the and for at de du la le von van".split())


def initials(name: str) -> str:
    """"Woods Hole Oceanographic Institution" -> "WHOI"; "" for a single word."""
    words = [w for w in name.replace("-", " ").split() if w.lower() not in _FUNCTION_WORDS]
    return "".join(w[0] for w in words).upper() if len(words) > 1 else ""


def value_keys(view: GraphView, members: list[str]) -> dict[str, str]:
    """memory -> the key of its value within one slot, an acronym read as the name it stands for
    when exactly one value of the slot has those initials ("WHOI" and "Woods Hole Oceanographic
    Institution" are one employer, not a change of job)."""
    keys = {m: object_key(view.current[m].object) for m in members}
    spelled: dict[str, set[str]] = defaultdict(set)
    for m in members:
        if len(short := initials(view.current[m].object or "")) >= 2:
            spelled[short].add(keys[m])
    for m in members:
        obj = (view.current[m].object or "").strip()
        if obj.isupper() and obj.isalpha() and len(spelled.get(obj, ())) == 1:
            keys[m] = next(iter(spelled[obj]))
    return keys


def stints(view: GraphView, members: list[str]) -> list[list[str]]:
    """Split one slot's facts (in chain order) into stints: lists of tellings of one fact."""
    predicate = view.current[members[0]].predicate
    assert predicate is not None  # members are one slot of fact_slots: facts with a predicate
    single = predicates.is_single_valued(predicate)
    values = value_keys(view, members)
    clusters: list[tuple[tuple[str, bool], list[str], Interval]] = []
    for memory_id in members:
        v = view.current[memory_id]
        key = (values[memory_id], v.negated)
        interval = original_interval(view, memory_id)
        joinable: Sequence[int] = range(len(clusters))
        if single and not v.negated:
            positive = [i for i, (k, _, _) in enumerate(clusters) if not k[1]]
            joinable = positive[-1:]  # a run of one value: only the latest positive value
        for i in reversed(joinable):
            k, tellings, known = clusters[i]
            if k == key and overlaps(known, interval):
                tellings.append(memory_id)
                clusters[i] = (k, tellings, joined([known, interval]))
                break
        else:
            clusters.append((key, [memory_id], interval))
    return [tellings for _, tellings, _ in clusters]


def ended(known: Interval, at: datetime) -> Interval:
    """A value superseded at ``at``: ended then, never before it began (see ``INSTANT``)."""
    start, end = known
    return start, max(min(end, at), start + INSTANT)
