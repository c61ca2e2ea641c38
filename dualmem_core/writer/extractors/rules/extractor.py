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

This module reads the message (steps 1 and 2); a clause is read by ``clause_reader.ClauseReader`` and its
verb phrase by ``verb_reader.VerbReader``, the layers ``RuleExtractor`` is built on, with the state of
``message_state.py``.
"""

from __future__ import annotations

import re

from ...facts import Fact, Message
from ...sessions import Discourse
from ..base import Extraction, Extractor
from . import dates, discourse
from .assemble import dedupe
from .clause_reader import BE_IN_PLACE, ClauseReader
from .clause_split import split_clauses
from .discourse import TEMPORARY, answer_statement
from .gates import prefiltered
from .message_state import Clause, MessageState
from .noun_phrases import AWAY
from .preprocess import (
    CONDITIONAL_SENTENCE,
    is_question,
    normalize,
    open_clause,
    split_sentences,
    starts_question,
)
from .truecase import learn_names, restore_case

# The question tacked onto a statement: "I just moved to Leeds, any tips?", "... so what should I do?"
_TRAILING_ASK = re.compile(
    r"(?:,|\s+-|\s+so|\s+but)\s+(?:so\s+|and\s+|but\s+)?(?:any|what|how|can|could|should|do|does|is|are|would|"
    r"where|which|who|why|when|ideas|tips|thoughts|suggestions|advice|recommendations|help)\b(?!.*,\s*(?:I|we|my)\s)",
    re.I,
)
_RHETORICAL = re.compile(
    r"^(?:did I (?:tell|mention to) you|have I (?:told|mentioned to) you|guess what)\b", re.I
)
_UNSURE = re.compile(
    r"^(?:(?:so|and|but|ok|okay|well)\s*,?\s+)*I\s+(?:guess|think|suppose)\s+(?:I|we)\s+am\b", re.I
)
_NON_SPEAKING = {"assistant", "ai", "bot", "system", ""}
_SUBORDINATORS = {"since", "while", "as", "when", "before", "after", "until", "till", "once", "whenever"}


class RuleExtractor(ClauseReader, Extractor):
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
        state = MessageState(speaker, message.at, own_voice=(message.role or "user").lower() == "user")
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
                clause = Clause(
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
            home = (m := BE_IN_PLACE.search(text)) is not None and m["o"] == state.last_place
            discourse.after(context, speaker, text, state.people, facts, state.last_place,
                            home and not state.away and not TEMPORARY.search(text), *own_topics)
        return facts


_MOVE_TALK = re.compile(r"\b(?:moved|relocated|settled|emigrated|moving)\b|\b[Ll]eft\s+(?=[A-Z])")
_WORK_TALK = re.compile(
    r"\b(?:work|works|worked|working|job|jobs|employer|company|joined|hired|career|colleagues?|office|"
    r"redundant|promoted|promotion|salary|boss|clients?)\b",
    re.I,
)
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



# Speed: scans of the message or clause that most texts cannot match ("who", "wh", "in", a motion or
# work word); ``prefiltered`` reads the needed words off each pattern and tests for them first.
_WORK_TALK, _MOVE_TALK = map(
    prefiltered, (_WORK_TALK, _MOVE_TALK)
)
