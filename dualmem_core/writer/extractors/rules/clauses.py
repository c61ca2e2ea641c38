"""Who a clause is about, and in what mood and tense it says it.

``parse_subject`` resolves the clause's grammatical subject: "I"/"we" are the speaker, "my sister
Lena" is Lena, "my mom" is "<speaker>'s mom", "she" is the one person the message already named.
``parse_aspect`` then peels the auxiliaries off the verb phrase ("I don't live", "I used to work",
"I'm planning to move") so the rules see a bare verb phrase plus flags: negated, ended, past,
future, hypothetical, intended.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ....vocab.relation_words import NOT_NAMES, RELATIONS, is_plural_relation, relation_of, relation_pattern
from .gates import admits, first_chars, prefiltered
from .lexicon import pet_pattern

NAME = r"[A-Z\u00C0-\u00D6\u00D8-\u00DE][a-zA-Z'\u00C0-\u017F-]+"  # "Álvaro", "Émile" too
ADJ = (
    r"(?:older|younger|little|big|baby|twin|best|oldest|youngest|eldest|late|ex-?|step-?|new|dear|sweet|"
    r"lovely|beautiful|amazing|wonderful|good|close|old|other|middle|favou?rite|adorable|awesome|first)"
)
_PET_MODS = r"(?:[a-z-]+\s+){0,3}?"
_REL = relation_pattern()
_PET = pet_pattern()


@dataclass(frozen=True, slots=True)
class Subject:
    name: str  # resolved subject: the speaker, "Lena", "user's sister", "user's dog"
    kind: str  # "speaker" | "person" | "relative" | "pet"
    end: int  # characters of the clause the subject used
    weight: float = 1.0  # confidence multiplier: "we" and resolved pronouns are less certain
    co_subject: str | None = None  # "my wife and I" -> the wife, who shares the statement
    co_kind: str = "person"
    role: str = ""  # the relation noun when introduced as one ("sister")


def _name_ok(name: str | None) -> bool:
    if not name:
        return False
    return name.split()[0].lower() not in NOT_NAMES and relation_of(name.split()[0]) is None


def possessive_subject(owner: str, speaker: str) -> str:
    return f"{speaker}'s {owner}"


_WE = re.compile(r"(?:I|we|We)\b")
_COMPOUND = re.compile(
    rf"(?:(?:my|our|My|Our|the|The)\s+(?:{ADJ}(?:\s+|(?<=-)))?(?:(?P<rel>{_REL})|(?P<pet>{_PET}))"
    rf"(?:\s*,?\s*(?P<name>{NAME}))?|(?P<solo>{NAME}))"
    r"\s*,?\s+and\s+(?:I|me)\b"
)
# "me and the missus", "me and my boyfriend Tom": the speaker first, said casually.
_COMPOUND_ME = re.compile(
    rf"(?:[Mm]e|I)\s+and\s+(?:(?:my|our|the)\s+(?:{ADJ}(?:\s+|(?<=-)))?(?:(?P<rel>{_REL})|(?P<pet>{_PET}))"
    rf"(?:\s*,?\s*(?P<name>{NAME}))?|(?P<solo>{NAME}))(?=\s+[a-z])"
)
# "the missus", "the kids": said of the speaker's own household without "my"
_THE_FAMILY = r"[Tt]he(?=\s+(?:missus|wife|hubby|husband|other half|kids)\b)"
_RELATIVE = re.compile(
    rf"(?P<own>my|our|My|Our|his|her|His|Her|{_THE_FAMILY})\s+(?:(?P<adj>{ADJ})(?:\s+|(?<=-)))?(?P<rel>{_REL})(?:'s\s+(?P<rel2>{_REL}))?(?!')\b"
    rf"(?:\s*,\s*(?P<name>{NAME}(?:\s+{NAME})?)\s*,|\s+(?P<name2>{NAME}(?:\s+{NAME})?)(?!'s))?"
)
_PET_SUBJECT = re.compile(
    rf"(?:my|our|My|Our)\s+{_PET_MODS}(?P<pet>{_PET})(?!')\b"
    rf"(?:\s*,\s*(?P<name>{NAME})\s*,|\s+(?P<name2>{NAME})(?!'s))?"
)
_NAMED = re.compile(
    rf"(?P<name>{NAME}(?:\s+{NAME})?)(?:\s*,\s*(?:my|our)\s+(?:{ADJ}(?:\s+|(?<=-)))?(?P<rel>{_REL})\s*,)?(?=\s+[a-z]|"
    rf"\s*$)"
)
_PRONOUN = re.compile(r"(?:he|she|He|She)\b")
# Chat drops the subject: "Finally bought my first house!", "Love living in Copenhagen." Only verb forms
# that cannot start a gerund subject count ("Moving was hard" is not about the speaker moving).
_DROPPED = re.compile(
    r"(?:(?:just|finally|recently|also|still|really|totally|officially)\s+)*(?:moved|started|got|bought|love|"
    r"loved|loving|been|went|visited|adopted|joined|quit|left|married|turned|graduated|finished|retired|"
    r"landed|booked|signed|hate|enjoyed|sold|lost|became|switched|picked up|took up|honeymooned|met|gave up|"
    r"cut out|traded|swapped|allergic to|"
    r"back from|grew up|born in|born on|born and (?:raised|bred)|raised in|lived|spent|live in|now living|"
    r"working (?:at|for|as)|relocated|settled|"
    r"rescued|"
    r"(?:a\s+)?(?:big|huge|massive)\s+fan\s+of|"
    r"living in(?!\s.*\b(?:is|was|has been)\b))\b",
    re.IGNORECASE,
)


DROPPED = _DROPPED  # for the clause splitter: "Just moved house, we're in Ealing now" is two clauses


def parse_subject(text: str, speaker: str, pronoun_referent: str | None) -> Subject | None:
    """The subject at the start of ``text``, resolved; None when it is unknown or not a person."""
    if _DROPPED.match(text):
        return Subject(speaker, "speaker", 0, 0.85)
    if m := (_COMPOUND.match(text) or _COMPOUND_ME.match(text)):
        other = m["name"] or m["solo"]
        noun = m["rel"] or m["pet"]
        if noun and not _name_ok(other):
            other = possessive_subject(noun.lower(), speaker)
        if other and (noun or _name_ok(other)):
            return Subject(
                speaker, "speaker", m.end(), 0.95, co_subject=other, co_kind="pet" if m["pet"] else "person"
            )
    if m := _WE.match(text):
        return Subject(speaker, "speaker", m.end(), 1.0 if m[0] == "I" else 0.9)
    if m := _RELATIVE.match(text):
        name = m["name"] or m["name2"]
        rel = m["rel"].lower()
        if m["own"].lower() in ("his", "her"):  # "her husband Mark": whose husband needs the referent
            if not pronoun_referent:
                return None
            speaker = pronoun_referent
        if m["rel2"]:  # "my sister's husband"
            rel = f"{rel}'s {m['rel2'].lower()}"
        if name and _name_ok(name) and not is_plural_relation(rel):
            return Subject(name, "person", m.end(), role=rel)
        end = m.end() if not name or _name_ok(name) else m.end("rel")
        prefix = "ex-" if (m["adj"] or "").lower().startswith("ex") else ""
        return Subject(possessive_subject(prefix + rel, speaker), "relative", end, role=rel)
    if m := _PET_SUBJECT.match(text):
        name = m["name"] or m["name2"]
        if name and _name_ok(name):
            return Subject(name, "pet", m.end(), role=m["pet"].lower())
        return Subject(
            possessive_subject(m["pet"].lower(), speaker), "pet", m.end("pet"), role=m["pet"].lower()
        )
    if m := _NAMED.match(text):
        name = m["name"]
        first = name.split()[0]
        if first.lower() in RELATIONS and first[0].isupper():  # "Mom works at ..." is the speaker's mom
            return Subject(
                possessive_subject(first.lower(), speaker), "relative", len(first), role=first.lower()
            )
        if _name_ok(name):
            return Subject(name, "person", m.end(), role=(m["rel"] or "").lower())
    if (m := _PRONOUN.match(text)) and pronoun_referent:
        return Subject(pronoun_referent, "person", m.end(), 0.85)
    return None


# ------------------------------------------------------------------------------------ aspect


@dataclass(slots=True)
class Aspect:
    negated: bool = False
    ended: bool = False  # "used to", "no longer", "not ... anymore"
    past: bool = False  # an auxiliary put it in the past ("did", "was", "had")
    perfect: bool = False  # "have lived": still true unless said otherwise
    progressive: bool = False
    future: bool = False  # "will", "going to"
    modal: bool = False  # would/could/might/should/must/have to: not a statement of fact
    intent: str = ""  # "plan", "want", "hope", "think", "decide": the clause states an intention
    intent_words: str = ""  # as said: "looking forward to", "planning to"
    hedged: bool = False
    still: bool = False  # "we're still in Sacramento": a state that continues
    now: bool = False  # "I'm now in Melbourne": a state that holds from some change on
    # How a bare day or month in the clause reads, as its verb says: True the coming one ("I start on
    # Monday"), False the latest (past tense), None guessed from the clause's words (``dates.looks_future``).
    dates_ahead: bool | None = None


_ADVERBS = (
    r"just|really|actually|currently|still|also|now|recently|finally|officially|basically|totally|"
    r"absolutely|honestly|definitely|originally|usually|always|mostly|even|only|both|all|already|"
    r"literally|seriously|kind of|sort of|pretty much|generally|mainly|primarily|happily|proudly|newly|"
    r"technically|obviously|certainly|truly|genuinely|sometimes|often|somewhat|then|again|once|lately|"
    r"soon|sadly|unfortunately|luckily|fortunately|apparently|ultimately|eventually|full-time|part-time|"
    r"no doubt|simply|barely|hardly|mainly|mostly|slowly|quickly|permanently|temporarily|officially"
)
# Verbs that "do" can emphasise ("I do live here"); before anything else "do" is the main verb ("do yoga").
_EMPHASIZED = (
    r"(?:live|love|like|work|have|know|want|think|speak|eat|enjoy|hate|play|own|miss|need|believe|get|go|"
    r"feel|remember|study|teach|prefer|care|plan|hope)\b"
)
_PARTICIPLE = re.compile(
    r"(?:been|gone|done|seen|known|taken|given|got|gotten|had|made|met|left|bought|begun|become|grown|"
    r"written|driven|eaten|flown|come|lost|found|heard|told|kept|sent|spent|built|felt|held|brought|taught|"
    r"won|sold|quit|cut|run|[a-z]+ed)\b"
)
_NOT_VERB_AFTER_GOING_TO = re.compile(
    r"(?:the|a|an|my|our|his|her|their|this|that|these|those|some|school|college|university|uni|work|"
    r"church|bed|class|town|home|[A-Z]\w*|\d)\b"
)
_INTENT = re.compile(
    r"(?P<word>want|wants|hope|hopes|hoping|plan|plans|planning|intend|intends|intending|aim|aims|aiming|"
    r"expect|expects|expecting|decided|decide|would love|would like|would really like|would really love|"
    r"am excited|are excited|is excited|excited|can not wait|looking forward|thinking|considering|"
    r"dreaming|dream|trying|try|tries|scheduled|supposed|set|due|determined|eager|keen)"
    r"\s+(?:to|on|of|about)\s+|(?P<bare>considering|planning|organizing|organising|booking|booked)\s+"
    r"(?=(?:a|an|our|my|the|his|her|their|this|that|some)\s)"
)
_INTENT_KIND = {
    "want": "want",
    "wants": "want",
    "would love": "want",
    "would like": "want",
    "would really like": "want",
    "would really love": "want",
    "dream": "want",
    "dreaming": "want",
    "eager": "want",
    "keen": "want",
    "hope": "hope",
    "hopes": "hope",
    "hoping": "hope",
    "thinking": "think",
    "considering": "think",
    "trying": "try",
    "try": "try",
    "tries": "try",
    "decided": "decide",
    "decide": "decide",
    "determined": "decide",
}


# Compiled once: parse_aspect runs for every clause, and re's cache lookup costs per call.
_USED_TO = re.compile(r"(?:used to|use to)\s+", re.I)
_NO_LONGER = re.compile(r"no longer\s+", re.I)
_DO_NOT = re.compile(r"(?P<aux>do|does|did)\s+(?:not|never)\s+", re.I)
_DO_EMPHATIC = re.compile(rf"(?P<aux>do|does|did)\s+(?={_EMPHASIZED})")
_NOT = re.compile(r"(?:never|not)\s+", re.I)
_WILL = re.compile(r"(?:will|shall)\s+", re.I)
_GOING_TO = re.compile(r"(?:am|is|are|was|were)\s+(?:going to|about to)\s+", re.I)
_WOULD_LOVE_TO = re.compile(r"(?:would|could)\s+(?:(?:really|definitely|so)\s+)?(?:love|like)\s+to\s+", re.I)
_MODAL = re.compile(r"(?:would|could|might|should|may|must|ought to|would rather)\s+", re.I)
_HAVE_TO = re.compile(r"(?:have|has|had|need|needs|got)\s+to\s+", re.I)
_CAN = re.compile(r"can\s+", re.I)
_HAVE = re.compile(r"(?P<aux>have|has|had)\s+", re.I)
_BE_ING = re.compile(rf"(?P<aux>am|is|are|was|were|be|been)\s+(?:(?:{_ADVERBS})\s+)*(?=[a-z]+ing\b)", re.I)
_HEDGE = re.compile(r"(?:probably|maybe|perhaps)\s+", re.I)
_BE_NOT = re.compile(r"(?P<be>am|is|are|was|were)\s+(?:not|never)\s+", re.I)
_BE_NO_LONGER = re.compile(r"(?P<be>am|is|are|was|were)\s+no\s+longer\s+", re.I)
_ANY_MORE = re.compile(r"\b(?:any ?more|any longer)\b", re.I)
_ADVERBS_NOT = re.compile(rf"^(?:(?:{_ADVERBS}|never|not)\s+)*", re.I)
_LEADING_ADVERB = re.compile(rf"^(?:{_ADVERBS})\b[\s,]*", re.I)
_ANY_MORE_WORDS = re.compile(r"\s*\b(?:any ?more|any longer)\b", re.I)
# "are officially married", "is SO into chess": adverbs between the copula and what it says.
_COPULA_ADVERBS = re.compile(
    rf"^(?P<be>am|is|are|was|were|been|be)\s+(?P<adv>(?:(?:{_ADVERBS}|so|very)\s+)+)", re.I
)


def _aux_step(text: str, aspect: Aspect) -> int:
    """Consume one auxiliary at the start of ``text``, recording it in ``aspect``; 0 when none is there."""
    # Speed: each pattern only runs when the text's first character can start it (``_aux_gates``);
    # a skipped pattern reads as not matching, exactly what it would have answered.
    ok = _AUX_GATES.get(text[:1]) or _aux_gates(text[:1])
    if m := _USED_TO.match(text) if ok[0] else None:
        aspect.ended = aspect.past = True
    elif m := _NO_LONGER.match(text) if ok[1] else None:
        aspect.ended = True
    elif m := _DO_NOT.match(text) if ok[2] else None:
        aspect.negated = True
        aspect.past = aspect.past or m["aux"].lower() == "did"
    elif m := _DO_EMPHATIC.match(text) if ok[3] else None:
        aspect.past = aspect.past or m["aux"] == "did"
    elif m := _NOT.match(text) if ok[4] else None:
        aspect.negated = True
    elif m := _WILL.match(text) if ok[5] else None:
        aspect.future = True
    elif (m := _GOING_TO.match(text) if ok[6] else None) and not (
        _NOT_VERB_AFTER_GOING_TO.match(text[m.end() :])
    ):
        aspect.future = True
    elif m := _WOULD_LOVE_TO.match(text) if ok[7] else None:
        aspect.intent = "want"
    elif m := _MODAL.match(text) if ok[8] else None:
        aspect.modal = True
    elif m := _HAVE_TO.match(text) if ok[9] else None:
        aspect.modal = True
    elif m := _CAN.match(text) if ok[10] else None:
        pass  # ability: "I can speak French" states a fact
    elif (m := _HAVE.match(text) if ok[11] else None) and _PARTICIPLE.match(
        _ADVERBS_NOT.sub("", text[m.end() :])
    ):
        if m["aux"].lower() == "had":
            aspect.past = True
        else:
            aspect.perfect = True
    elif m := _BE_ING.match(text) if ok[12] else None:
        aspect.progressive = True
        aspect.perfect = aspect.perfect or m["aux"].lower() == "been"  # "been climbing a lot": no "have"
        aspect.past = aspect.past or m["aux"].lower() in ("was", "were")
    elif m := _HEDGE.match(text) if ok[13] else None:
        aspect.hedged = True
    elif not aspect.intent and (m := _INTENT.match(text) if ok[14] else None):
        aspect.intent = _INTENT_KIND.get((m["word"] or m["bare"] or "").lower(), "plan")
        aspect.intent_words = m[0].strip()
    return m.end() if m else 0


def _aux_gates(first: str) -> tuple[bool, ...]:
    """Which of ``_aux_step``'s patterns can match a text starting with ``first`` (read off each
    pattern by ``gates.first_chars``), remembered per character."""
    found = _AUX_GATES[first] = tuple(admits(starts, first) for starts in _AUX_STARTS)
    return found


def parse_aspect(vp: str) -> tuple[Aspect, str]:
    """Peel auxiliaries and adverbs off the start of a verb phrase; return the flags and the rest."""
    aspect = Aspect()
    text = vp.strip()
    for _ in range(12):  # "I have just been thinking about ..." stacks a few
        before = text
        if m := _LEADING_ADVERB.match(text):  # anchored and never empty: what .sub("") would cut
            text = text[m.end() :]
        text = text[_aux_step(text, aspect) :]
        if m := _BE_NOT.match(text):
            aspect.negated = True  # "am not a fan of": keep the copula the rules need
            text = f"{m['be']} {text[m.end() :]}"
        elif m := _BE_NO_LONGER.match(text):
            aspect.ended = True  # "I'm no longer vegan": it held and has stopped
            text = f"{m['be']} {text[m.end() :]}"
        if text == before:
            break
    if m := _COPULA_ADVERBS.match(text):
        aspect.still = aspect.still or bool(re.search(r"\bstill\b", m["adv"], re.I))
        aspect.now = aspect.now or bool(re.search(r"\bnow\b", m["adv"], re.I))
        text = f"{m['be']} {text[m.end() :]}"
    if _ANY_MORE.search(text):
        aspect.ended = True
        aspect.negated = False  # "I don't live there anymore": it was true and has ended
        text = _ANY_MORE_WORDS.sub("", text)
    return aspect, text.strip()


_IRREGULAR_PAST = frozenset(
    "went got had left made met bought took came grew was were began became drove flew ate taught sold "
    "spent found ran quit did moved lived worked studied married adopted joined started visited".split()
)


def is_past_form(verb: str) -> bool:
    word = verb.lower()
    return word in _IRREGULAR_PAST or (
        word.endswith("ed") and len(word) > 3 and word not in ("need", "feed", "seed")
    )


# Speed: ``prefiltered`` tests for a word each pattern needs ("and", "going to") before running it.
_COMPOUND, _GOING_TO = map(prefiltered, (_COMPOUND, _GOING_TO))
# ... and each step of ``parse_aspect`` tries these on the phrase start (first characters, "not", "any").
_LEADING_ADVERB, _BE_NOT, _BE_NO_LONGER, _COPULA_ADVERBS, _ANY_MORE = map(
    prefiltered, (_LEADING_ADVERB, _BE_NOT, _BE_NO_LONGER, _COPULA_ADVERBS, _ANY_MORE)
)
# In ``_aux_step``'s order; a text's first character picks the ones worth running.
_AUX_STARTS = tuple(
    first_chars(p)
    for p in (_USED_TO, _NO_LONGER, _DO_NOT, _DO_EMPHATIC, _NOT, _WILL, _GOING_TO, _WOULD_LOVE_TO, _MODAL,
              _HAVE_TO, _CAN, _HAVE, _BE_ING, _HEDGE, _INTENT)
)  # fmt: skip
_AUX_GATES: dict[str, tuple[bool, ...]] = {}
