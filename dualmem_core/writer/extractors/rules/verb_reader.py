"""Reading a clause's verb phrase: aspect, timing, the verb rules, plans and the last-resort drafts.

``VerbReader`` is the lowest layer of the rule extractor: given a clause's subject and the rest of it,
it reads the aspect ("used to", "I'm planning to"), decides whether the clause's dates point ahead or
back, cuts the time expressions out of the verb phrase and runs the rule tables
(``patterns.match_verb_rules``); intentions become ``plans`` facts and ``_finish`` makes every draft a
fact. It is apart from ``clause_reader.py`` because it reads only the phrase and the state handed in.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import cast

from ...facts import Fact
from . import dates
from .assemble import entity_type, finish, proper_entities, reads_future
from .base import Context, Draft
from .clauses import Aspect, Subject, is_past_form, parse_aspect
from .message_state import Clause, MessageState
from .objects import clean, cut, first_to_third, split_items, to_gerund, verb_phrase_base
from .patterns import match_verb_rules

# Progressive verbs of change describe an arrangement, not a state: "I'm moving to Berlin".
_CHANGE_VERB = re.compile(
    r"^(?:moving|relocating|going to|going back to|heading to|flying to|traveling to|travelling to|starting|"
    r"joining|leaving|quitting|getting(?!\s+into\b)|having a baby|adopting|buying|visiting|taking a trip|"
    r"retiring|graduating|switching|changing|marrying|selling|launching|opening|coming to|returning to)\b"
)
# Verbs of a beginning that point forward without "will" when not in the past tense: "I start at Globex
# on Monday", "I'm turning 56 in August" (as "I'll be 56 in August" does). A bare day or month said with
# them is the coming one; with other present verbs ("I work at Globex on Monday") it stays the latest.
# (The progressive "starting"/"moving" are in _CHANGE_VERB already, so they read as plans.)
_SCHEDULED = frozenset("start starts begin begins turn turns turning".split())
_INTENT_VERB = {
    "want": "wants to",
    "hope": "hopes to",
    "think": "is thinking about",
    "try": "is trying to",
    "decide": "decided to",
    "plan": "plans to",
}
_INTENT_CONFIDENCE = {"want": 0.55, "hope": 0.55, "think": 0.45, "try": 0.5, "decide": 0.7, "plan": 0.75}


class VerbReader:
    """The verb-phrase layer of ``extractor.RuleExtractor`` (``clause_reader.ClauseReader`` builds on it)."""

    def _verb_drafts(
        self, rest: str, subject: Subject, clause: Clause, state: MessageState, continuing: bool = False
    ) -> list[tuple[Draft, Aspect]]:
        if rest[:1].isspace() or rest[:1] == ",":  # what ^[\s,]+ needs (\s is str.isspace)
            rest = _LEADING_BLANKS.sub("", rest)
        if subject.end == 0 and rest[:1].isupper():  # a dropped subject: "Started a new job at Figma"
            rest = rest[0].lower() + rest[1:]
        aspect, vp = parse_aspect(rest)
        aspect.hedged = aspect.hedged or clause.hedged
        if continuing and state.previous_past:  # "I was living in X, working as Y": Y is past too
            aspect.past = aspect.progressive = True
        state.previous_past = aspect.past
        first_verb = vp.split(" ", 1)[0] if vp else ""
        past = aspect.past or is_past_form(first_verb)
        if clause.subordinate and not (past or aspect.perfect):
            return []  # "when I move to Berlin": not yet true
        planned = bool(aspect.intent or aspect.future) or (
            aspect.progressive and not aspect.past and bool(_CHANGE_VERB.match(vp))
        )
        if (aspect.modal and not aspect.intent) or (clause.conditional and (planned or aspect.modal)):
            return []
        ahead = planned or (not past and first_verb in _SCHEDULED)
        prefer_future = True if ahead else (False if past else None)
        # The facts' dates (``reads_future``): a past verb reads them back, unless the clause has future
        # words, maybe another verb's ("got a job there, moving over in March"): then guessed, as before.
        dated = clause.dated or clause.text
        aspect.dates_ahead = True if ahead else (False if past and not dates.looks_future(dated) else None)
        times = clause.times(prefer_future, state.now)
        core = _without_times(vp, state.now, prefer_future)
        ctx = Context(
            subject,
            state.speaker,
            aspect,
            times,
            state.now,
            intro=clause.intro,
            work_talk=state.work_talk,
            moved=state.moved,
            people=tuple(state.people),
        )
        if planned:
            ages = match_verb_rules(core, vp, ctx, future_only=True)
            if ages:
                return [(d, aspect) for d in ages]
            plan = self._plan(core, subject, aspect, ctx, state)
            return [(plan, aspect)] if plan else []
        drafts = match_verb_rules(core, vp, ctx)
        if clause.hobby_hint and not any(d.predicate == "hobby" for d in drafts):
            drafts = _free_time_hobbies(core) + drafts
        if not drafts and past and any(t.kind == "point" and t.valid_from for t in times):
            event = _event(core, subject, state.speaker)
            drafts = [event] if event else []
        return [(d, aspect) for d in drafts]

    def _plan(
        self, core: str, subject: Subject, aspect: Aspect, ctx: Context, state: MessageState
    ) -> Draft | None:
        phrase = cut(core, "thing")
        phrase = re.sub(r"^(?:to|on|of|about)\s+", "", phrase)
        if not phrase or not re.match(r"[a-z]", phrase) or len(phrase.split()) > 10:
            return None
        if _NOUN_START.match(phrase):  # "looking forward to my trip to Peru": the plan is a thing
            if not aspect.intent_words:
                return None
            said = first_to_third(phrase) if subject.kind == "speaker" else phrase
            thing = re.sub(r"^(?:a|an|the)\s+", "", said)
            feeling = "is " + re.sub(r"^(?:am|is|are)\s+", "", aspect.intent_words)
            return Draft(
                "plans",
                thing,
                0.6,
                rule="plans.anticipates",
                text=f"{subject.name} {feeling} {said}",
                timing="event",
                kind="none",
                entities=proper_entities(phrase),
            )
        base = verb_phrase_base(phrase)
        if subject.kind == "speaker":
            base = first_to_third(base)
        base = re.sub(r"^be\s+going\s+to\s+", "", base)
        if len(base.split()) <= 3 and re.search(r"\b(?:you|it|that|this|them|him|her|one)$", base):
            return None  # "we'd love to have you": no plan worth remembering
        base = re.sub(r"^go to\s+", "go to ", base)
        inner = match_verb_rules(base, base, Context(subject, state.speaker, Aspect(), [], state.now))
        typed = [(d.object, entity_type(d)) for d in inner if entity_type(d)]  # each type tested, so a str
        entities = cast("list[tuple[str, str]]", typed) or proper_entities(base)
        kind = aspect.intent or "plan"
        verb = _INTENT_VERB.get(kind, "plans to")
        shown = to_gerund(base.split()[0]) + base[len(base.split()[0]) :] if kind == "think" else base
        confidence = 0.75 if not aspect.intent else _INTENT_CONFIDENCE.get(aspect.intent, 0.6)
        negation = " does not plan to" if aspect.negated else f" {verb}"
        return Draft(
            "plans",
            base,
            confidence,
            rule=f"plans.{kind}",
            text=f"{subject.name}{negation} {shown}",
            timing="event",
            kind="none",
            entities=entities,
        )

    # --------------------------------------------------------------------------------- facts

    def _finish(
        self, draft: Draft, subject: Subject, aspect: Aspect, clause: Clause, state: MessageState
    ) -> Fact | None:
        times = clause.times(reads_future(draft, aspect), state.now)
        return finish(
            draft, subject, aspect, times=times, speaker=state.speaker, now=state.now, weight=clause.weight
        )


_LEADING_BLANKS = re.compile(r"^[\s,]+")
_SPACES = re.compile(r"\s+")
_NOUN_START = re.compile(r"(?:my|our|his|her|their|the|a|an|this|that|some)\b")

def _without_times(vp: str, now: datetime, prefer_future: bool | None) -> str:
    out = vp
    for expr in sorted(dates.find_time_expressions(vp, now, prefer_future), key=lambda e: -e.start):
        out = out[: expr.start] + out[expr.end :]
    if _ODD_BLANKS.search(out):  # else every blank run is one space already and the rewrite is a no-op
        out = _SPACES.sub(" ", out)
    out = out.strip(" ,")
    # A dangling word ends the phrase (``$`` could also sit before a final newline, but none is left).
    return _DANGLING.sub("", out) if out.endswith(_DANGLING_WORDS) else out


# What a cut time expression leaves behind: "swimming every Sunday" -> "swimming every".
_DANGLING = re.compile(r"\s+(?:every|each|on|this|last|next|most|since|until|in)$")
_DANGLING_WORDS = ("every", "each", "on", "this", "last", "next", "most", "since", "until", "in")
_ODD_BLANKS = re.compile(r"[^\S ]|  ")  # a blank other than a space, or two in a row


def _free_time_hobbies(core: str) -> list[Draft]:
    """'In my free time I paint and read' -> hobbies painting, reading."""
    out = []
    for part in split_items(cut(core, "thing")):
        words = part.split()
        if not words or not re.fullmatch(r"[a-z]+", words[0]):
            continue
        verb = words[0] if words[0].endswith("ing") else to_gerund(words[0])
        value = clean(" ".join([verb, *words[1:]]), "thing")
        if value:
            out.append(Draft("hobby", value, 0.65, rule="hobby.free_time"))
    return out


def _event(core: str, subject: Subject, speaker: str) -> Draft | None:
    """A dated past happening no other rule understood: 'I ran my first marathon last month'."""
    phrase = cut(core, "thing")
    if not phrase or not re.match(r"[a-z]", phrase) or len(phrase.split()) > 10 or len(phrase.split()) < 2:
        return None
    if re.match(
        r"(?:am|is|are|was|were|been|be|had|have|has|did|do|said|told|thought|felt|wanted)\b", phrase
    ):
        return None
    if subject.kind == "speaker":
        phrase = first_to_third(phrase)
    return Draft(
        "event",
        phrase,
        0.45,
        rule="event.dated",
        timing="event",
        kind="none",
        text=f"{subject.name} {phrase}",
    )
