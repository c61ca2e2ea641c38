"""Proactive recall of intentions (issue 35, L7): the user's open plans coming due.

The Editor's intentions stage (``editor/intentions.py``) keeps each plan as an ``intention`` memory:
predicate ``due`` with ``valid_from`` its due time when the message named a date, ``intends`` with
no due time otherwise; ``object`` its state (``open``, ``done``, ``dropped``). Upcoming are the open
ones due from the start of ``now``'s day (a plan "on Friday" is due all Friday) to ``now + within``.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from ..store import SearchFilter, Store

INTENTION, DATED, OPEN = "intention", "due", "open"
MOST = 1000  # dated intentions read per call, the latest due first


@dataclass(slots=True)
class Intention:
    memory_id: str
    text: str  # the message that said the plan
    due: datetime
    state: str
    sources: list[str]  # the source id of the plan's message


def upcoming(store: Store, user_id: str, now: datetime, within: timedelta) -> list[Intention]:
    """The user's open intentions due between the start of ``now``'s day and ``now + within``,
    soonest first."""
    start, end = now.replace(hour=0, minute=0, second=0, microsecond=0), now + within
    hits = store.list_facts(SearchFilter(user_id, kinds=(INTENTION,), statuses=("active",)),
                            predicates=[DATED], limit=MOST)
    due = [h for h in hits if h.version.object == OPEN and start <= h.version.valid_from <= end]
    sources = store.sources_of(user_id, [h.memory.id for h in due])
    found = [Intention(h.memory.id, h.version.text, h.version.valid_from, OPEN, sources.get(h.memory.id, []))
             for h in due]
    return sorted(found, key=lambda i: (i.due, i.memory_id))
