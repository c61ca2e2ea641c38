"""Verb-phrase rules: what a subject does, is, has, likes, where it lives and works.

Each rule matches the start of a clause's verb phrase after its subject and auxiliaries are gone
("live in Denver", "am a nurse at St. Mary's", "moved to Austin", "hate cilantro"). Verb
alternations list every form ("live|lives|lived|living"), so one rule serves first and third
person and every tense; the tense itself comes from the named group ``v`` and the clause aspect.

Timing tells the extractor how the clause's dates apply: ``state`` facts hold over an interval
(a past-tense state has ended), ``start`` facts begin at the date ("moved to"), ``end`` facts stop
at it ("quit", "sold"), ``event`` facts happened at it, ``none`` ignore dates (a birthday's date is
its object, not its valid time).
"""

from __future__ import annotations

from . import home, people, pets, tastes, work
from .base import Context, Draft, Rule
from .clauses import is_past_form
from .gates import Prefiltered, admits, first_chars

# Each domain module owns its builders and its slice of the table; the order here is only the order facts
# come out in, since every matching rule fires.
VERB_RULES: tuple[Rule, ...] = (*home.RULES, *work.RULES, *people.RULES, *pets.RULES, *tastes.RULES)
# The first characters each rule's pattern can start with (``gates.py``); None: any.
_STARTS = tuple(first_chars(r.pattern) for r in VERB_RULES)
# (first character of the phrase, of the raw phrase, future only) -> the rules that could match, in order,
# each with the strings one of which its every match contains (None: nothing to test).
_CANDIDATES: dict[tuple[str, str, bool], tuple[tuple[Rule, tuple[str, ...] | None], ...]] = {}
_NEEDS: dict[int, tuple[str, ...] | None] = {}  # rule index -> its needed strings, read on first use


def rule_needs(index: int) -> tuple[str, ...] | None:
    """Case-sensitive strings of which every match of rule ``index`` contains one (``gates.py``);
    None when the analysis finds none, or only case-insensitive ones."""
    if index not in _NEEDS:
        needs = Prefiltered(VERB_RULES[index].pattern).needs()
        _NEEDS[index] = needs[0] if needs is not None and not needs[1] else None
    return _NEEDS[index]


def _candidates(
    vp: str, raw_vp: str, future_only: bool
) -> tuple[tuple[Rule, tuple[str, ...] | None], ...]:
    """The rules whose pattern can start with the phrase's first character, in table order."""
    key = (vp[:1], raw_vp[:1], future_only)
    found = _CANDIDATES.get(key)
    if found is None:
        found = _CANDIDATES[key] = tuple(
            (r, rule_needs(i))
            for i, (r, starts) in enumerate(zip(VERB_RULES, _STARTS, strict=True))
            if (r.future_ok or not future_only) and admits(starts, key[1] if r.raw else key[0])
        )
    return found


def match_verb_rules(vp: str, raw_vp: str, ctx: Context, future_only: bool = False) -> list[Draft]:
    """Every rule whose pattern matches the start of the verb phrase, with its drafts."""
    out: list[Draft] = []
    for r, needs in _candidates(vp, raw_vp, future_only):
        text = raw_vp if r.raw else vp
        if needs is not None:  # a phrase lacking every string the rule needs cannot match it
            for s in needs:
                if s in text:
                    break
            else:
                continue
        m = r.pattern.match(text)
        if not m:
            continue
        verb = m.groupdict().get("v")
        ctx.past = is_past_form(verb.split()[0]) if verb else False
        if verb and verb.split()[0] in ("was", "were"):
            ctx.past = True
        for draft in r.build(m, ctx):
            draft.rule = draft.rule or r.name
            draft.past = draft.past or ctx.past
            out.append(draft)
    return out
