"""The shapes shared by every rule: what a rule sees (``Context``) and what it proposes (``Draft``).

A rule is a compiled pattern plus a small builder. Builders return drafts rather than facts: the
extractor turns drafts into facts in one place, so subject resolution, tense, dates, confidence
adjustments and entity typing are applied the same way whatever rule fired.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime

from .clauses import Aspect, Subject
from .dates import TimeExpression
from .objects import clean, split_items


@dataclass(slots=True)
class Draft:
    """A proposed fact before dates, polarity and confidence adjustments are applied."""

    predicate: str
    object: str
    confidence: float
    rule: str = ""
    kind: str = ""  # entity type of the object; "" = the predicate's, "none" = no entity
    subject: str | None = None  # overrides the clause subject (relation facts are about the owner)
    text: str | None = None  # wording when the rendered template would lose detail
    negated: bool | None = None  # overrides the clause polarity
    timing: str = "state"  # how the clause's dates apply: state | start | end | event | none
    past: bool = False  # the verb itself was in the past tense
    ended: bool = False  # the rule knows it has ended ("my ex-wife", "I sold my car")
    entities: list[tuple[str, str]] = field(default_factory=list)  # beyond subject and object


@dataclass(slots=True)
class Context:
    """What a builder may consult besides its match."""

    subject: Subject
    speaker: str
    aspect: Aspect
    times: list[TimeExpression]
    now: datetime  # when the message was said
    intro: bool = False  # first clause of the message, or right after a greeting
    work_talk: bool = False  # the message speaks of jobs: "I'm with Telstra" names an employer
    moved: bool = False  # the message speaks of a move: "we're in Sheffield now" is then a home
    people: tuple[str, ...] = ()  # people named in the message so far: "I'm with Sarah" is not an employer
    past: bool = False  # the matched verb is a past form (set per match)

    @property
    def is_speaker(self) -> bool:
        return self.subject.kind == "speaker"

    def has_time(self, *kinds: str) -> bool:
        return any(t.kind in kinds for t in self.times)


Builder = Callable[[re.Match[str], Context], list[Draft]]


@dataclass(frozen=True, slots=True)
class Rule:
    name: str
    pattern: re.Pattern[str]
    build: Builder
    raw: bool = False  # match the verb phrase before time expressions are cut: dates are its object
    future_ok: bool = False  # also applies to future/intended clauses ("I'll be 40 next month")


def items(
    predicate: str,
    raw: str | None,
    kind: str,
    confidence: float,
    *,
    timing: str = "state",
    listable: bool = False,
    accept: Callable[[str], bool] | None = None,
) -> list[Draft]:
    """Drafts for the cleaned object(s) in ``raw``; ``listable`` splits "X, Y and Z" into three."""
    if not raw:
        return []
    clean_kind = "thing" if listable and kind not in ("person", "pet") else kind
    value = clean(raw, clean_kind)
    if value is None:
        return []
    parts = split_items(value) if listable else [value]
    out = []
    part: str | None  # a listed part may clean to nothing
    for part in parts:
        if listable and _NOT_AN_ITEM.match(part):
            continue  # "pork, never have": a comment, not a second item
        if listable:
            part = (
                clean(part, kind)
                if kind in ("place", "organization", "person", "pet")
                else clean(part, "thing")
            )
            if part is None or len(part.split()) > 6:
                continue
        if accept is not None and not accept(part):
            continue
        out.append(Draft(predicate, part, confidence, timing=timing))
    return out


_NOT_AN_ITEM = re.compile(
    r"(?:never|not|no|always|have|has|had|did|do|does|was|were|is|are|am|love|loves|hate|hates|like|likes|"
    r"enjoy|enjoys|prefer|prefers)\b",
    re.I,
)


def rule(
    name: str, pattern: str, build: Builder, *, flags: int = 0, raw: bool = False, future_ok: bool = False
) -> Rule:
    return Rule(name, re.compile(pattern, flags), build, raw, future_ok)
