"""Turn rule drafts into facts: one place for dates, polarity, wording, confidence and entities.

Every rule proposes drafts the same way, so the decisions that depend on the whole clause live here:
how "used to", "no longer" and past tenses end a fact, which date expression becomes ``valid_from`` or
``valid_to`` for the rule's timing, how hedges and resolved pronouns lower confidence, and which
entities a fact mentions.
"""

from __future__ import annotations

import re
from datetime import datetime

from ....vocab.predicates import object_type, render
from ...facts import Fact
from . import dates
from .base import Draft
from .clauses import Aspect, Subject
from .lexicon import is_place
from .objects import first_to_third, place_title


def finish(
    draft: Draft,
    subject: Subject,
    aspect: Aspect,
    *,
    times: list[dates.TimeExpression],
    speaker: str,
    now: datetime,
    weight: float = 1.0,
) -> Fact | None:
    """The fact a draft becomes once the clause's polarity, tense, dates and hedges are applied.

    ``times`` are the clause's time expressions read as ``reads_future`` says; ``weight`` scales
    confidence (reported speech).
    """
    who = draft.subject or subject.name
    value = place_title(draft.object.strip())
    if who == speaker and value[:1].islower():
        value = first_to_third(value)  # "spending time with my family" -> "... with their family"
    if not value:
        return None
    timing = draft.timing
    negated = aspect.negated if draft.negated is None else draft.negated
    if draft.subject and draft.subject != subject.name:
        negated = bool(draft.negated)  # a mention's polarity does not follow the clause verb
    ended = draft.ended or (timing != "none" and aspect.ended)
    if negated and aspect.ended and draft.predicate != "eats":
        negated = False  # "not ... anymore": it held and stopped
    elif negated:
        ended = False  # "I never lived in Texas" is a negative fact, not an ended one
    elif timing == "state" and (draft.past or aspect.past) and not aspect.perfect:
        ended = True  # "I lived in Paris": a past state is over
    valid_from, valid_to = _interval(draft, timing, ended, times, now)
    confidence = draft.confidence * subject.weight * weight
    if aspect.hedged:
        confidence *= 0.85
    wording = draft.text if draft.text and not (negated and draft.negated is None) else None
    if wording is None or (ended and timing != "none" and "graduated" not in wording):
        wording = render(who, draft.predicate, value, negated, ended)
    fact = Fact(
        text=wording,
        subject=who,
        predicate=draft.predicate,
        object=value,
        valid_from=valid_from,
        valid_to=valid_to,
        negated=negated,
        confidence=round(max(0.05, min(0.99, confidence)), 2),
        entities=_entities(draft, who, value, subject, speaker),
        rule=draft.rule,
    )
    if subject.co_subject and draft.subject is None and fact.predicate not in ("name", "nickname", "age"):
        return _with_co_subject(fact, subject)
    return fact


def reads_future(draft: Draft, aspect: Aspect) -> bool | None:
    """How a bare "in April" in the draft's clause reads: the future for plans, else as its verb says."""
    return True if (aspect.future or aspect.intent or draft.predicate == "plans") else aspect.dates_ahead


def _interval(
    draft: Draft, timing: str, ended: bool, found: list[dates.TimeExpression], now: datetime
) -> tuple[datetime | None, datetime | None]:
    if timing == "none":
        return None, (now if ended else None)
    point = next((t for t in found if t.kind == "point" and t.valid_from), None)
    since = next((t for t in found if t.kind in ("since", "duration") and t.valid_from), None)
    span = next((t for t in found if t.kind == "range"), None)
    until = next((t for t in found if t.kind == "until" and t.valid_to), None)
    valid_from = valid_to = None
    if timing == "end":
        valid_to = (
            (point.valid_from if point else None)
            or (until.valid_to if until else None)
            or (span.valid_to if span else None)
        )
        valid_from = (
            span.valid_from if span else (since.valid_from if since and since.kind == "since" else None)
        )
    else:
        if since and not (ended and since.kind == "duration"):
            valid_from = since.valid_from
        elif span:
            valid_from = span.valid_from
        elif point:
            valid_from = point.valid_from
        valid_to = (until.valid_to if until else None) or (span.valid_to if span else None)
        if timing == "state" and ended and point and not since and not span and valid_to is None:
            valid_to = point.period_end
    if ended and valid_to is None:
        valid_to = now
    if valid_from and valid_to and valid_to <= valid_from:
        valid_from = None
    return valid_from, valid_to


def entity_type(draft: Draft) -> str | None:
    kind = draft.kind or object_type(draft.predicate)
    if kind in ("none", "value"):
        return None
    if kind in ("person", "pet") and not draft.object[:1].isupper():
        return None
    if kind == "place" and not draft.object[:1].isupper():
        return None
    if kind == "thing" and len(draft.object.split()) > 4:
        return None
    return kind


def _entities(draft: Draft, who: str, value: str, subject: Subject, speaker: str) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    if who != speaker and "'s " not in who and who[:1].isupper():
        out.append((who, "pet" if subject.kind == "pet" and who == subject.name else "person"))
    if (kind := entity_type(draft)) is not None:
        out.append((value, kind))
    for name, kind in draft.entities:
        if name and (name, kind) not in out:
            out.append((name, kind))
    return out


def _with_co_subject(fact: Fact, subject: Subject) -> Fact:
    """'My wife and I moved to Denver': the statement holds for both; the partner copy is kept in entities."""
    co = subject.co_subject or ""
    if co and "'s " not in co and all(name != co for name, _ in fact.entities):
        fact.entities.append((co, subject.co_kind))
    return fact


_CAPITALISED_RUN = re.compile(r"\b[A-Z][\w'.-]*(?:\s+[A-Z][\w'.-]*)*")


def proper_entities(text: str) -> list[tuple[str, str]]:
    """Known places named in free text ("a trip to Peru" -> Peru)."""
    out = []
    for m in _CAPITALISED_RUN.finditer(text):
        if is_place(m[0]):
            out.append((m[0], "place"))
    return out


def dedupe(facts: list[Fact]) -> list[Fact]:
    """One fact per (subject, predicate, object, polarity), keeping the most confident."""
    best: dict[tuple[str, str, str, bool], Fact] = {}
    for fact in facts:
        key = (fact.subject.lower(), fact.predicate, fact.object.lower(), fact.negated)
        kept = best.get(key)
        if kept is None:
            best[key] = fact
            continue
        for entity in fact.entities:
            if entity not in kept.entities:
                kept.entities.append(entity)
        if fact.confidence > kept.confidence:
            fact.entities = kept.entities
            best[key] = fact
    return list(best.values())
