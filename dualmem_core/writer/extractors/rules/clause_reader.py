"""Reading one clause: the layer of the rule extractor between a message's clauses and its verb rules.

``ClauseReader`` resolves what a clause leans on ("there", "moved here", "when ..." after "until 2015",
a leading time adverbial), reads reported speech ("Sarah told me ..."), noun-phrase and possessive
drafts, the subject (or the "I'm" chat drops), and leaves the people, pets and places it named for the
next clause. It is apart from the message loop (``extractor.py``) and from the verb phrase's reading
(``verb_reader.py``); the regexes here are the ones only the clause reading uses.
"""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import datetime

from ...facts import Fact
from . import dates
from .assemble import proper_entities
from .base import Draft
from .clause_split import COMPLEMENT_START, ONWARD, bare_job
from .clauses import Aspect, Subject, parse_subject
from .gates import prefiltered
from .message_state import Clause, MessageState
from .noun_phrases import here_in, relation_mentions
from .possessives import possessive_drafts
from .preprocess import IRREALIS, TEMPORAL, is_non_statement
from .speaker_statements import speaker_drafts
from .verb_reader import VerbReader

_REPORTED = re.compile(
    r"\s+(?P<verb>said|says|told me|tells me|mentioned|mentions|texted me|wrote|explained|announced|"
    r"confirmed|let me know|informed me|told us|thinks|believes|feels|wishes|hopes|suspects|claims|"
    r"claimed|told (?:her|him|them|everyone|everybody|people|(?:my|our|his|her) [a-z]+|[A-Z][a-z]+))"
    r"\s+(?:that\s+)?"
)
_OPINION = frozenset({"thinks", "believes", "feels", "wishes", "hopes", "suspects", "claims", "claimed"})
_FREE_TIME = re.compile(r"^(?:in|during)\s+(?:my|our|his|her)\s+(?:free|spare|down)\s+time\s*,?\s*", re.I)
# In "when I was 10 we moved", the second subject pronoun starts the main clause.
_MAIN_AFTER_SUBORDINATE = re.compile(r"(?<=[a-z0-9])\s(?=(?:I|we|he|she|they)\s+[a-z])")
# "My brother and his wife live in Ohio": the second conjunct shares the statement.
_CONJUNCT = re.compile(
    r"^\s*,?\s*and\s+(?:(?:his|her|their|my|our)\s+[a-z-]+|(?P<name>[A-Z][a-z]+))\s+(?=[a-z])"
)
# "James, who I met in college, lives in Boston": the relative clause says nothing about the verb.
_RELATIVE_CLAUSE = re.compile(r",\s*(?:who|whom|whose|which)\b[^,]+,")


class ClauseReader(VerbReader):
    """The clause layer of ``extractor.RuleExtractor``: ``_clause`` reads one clause into facts."""

    # -------------------------------------------------------------------------------- clauses

    def _clause(self, clause: Clause, state: MessageState) -> list[Fact]:
        text = clause.text
        if not text or IRREALIS.match(text):
            return []
        if is_non_statement(text):  # a request, except the speaker's "please call me Sam"
            return [
                f
                for d in speaker_drafts(text, state.speaker, clause.intro)
                if (f := self._finish(d, Subject(state.speaker, "speaker", 0), Aspect(), clause, state))
            ]
        if m := TEMPORAL.match(text):
            clause.subordinate = True
            text = text[m.end() :]
            main = _MAIN_AFTER_SUBORDINATE.search(text)
            if main:  # "When I was 10 we moved to Ohio": two clauses without a comma
                head = replace(clause, text=text[: main.start()], found={})
                tail = replace(clause, text=text[main.start() + 1 :], subordinate=False, found={})
                return self._clause(head, state) + self._clause(tail, state)
        if m := _FREE_TIME.match(text):
            clause.hobby_hint = True
            text = text[m.end() :]
        if state.last_place and " there" in text:
            text = _THERE.sub(lambda t: _there(t, state.last_place or ""), text)
        if state.last_place and not state.away and " here" in text:  # "im in Newcastle, moved here in May"
            text = _MOVED_HERE.sub(f"moved to {state.last_place}", text)
        continuing = clause.inherits and bool(_GERUND_START.match(text))
        clause.dated = text
        if continuing and state.previous_dated and not dates.find_time_expressions(text, state.now):
            clause.dated = (
                f"{state.previous_dated} , {text}"  # "back in 2023 I was living in X, working as Y"
            )
        until, state.until = state.until, ""
        if until and clause.conjunction == "when" and not dates.find_time_expressions(text, state.now):
            clause.dated = f"{text} {until}"  # "lived there until 2015 when we moved to Reno": in 2015
        if "until" in text or "till" in text:
            state.until = _until_time(text, state.now)
        text = _skip_leading_time(text, state.now)
        clause.text = text
        if state.last_pet and (m := _PET_CALLED.match(text)):  # "I adopted a cat! she's called Biscuit"
            pet = state.last_pet
            state.last_pet = None
            said = f"{state.speaker} has a {pet} named {m['name']}"
            draft = Draft("pet", m["name"], 0.85, rule="pet.called", text=said)
            fact = self._finish(draft, Subject(state.speaker, "speaker", 0), Aspect(), clause, state)
            return [fact] if fact else []
        named = (
            m["name"]
            if (m := _NAME_IS.match(text)) and state.referent is None and not state.last_pet
            else None
        )

        reported = self._reported(clause, state)
        if reported is not None:
            return reported

        speaker = state.speaker
        referent = state.referent  # before this clause's own mentions make "she" ambiguous
        drafts: list[tuple[Draft, Subject, Aspect]] = []
        plain = Subject(speaker, "speaker", 0)
        for draft in relation_mentions(text, speaker, referent):
            drafts.append((draft, plain, Aspect()))
        possessives = possessive_drafts(text, speaker, referent, state.now, state.last_pet, state.antecedent)
        if possessives:  # "my favourite band was Oasis": the clause's tense, tested once for all drafts
            said_past = _WAS_WERE.search(text) is not None
            drafts += [(draft, plain, Aspect(past=said_past)) for draft in possessives]
        for draft in speaker_drafts(text, speaker, clause.intro):
            drafts.append((draft, plain, Aspect()))
        for draft, _, _ in drafts:
            if draft.predicate in (
                "sibling",
                "parent",
                "child",
                "relative",
                "friend",
                "colleague",
                "knows",
                "partner",
                "spouse",
            ):
                state.people.append(draft.object)

        text = _RELATIVE_CLAUSE.sub("", _AGE_ASIDE.sub("", text))
        if clause.inherits and not state.copula and state.previous and state.previous.kind == "speaker":
            state.copula = "am now" if _NOW_IN.match(clause.said) else ""  # "Left Sydney, now in Melbourne"
        if clause.inherits and state.motion and _ONWARD_TO.match(text):  # "... and then to Cranston"
            text = f"{state.motion} {text}"
        bare = bool(COMPLEMENT_START.match(text) or bare_job(text))
        complement = clause.inherits and bool(state.copula) and bare
        subject = None if complement else parse_subject(text, speaker, referent)
        if subject is None and not clause.inherits and (m := _LEAD_IN.match(text)):
            subject = parse_subject(text[m.end() :], speaker, referent)  # "fair warning I'm allergic to ..."
            text = text[m.end() :] if subject else text
        rest = text[subject.end :] if subject else ""
        partner: Subject | None = None
        if subject is not None and (m := _CONJUNCT.match(rest)):
            rest = rest[m.end() :]
            if m["name"] and subject.kind != "speaker" and parse_subject(m["name"], speaker, None):
                partner = Subject(m["name"], "person", 0, 0.9)
        if subject is None and _dropped_copula(clause, state, text):
            # Chat drops "I'm" as often as "I": "single again lol", "vegan now", "back in Toronto since
            # the 10th!" read as the speaker's, with the copula the complement needs.
            subject, rest = plain, f"am {text}"
        if subject is None and clause.inherits and state.previous is not None:
            subject, rest = state.previous, text
            if state.copula and COMPLEMENT_START.match(text):  # "I'm 29, from Kilkenny": "am from Kilkenny"
                kept = m[1] if (m := _STILL_NOW.match(clause.said)) else ""  # "..., still in Manchester"
                rest = f"{state.copula} {kept} {text}"
            elif state.copula and bare_job(text):  # "I'm Ana, 34, nurse in Lisbon": "am a nurse in Lisbon"
                rest = f"{state.copula} a {text}"
        else:
            state.copula = m[1] if subject is not None and (m := _COPULA_START.match(rest)) else ""
        state.motion = m[0] if subject is not None and (m := _MOTION.search(rest)) else ""
        if subject is not None and subject.kind == "speaker" and not state.away and " here in " in text:
            drafts += [(d, plain, Aspect()) for d in here_in(text, speaker)]
        if subject is None and not clause.inherits and _SOMEONE_ELSE.search(text):
            state.previous = None  # "roommate Hannah, she is lovely and works as a nurse": not my job
        if subject is not None:
            state.previous = subject
            if subject.kind in ("person", "relative") and subject.name != speaker and rest.strip():
                state.people.append(subject.name)
                state.antecedent = subject.name if subject.kind == "person" else state.antecedent
            verb_drafts = self._verb_drafts(rest, subject, clause, state, continuing)
            drafts += [(d, subject, aspect) for d, aspect in verb_drafts]
            if partner is not None:  # "Sarah and Tom live in Berlin": the same holds for Tom
                drafts += [(d, partner, a) for d, a in self._verb_drafts(rest, partner, clause, state)]
        for draft, _, _ in drafts:
            if draft.predicate == "pet" and draft.object[:1].islower() and not draft.negated:
                state.last_pet = draft.object
            if draft.predicate in ("lives_in", "visited", "from") and draft.object[:1].isupper():
                state.last_place = draft.object
        for place, _ in proper_entities(text):
            state.last_place = place
        if (m := BE_IN_PLACE.search(text)) and not state.away:
            state.last_place = m["o"]  # "im in Newcastle, moved here in September": here is Newcastle
        state.previous_dated = clause.dated or clause.text
        if named:
            state.people.append(named)  # "her name is Jess, she's a researcher": Jess is "she" from here on
            state.named = named
        drafts += _partner_named(drafts, state, plain)
        return [f for d, s, a in drafts if (f := self._finish(d, s, a, clause, state)) is not None]

    def _reported(self, clause: Clause, state: MessageState) -> list[Fact] | None:
        """'Sarah told me she got a job at Acme': the embedded clause is about Sarah, not the speaker."""
        m = _REPORTED.search(clause.text)
        if not m or m.start() == 0:
            return None
        who = clause.text[: m.start()]
        reporter = parse_subject(who, state.speaker, state.referent)
        if reporter is None or reporter.end < len(who.rstrip()):
            return None
        if m["verb"] in _OPINION:
            return []  # someone's belief about anyone is not a fact to remember
        embedded = Clause(
            text=clause.text[m.end() :],
            intro=False,
            hedged=clause.hedged,
            conditional=clause.conditional,
            subordinate=False,
            inherits=False,
            weight=0.9 if reporter.kind != "speaker" else 1.0,
        )
        if reporter.kind == "speaker":
            return self._clause(embedded, state)
        if reporter.kind == "person":
            state.people.append(reporter.name)  # "Kat says ... but she's a Coldplay person": she is Kat
        inner = MessageState(state.speaker, state.now, [reporter.name])
        return self._clause(embedded, inner)


_COPULA_START = re.compile(r"\s*(am|is|are|was|were)\b")
# A clause that speaks of someone else and whose subject was not read: what follows it in the same
# sentence is about them too, never about the speaker of an earlier clause.
_SOMEONE_ELSE = re.compile(r"\b(?:[Hh]e|[Ss]he|[Tt]hey)\b|\b(?!I\b)[A-Z][a-z]+\b")
_WAS_WERE = re.compile(r"\b(?:was|were)\b")
# A complement with a dropped "I'm" that is something else: "a lot of rain today" (a noun phrase),
# "4-1 ...", "ok 15." (a bare number is an age only with "years old"), "from Newark to Boston" (a route).
_NOT_DROPPED = re.compile(
    r"an?\s|\d+\b(?!\s+(?:years?\s+old|yo)\b)|from\s+(?:\S+\s+){1,3}?to\s", re.IGNORECASE
)


def _dropped_copula(clause: Clause, state: MessageState, text: str) -> bool:
    """Whether a clause without a subject is a complement of the speaker's dropped "I'm": only where
    the message's content begins, not in a greeting ("Greetings from Cairns!"). Further along, a
    bare complement belongs to something said before as often ("yes please. 29 years old and ..."
    is the speaker's, but the fixture's development part lost a current fact to such a reading)."""
    return (state.own_voice and clause.intro and not clause.inherits and not clause.greeted
            and COMPLEMENT_START.match(text) is not None and _NOT_DROPPED.match(text) is None)


# A few words of lead-in before the speaker's own clause: "fair warning I'm allergic", "ok hot take I ...".
# Determiners, relatives and pronoun-like heads would make the "I" part of a noun phrase ("the guy I met").
_LEAD_IN = re.compile(
    r"^(?!(?i:[a-z]+\s+){0,3}?(?i:the|a|an|that|which|who|whom|where|what|when|if|this|these|those|to|of|for|with|"
    r"about|everything|something|anything|nothing|all|one|someone|people|thing I|way|maybe|perhaps|probably|"
    r"possibly|hopefully|ideally|someday|unless|once|whether|wish|even|only|until|before|after|because|so|and)\s)"
    r"(?:[A-Za-z']+,?\s+){1,4}?(?=(?:I|we)\s+[a-z]|[A-Z][a-z]+\s+and\s+I\s)"
)
_GERUND_START = re.compile(
    r"(?:working|living|studying|teaching|staying|renting|doing|running)\s+(?:as|at|in|for|on)\b"
)
_THERE = re.compile(
    r"\b(?P<v>live|lives|lived|living|stayed|staying|moved|grew up|worked|been|still)\s+there\b"
    r"(?!\s+(?:before|once|twice|already|yet))"
)
_ONWARD_TO = re.compile(ONWARD)
_MOTION = re.compile(r"\b(?:moved|relocated|went|flew|travell?ed|headed|drove)\b")
_STILL_NOW = re.compile(r"(still|now)\s", re.I)
_NOW_IN = re.compile(r"now\s+in\s+[A-Z]")
BE_IN_PLACE = re.compile(
    r"\b(?:am|are|is|live|living|based)\s+(?:(?:down|up|out|over)\s+)?in\s+(?P<o>[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)*)"
)
_MOVED_HERE = re.compile(r"\b[Mm]oved\s+(?:over\s+|up\s+|down\s+|out\s+|back\s+)?here\b(?!\s+(?:to|from)\b)")
# "she's called Biscuit", "we named him Biscuit", "the kids called her Pip": the one pet just mentioned.
_PET_CALLED = re.compile(
    r"^(?:(?:[Hh]e|[Ss]he|[Ii]t)\s+is\s+(?:called|named)|"
    r"(?:[Ww]e|[Tt]hey|I|[Tt]he kids)\s+(?:have\s+)?(?:named|called)\s+(?:him|her|it))"
    r"\s+(?P<name>[A-Z][a-z]+)\b"
)
# Relationship states with a partner the message may name before or after.
_COUPLED = frozenset({"in a relationship", "dating"})


def _partner_named(drafts: list[tuple[Draft, Subject, Aspect]], state: MessageState,
                   speaker: Subject) -> list[tuple[Draft, Subject, Aspect]]:
    """The person a message names with "his name is ..." (``_NAME_IS``) is whom the speaker sees,
    when the same message says they see someone and names no one else as partner: "I'm seeing
    someone. his name's Tony"; "I met a guy!! his name is Owen ... we are dating"."""
    if any(d.predicate in ("partner", "spouse") for d, _, _ in drafts):
        state.unnamed_partner = False
        return []
    state.unnamed_partner = state.unnamed_partner or any(
        who.kind == "speaker" and d.predicate == "relationship_status" and d.object in _COUPLED
        and not d.negated for d, who, _ in drafts)
    if not (state.unnamed_partner and state.named):
        return []
    name, state.unnamed_partner, state.named = state.named, False, None
    return [(Draft("partner", name, 0.75, rule="partner.named"), speaker, Aspect())]


_NAME_IS = re.compile(r"^(?:his|her|their)\s+name\s+is\s+(?P<name>[A-Z][a-z]+)\b")
_AGE_ASIDE = re.compile(r"\s*,?\s+who\s+is\s+(?:\d{1,2}|[a-z]+-?[a-z]*)(?=\s|,|$)(?!\s+(?:years|minutes))")

def _until_time(text: str, now: datetime) -> str:
    """'lived there until 2015' -> 'in 2015', the time a following "when ..." clause happened."""
    for expr in dates.find_time_expressions(text, now, False):
        if expr.kind == "until" and expr.valid_to is not None:
            bare = re.sub(r"^(?:up\s+)?(?:until|till|til|'til)\s+", "", expr.text, flags=re.I)
            return f"in {bare}" if bare[:1].isdigit() else bare
    return ""


def _there(m: re.Match[str], place: str) -> str:
    """'lived there' -> 'lived in Fresno'; 'moved there' -> 'moved to Fresno'."""
    verb = m["v"]
    if verb in ("been", "still"):
        return f"{verb} in {place}"
    return f"{verb} {'to' if verb == 'moved' else 'in'} {place}"



_BACK_WHEN = re.compile(
    r"^(?:back\s+)?(?:in|at|during|through)\s+(?:uni|college|school|university|high school|sixth form|"
    r"my twenties|my teens|my 20s|my thirties|my 30s)\s*,?\s+(?=(?:I|we)\s)",
    re.I,
)


def _skip_leading_time(text: str, now: datetime) -> str:
    """'Last summer, I went to Iceland' -> 'I went to Iceland' (the date still resolves from the clause)."""
    if m := _BACK_WHEN.match(text):  # "Back in uni I was a barista": a past time without a date
        text = text[m.end() :]  # anchored and never empty: what .sub("") would cut
    for _ in range(2):
        found = dates.find_time_expressions(text, now)
        if not found or found[0].start != 0:
            break  # the text is unchanged, so a second look would find the same
        text = text[found[0].end :].lstrip(" ,")
    return text



# Speed: scans of the message or clause that most texts cannot match ("who", "wh", "in", a motion or
# work word); ``prefiltered`` reads the needed words off each pattern and tests for them first.
_MOTION, _AGE_ASIDE, BE_IN_PLACE, _RELATIVE_CLAUSE = map(
    prefiltered, (_MOTION, _AGE_ASIDE, BE_IN_PLACE, _RELATIVE_CLAUSE)
)
