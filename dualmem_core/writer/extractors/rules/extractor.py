"""A rule-based fact extractor: no model, no network, deterministic, fast enough for every turn.

``RuleExtractor().extract(message)`` reads ordinary personal statements in English ("I moved to
Denver last week", "my sister Lena works at Acme", "I'm allergic to peanuts") and returns
candidate facts with subjects resolved, objects cleaned, polarity kept and valid-time dates
resolved against the message time.

How a message is read:

1. Normalize (contractions, quotes) and split into sentences, then clauses at conjunctions and
   commas that start a new subject ("..., but I've lived in Seattle since 2015").
2. Drop what states nothing: questions, requests, conditionals ("if I lived in Paris"), wishes,
   modal clauses ("I should move"), and anything the assistant says about itself.
3. Per clause: noun-phrase facts anywhere ("my girlfriend, Hana,"), possessive statements ("my
   favourite film is ..."), then subject + aspect + verb-phrase rules (``rules/patterns.py``).
   Future and intended clauses ("I'm planning to run a marathon") become ``plans`` facts.
4. Drafts become facts in one place (``rules/assemble.py``): dates by the rule's timing,
   endings ("used to", "no longer", past states), confidence adjustments, entities, wording.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from datetime import datetime

from ...facts import Fact, Message
from ...sessions import Discourse
from ..base import Extraction, Extractor
from . import dates, discourse
from .assemble import dedupe, entity_type, finish, proper_entities, reads_future
from .base import Context, Draft
from .clause_split import COMPLEMENT_START, ONWARD, bare_job, split_clauses
from .clauses import Aspect, Subject, is_past_form, parse_aspect, parse_subject
from .discourse import TEMPORARY, answer_statement
from .gates import prefiltered
from .noun_phrases import AWAY, here_in, possessive_drafts, relation_mentions, speaker_drafts
from .objects import clean, cut, first_to_third, split_items, to_gerund, verb_phrase_base
from .patterns import match_verb_rules
from .preprocess import (
    CONDITIONAL_SENTENCE,
    IRREALIS,
    TEMPORAL,
    is_non_statement,
    is_question,
    normalize,
    open_clause,
    split_sentences,
    starts_question,
)
from .truecase import learn_names, restore_case

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
# The question tacked onto a statement: "I just moved to Leeds, any tips?", "... so what should I do?"
_TRAILING_ASK = re.compile(
    r"(?:,|\s+-|\s+so|\s+but)\s+(?:so\s+|and\s+|but\s+)?(?:any|what|how|can|could|should|do|does|is|are|would|"
    r"where|which|who|why|when|ideas|tips|thoughts|suggestions|advice|recommendations|help)\b(?!.*,\s*(?:I|we|my)\s)",
    re.I,
)
_RHETORICAL = re.compile(
    r"^(?:did I (?:tell|mention to) you|have I (?:told|mentioned to) you|guess what)\b", re.I
)
_REPORTED = re.compile(
    r"\s+(?P<verb>said|says|told me|tells me|mentioned|mentions|texted me|wrote|explained|announced|"
    r"confirmed|let me know|informed me|told us|thinks|believes|feels|wishes|hopes|suspects|claims|"
    r"claimed|told (?:her|him|them|everyone|everybody|people|(?:my|our|his|her) [a-z]+|[A-Z][a-z]+))"
    r"\s+(?:that\s+)?"
)
_UNSURE = re.compile(
    r"^(?:(?:so|and|but|ok|okay|well)\s*,?\s+)*I\s+(?:guess|think|suppose)\s+(?:I|we)\s+am\b", re.I
)
_OPINION = frozenset({"thinks", "believes", "feels", "wishes", "hopes", "suspects", "claims", "claimed"})
_FREE_TIME = re.compile(r"^(?:in|during)\s+(?:my|our|his|her)\s+(?:free|spare|down)\s+time\s*,?\s*", re.I)
_INTENT_VERB = {
    "want": "wants to",
    "hope": "hopes to",
    "think": "is thinking about",
    "try": "is trying to",
    "decide": "decided to",
    "plan": "plans to",
}
_INTENT_CONFIDENCE = {"want": 0.55, "hope": 0.55, "think": 0.45, "try": 0.5, "decide": 0.7, "plan": 0.75}
_NON_SPEAKING = {"assistant", "ai", "bot", "system", ""}
_SUBORDINATORS = {"since", "while", "as", "when", "before", "after", "until", "till", "once", "whenever"}
# In "when I was 10 we moved", the second subject pronoun starts the main clause.
_MAIN_AFTER_SUBORDINATE = re.compile(r"(?<=[a-z0-9])\s(?=(?:I|we|he|she|they)\s+[a-z])")
# "My brother and his wife live in Ohio": the second conjunct shares the statement.
_CONJUNCT = re.compile(
    r"^\s*,?\s*and\s+(?:(?:his|her|their|my|our)\s+[a-z-]+|(?P<name>[A-Z][a-z]+))\s+(?=[a-z])"
)
# "James, who I met in college, lives in Boston": the relative clause says nothing about the verb.
_RELATIVE_CLAUSE = re.compile(r",\s*(?:who|whom|whose|which)\b[^,]+,")


@dataclass(slots=True)
class _MessageState:
    """What carries from one clause to the next within one message."""

    speaker: str
    now: datetime
    people: list[str] = field(default_factory=list)  # third persons named so far, for he/she
    previous: Subject | None = None  # for clauses that share the previous subject
    spoke: bool = False  # a clause with content came before (greetings do not count)
    last_pet: str | None = None  # an unnamed pet mentioned earlier ("I adopted a puppy!")
    last_place: str | None = None  # the place last named, for "there" ("lived there until 2015")
    previous_past: bool = False  # the previous clause was in the past ("I was living in X, working as Y")
    previous_dated: str = ""  # the previous clause's dated text, for a continuation without its own dates
    until: str = ""  # the previous clause's "until 2015" as "in 2015", for a following "when" clause
    away: bool = False  # the message speaks of a trip ("here in Rome" is then not home)
    antecedent: str | None = None  # the last named subject, for "they're my favourite band"
    copula: str = ""  # the previous clause's "am"/"is"/..., for a following bare complement
    motion: str = ""  # the previous clause's "moved", for "and then to Cranston"
    work_talk: bool = False  # the message speaks of jobs, so "I'm with Telstra" names an employer
    moved: bool = False  # the message speaks of a move, so "we're in Sheffield now" is a home
    own_voice: bool = True  # the user's own message: only they drop their "I'm" ("single again lol")
    unnamed_partner: bool = False  # the speaker said they see someone, not yet whom
    named: str | None = None  # the person a "his name is ..." of this message named

    carried: str | None = None  # the one earlier message's person a pronoun may mean (``discourse.py``)

    @property
    def referent(self) -> str | None:
        distinct = list(dict.fromkeys(self.people))
        if not distinct:  # nobody named yet in this message: "she" is who the conversation was about
            return self.carried
        return distinct[0] if len(distinct) == 1 else None


@dataclass(slots=True)
class _Clause:
    text: str  # the opened clause; leading adverbials are stripped as the clause is read
    intro: bool
    hedged: bool
    conditional: bool
    subordinate: bool
    inherits: bool
    conjunction: str = ""  # the word that introduced the clause ("when", "but")
    greeted: bool = False  # it opened with a greeting ("Greetings from Cairns!")
    said: str = ""  # the clause as said, before discourse markers ("now", "so") were stripped
    hobby_hint: bool = False
    weight: float = 1.0
    dated: str = ""  # the clause with its leading time adverbials, which dates resolve over
    found: dict[bool | None, list[dates.TimeExpression]] = field(default_factory=dict)

    def times(self, prefer_future: bool | None, now: datetime) -> list[dates.TimeExpression]:
        """The clause's time expressions, resolved once per reading rather than once per fact."""
        if prefer_future not in self.found:
            self.found[prefer_future] = dates.find_time_expressions(
                self.dated or self.text, now, prefer_future
            )
        return self.found[prefer_future]


class RuleExtractor(Extractor):
    """Pattern rules over clauses; see the module docstring for the reading order."""

    reads_context = True  # the Writer hands it a session's Discourse (``writer/sessions.py``)

    def extract(self, message: Message, context: Discourse | None = None) -> list[Fact]:
        """The message's facts; with ``context`` (its session's earlier turns) pronouns and short
        answers that point back are read too, and the context moves on past this message."""
        speaker = (message.speaker or "user").strip() or "user"
        role = (message.role or "user").lower()
        if context is not None and role == "assistant":
            with context.lock:
                discourse.heard(context, message.text)  # its question may make the next short answer readable
            context = None
        if role == "system" or (role == "assistant" and speaker.lower() in _NON_SPEAKING):
            return []  # the assistant talking about itself is not memory about the user
        with dates.reading():
            if context is None:
                return self._read(message, speaker)
            with context.lock:
                return self._read(message, speaker, context)

    def extract_many(self, messages: list[Message], context: Discourse | None = None) -> list[list[Fact]]:
        """Read messages of one conversation in order, each with what the earlier ones left."""
        context = Discourse() if context is None else context
        return [self.extract(m, context) for m in messages]

    def extract_batch(self, messages: list[Message], context: Discourse | None = None) -> Extraction:
        """``extract_many``'s facts: without a session, the batch alone is the conversation."""
        return Extraction(self.extract_many(messages, context))

    def _read(self, message: Message, speaker: str, context: Discourse | None = None) -> list[Fact]:
        state = _MessageState(speaker, message.at, own_voice=(message.role or "user").lower() == "user")
        facts: list[Fact] = []
        said = message.text
        # "my sister sarah": the capitals the rules read by, from the names the user's sessions showed
        restored, learned = restore_case(said, context.names if context is not None else None)
        if context is not None:  # typed with capitals (returned as it came): learn the names it shows
            context.learn(learned if restored is not said else learn_names(said))
        said = restored
        if context is not None:  # "Leeds, for now" after "Where are you based?"
            said = answer_statement(context.question, said, context.pets) or said
        text = normalize(said)
        state.away = " here " in text and bool(AWAY.search(text))
        state.work_talk = bool(_WORK_TALK.search(text))
        state.moved = not state.away and bool(_MOVE_TALK.search(text))
        own_topics = state.work_talk, state.moved
        if context is not None:
            state.carried, state.last_pet = discourse.referent(context, text, speaker)
            state.last_place = None if state.away else context.place
            state.work_talk = state.work_talk or context.work_talk
            state.moved = state.moved or (context.moved and not state.away)
        for sentence in split_sentences(text):
            body = sentence.text
            if is_question(sentence):
                m = _RHETORICAL.match(body)
                ask = _TRAILING_ASK.search(body)
                if _UNSURE.match(body):
                    pass  # "so I guess I'm pescatarian now??" states something, unsure of the label
                elif ask and not m and ask.start() > 0 and not starts_question(body):
                    body = body[: ask.start()]  # "I'm vegetarian, any recipe ideas?": the statement stands
                elif not m:
                    continue
                else:
                    body = body[m.end() :].strip(" ,")
                    body = re.sub(r"^that\s+", "", body)
            conditional = bool(CONDITIONAL_SENTENCE.search(body))
            for piece in split_clauses(body):
                opened = open_clause(piece.text)
                clause = _Clause(
                    text=opened.text,
                    intro=not state.spoke or opened.greeted,
                    hedged=opened.hedged,
                    conditional=conditional,
                    subordinate=piece.conjunction in _SUBORDINATORS,
                    inherits=piece.inherits_subject,
                    conjunction=piece.conjunction,
                    greeted=opened.greeted,
                    said=piece.text,
                )
                facts += self._clause(clause, state)
                state.spoke = state.spoke or bool(opened.text)
        facts = _specific_status_only(_named_pets_only(dedupe(facts)))
        if context is not None:
            home = (m := _BE_IN_PLACE.search(text)) is not None and m["o"] == state.last_place
            discourse.after(context, speaker, text, state.people, facts, state.last_place,
                            home and not state.away and not TEMPORARY.search(text), *own_topics)
        return facts

    # -------------------------------------------------------------------------------- clauses

    def _clause(self, clause: _Clause, state: _MessageState) -> list[Fact]:
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
        if (m := _BE_IN_PLACE.search(text)) and not state.away:
            state.last_place = m["o"]  # "im in Newcastle, moved here in September": here is Newcastle
        state.previous_dated = clause.dated or clause.text
        if named:
            state.people.append(named)  # "her name is Jess, she's a researcher": Jess is "she" from here on
            state.named = named
        drafts += _partner_named(drafts, state, plain)
        return [f for d, s, a in drafts if (f := self._finish(d, s, a, clause, state)) is not None]

    def _reported(self, clause: _Clause, state: _MessageState) -> list[Fact] | None:
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
        embedded = _Clause(
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
        inner = _MessageState(state.speaker, state.now, [reporter.name])
        return self._clause(embedded, inner)

    def _verb_drafts(
        self, rest: str, subject: Subject, clause: _Clause, state: _MessageState, continuing: bool = False
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
        self, core: str, subject: Subject, aspect: Aspect, ctx: Context, state: _MessageState
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
        entities = [(d.object, entity_type(d)) for d in inner if entity_type(d)] or proper_entities(base)
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
        self, draft: Draft, subject: Subject, aspect: Aspect, clause: _Clause, state: _MessageState
    ) -> Fact | None:
        times = clause.times(reads_future(draft, aspect), state.now)
        return finish(
            draft, subject, aspect, times=times, speaker=state.speaker, now=state.now, weight=clause.weight
        )


_LEADING_BLANKS = re.compile(r"^[\s,]+")
_MOVE_TALK = re.compile(r"\b(?:moved|relocated|settled|emigrated|moving)\b|\b[Ll]eft\s+(?=[A-Z])")
_WORK_TALK = re.compile(
    r"\b(?:work|works|worked|working|job|jobs|employer|company|joined|hired|career|colleagues?|office|"
    r"redundant|promoted|promotion|salary|boss|clients?)\b",
    re.I,
)
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


def _dropped_copula(clause: _Clause, state: _MessageState, text: str) -> bool:
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
_BE_IN_PLACE = re.compile(
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


def _partner_named(drafts: list[tuple[Draft, Subject, Aspect]], state: _MessageState,
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


def _named_pets_only(facts: list[Fact]) -> list[Fact]:
    """'We adopted a dog. His name is Pickles': one pet, named, not a dog and Pickles."""
    named = [f.text for f in facts if f.predicate == "pet" and f.object[:1].isupper() and not f.negated]
    if not named:
        return facts
    return [
        f
        for f in facts
        if not (
            f.predicate == "pet"
            and f.object[:1].islower()
            and not f.negated
            and any(re.search(rf"\b{re.escape(f.object)} named\b", t) for t in named)
        )
    ]


_AFTER_A_COUPLE = ("divorced", "widowed", "separated")


def _specific_status_only(facts: list[Fact]) -> list[Fact]:
    """'we split in 2019 so I've been divorced a while': divorced, not also single."""
    specific = {f.subject for f in facts
                if f.predicate == "relationship_status" and f.object in _AFTER_A_COUPLE}
    if not specific:
        return facts
    return [f for f in facts
            if not (f.predicate == "relationship_status" and f.object == "single" and f.subject in specific)]


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


_SPACES = re.compile(r"\s+")
_NOUN_START = re.compile(r"(?:my|our|his|her|their|the|a|an|this|that|some)\b")


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


# Speed: scans of the message or clause that most texts cannot match ("who", "wh", "in", a motion or
# work word); ``prefiltered`` reads the needed words off each pattern and tests for them first.
_WORK_TALK, _MOTION, _AGE_ASIDE, _BE_IN_PLACE, _RELATIVE_CLAUSE, _MOVE_TALK = map(
    prefiltered, (_WORK_TALK, _MOTION, _AGE_ASIDE, _BE_IN_PLACE, _RELATIVE_CLAUSE, _MOVE_TALK)
)
