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

from . import home, people, tastes, work
from .base import Context, Draft, Rule
from .clauses import is_past_form

# Each domain module owns its builders and its slice of the table; the order here is only the order facts
# come out in, since every matching rule fires.
VERB_RULES: tuple[Rule, ...] = (*home.RULES, *work.RULES, *people.RULES, *tastes.RULES)


def match_verb_rules(vp: str, raw_vp: str, ctx: Context, future_only: bool = False) -> list[Draft]:
    """Every rule whose pattern matches the start of the verb phrase, with its drafts."""
    out: list[Draft] = []
    for r in VERB_RULES:
        if future_only and not r.future_ok:
            continue
        m = r.pattern.match(raw_vp if r.raw else vp)
        if not m:
            continue
        verb = m.groupdict().get("v")
        ctx.past = bool(verb) and is_past_form(verb.split()[0])
        if verb and verb.split()[0] in ("was", "were"):
            ctx.past = True
        for draft in r.build(m, ctx):
            draft.rule = draft.rule or r.name
            draft.past = draft.past or ctx.past
            out.append(draft)
    return out
