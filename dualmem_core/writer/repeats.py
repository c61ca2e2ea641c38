"""When a repeated sentence is news: "I live in Portland" again, after a move to Seattle.

The Writer folds an exact repeat into the live memory that says the same thing (it only adds
provenance). For a single-valued fact that is wrong when another value began in between: the
user lived in Portland, moved to Seattle, and now lives in Portland again. Until an Editor run
marks the first Portland superseded, it is still live, so the Writer asks the store whether the
same subject took another value since the live memory began. The read happens only for a
repeat of a single-valued fact, which is rare on the write path.
"""

from __future__ import annotations

from collections.abc import Iterable

from ..store import MemoryVersion, SearchFilter, Store
from ..store.models import normalize_text
from . import predicates

RECENT_VALUES = 200  # values of one predicate read, latest first: far more than one subject's history


def changed_since(
    store: Store, user_id: str, live: MemoryVersion, repeat: MemoryVersion, also: Iterable[MemoryVersion] = ()
) -> bool:
    """True when ``repeat`` restates ``live`` after another value of the same single-valued
    predicate and subject began (in the store, or in ``also``: the batch being written)."""
    if not live.predicate or not predicates.is_single_valued(live.predicate) or live.negated:
        return False
    if repeat.valid_from <= live.valid_from:
        return False
    subject, value = normalize_text(live.subject or ""), normalize_text(live.object or "")
    flt = SearchFilter(user_id, statuses=("active", "superseded"))
    stored = store.list_facts(flt, predicates=[live.predicate], limit=RECENT_VALUES)
    for other in [h.version for h in stored] + list(also):
        if (
            other.predicate == live.predicate
            and not other.negated
            and normalize_text(other.subject or "") == subject
            and normalize_text(other.object or "") != value
            and live.valid_from < other.valid_from <= repeat.valid_from
        ):
            return True
    return False
