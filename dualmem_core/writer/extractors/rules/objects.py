"""Turn the raw text a rule captured into a clean object: "Acme Corp", "Portland, Oregon", "hiking".

A capture runs to the end of the clause ("Denver for a new job last week"), so the object is cut at
the first word that starts something else: a preposition that begins a new phrase, a subordinator,
trailing filler ("these days", "a lot"). Proper names are taken as a whole capitalized run, so
"New York City" and "Johnson & Johnson" survive while "Denver for work" loses "for work".
"""

from __future__ import annotations

import re
from functools import lru_cache

from .lexicon import PLACES, is_place

# Speed: ``clean``, ``cut``, ``strip_trailing`` and ``proper_run`` are pure functions of their
# arguments with immutable results, and the same capture is cleaned several times per clause (a rule's
# object, then each listed item, then the plan or event reading of the same words), so each keeps
# its last answers (bounded, so a long-running writer does not grow).
_MEMO = 4096

# Words that end a noun phrase capture, whatever the kind of object.
_CUT = re.compile(
    r"\s+(?:because|cause|since|when|whenever|while|but|which|who|whom|whose|where|so that|so|if|unless|"
    r"although|though|as long as|as much as|after|before|until|till|ever since|now that|even though|"
    r"especially|except|like I said|lol|haha|than|instead of|rather than|in order to|right\?)\b"
    r"|\s+that\s+(?=(?:I|we|you|he|she|they|it|is|was|are|were|has|had|will|would)\b)"
    r"|,?\s+and\s+(?=(?:it|that|this|there|I|we|you|he|she|they)\b)"
    r"|\s*[;:(—–\"]|\s+-\s+|\s*!|\s*\?|\s*\.{2,}"
)
# Extra cuts for names of places, organisations and people: a preposition starts a new phrase.
_CUT_NAME = re.compile(
    r"\s+(?:for|with|as|to|in order|and then|and I|and we|because|but|by|from|at|on)\s+|,\s+(?=[a-z])"
    r"|\s+(?:that|which|who|where)\b"
)
_CUT_IN = re.compile(
    r"\s+(?:in|near|outside|downtown)\b"
)  # "a bakery in Boston": the workplace is the bakery
_TRAILING = re.compile(
    r"\s+(?:now|anymore|any more|any longer|too|as well|either|a lot|so much|very much|really|though|lol|"
    r"haha|again|yet|already|these days|at the moment|for now|right now|nowadays|currently|sometimes|often|"
    r"usually|regularly|daily|weekly|occasionally|a bit|a little|a ton|honestly|for sure|tbh|full[- ]time|"
    r"part[- ]time|(?:every|each|most|some) (?:single )?(?:other )?\w+|on (?:the )?weekends?|at night|"
    r"on (?:mondays|tuesdays|wednesdays|thursdays|fridays|saturdays|sundays|weekdays)|in the (?:morning|"
    r"evening)s?|(?:once|twice|\w+ times) a (?:day|week|month|year)|whenever (?:I|we) can|when (?:I|we) can|"
    r"most days|all the time|all day|by myself|on my own|together|at home|twice|once|many times|a few times|"
    r"several times|before|more and more|like crazy|like mad|forever|ever|officially|finally|still|"
    r"in general|overall|at all|of course|myself|ourselves|itself|(?:out |over |around |up |down )?here|"
    r"(?:over |out )?there|"
    # a comment tacked on: "allergic to penicillin it turns out", "I don't eat fish, never have"
    r"(?:it |as it )?turns out|as it happens|(?:I|we) (?:think|guess|reckon|suppose|believe)|"
    r"(?:and )?never (?:have|did|will|had)|(?:and )?always (?:have|had|will)|more or less|sort of|kind of|"
    r"a little bit|a bit|badly|fluently|okay|ok|well)$",
    re.IGNORECASE,
)
_LEADING = re.compile(
    r"^(?:a|an|the|some|any|my|our|his|her|their|its|this|that|these|those|really|actually|just|also|"
    r"all|both|lots of|a lot of|plenty of|kind of|sort of|pretty much|fresh|good)\s+",
    re.IGNORECASE,
)
_PRONOUNS = frozenset(
    "it this that them him her you everything anything something nothing one those these stuff things so "
    "too me us myself here there home which what some they he she we i".split()
)
_ABBREVIATION = re.compile(r"(?:St|Mt|Ft|Dr|Jr|Sr|Inc|Co|Corp|Ltd|Bros)\.$")
_NAME_TOKEN = re.compile(r"(?:[A-Z\u00C0-\u00D6\u00D8-\u00DE][\w'\u00C0-\u017F.-]*|[A-Z]{2,}|&|\d+\w*)$")
_CONNECTORS = frozenset(
    {
        "of",
        "de",
        "du",
        "la",
        "le",
        "von",
        "van",
        "der",
        "del",
        "da",
        "for",
        "and",
        "&",
        "on",
        "upon",
        "the",
        "y",
        "am",
    }
)
BINOMIALS = frozenset(
    {
        "mac and cheese",
        "fish and chips",
        "rock and roll",
        "salt and pepper",
        "peanut butter and jelly",
        "bread and butter",
        "dungeons and dragons",
        "law and order",
        "pride and prejudice",
        "rhythm and blues",
        "arts and crafts",
        "hide and seek",
        "cheese and crackers",
        "sweet and sour",
        "r&b",
        "black and white",
        "rice and beans",
        "bacon and eggs",
        "pb and j",
        "pb&j",
        "beauty and the beast",
    }
)


_SPACES = re.compile(r"\s+")
_LEADING_ARTICLE = re.compile(r"^(?:the|a|an|my|our)\s+(?=[a-z])")
_LIST_SEPARATOR = re.compile(r"\s*,\s*(?:and\s+|or\s+|&\s+)?|\s+(?:and|or|&|as well as|plus|but also)\s+")
# A part that is a clause of its own ends the list: "winter, it is so dark" lists one thing.
_CLAUSE_PART = re.compile(
    r"^(?:it|that|this|there|she|he|they|we|I|you)\s+(?:is|was|are|were|has|had|have|does|did|do|gets|got|"
    r"makes|made|can|could|will|would|feels|looks|seems|never|always|just|really)\b",
    re.IGNORECASE,
)


def tidy(text: str) -> str:
    return _SPACES.sub(" ", text).strip(" ,.;:!?\"'")


@lru_cache(maxsize=_MEMO)
def strip_trailing(text: str) -> str:
    """Remove trailing filler ("a lot", "these days", "with my dog") repeatedly."""
    previous = None
    while previous != text:
        previous = text
        text = _TRAILING.sub("", tidy(text))
    return text


def strip_leading(text: str) -> str:
    """Drop leading determiners of common nouns; a capitalized "The" stays (it is part of a title)."""
    previous = None
    while previous != text:
        previous = text
        m = _LEADING.match(text)
        if m and not (m[0].startswith("The") and text[m.end() : m.end() + 1].isupper()):
            text = text[m.end() :]
    return text


@lru_cache(maxsize=_MEMO)
def cut(text: str, kind: str = "thing") -> str:
    """The capture up to the first word that starts another phrase."""
    patterns = [_CUT]
    if kind in ("place", "organization", "person", "pet"):
        patterns.append(_CUT_NAME)
    if kind in ("organization", "person", "pet"):
        patterns.append(_CUT_IN)
    for pattern in patterns:
        m = pattern.search(text)
        if m:
            text = text[: m.start()]
    return strip_trailing(text)


@lru_cache(maxsize=_MEMO)
def proper_run(text: str, allow_region: bool = False, max_tokens: int = 6) -> str | None:
    """The capitalized name at the start of ``text`` ("New York City", "Johnson & Johnson").

    Lower-case connectors ("of", "and", "de") are kept only between capitalized words. With
    ``allow_region`` a trailing ", Region" is kept ("Portland, Oregon").
    """
    text = text.strip()
    if text.lower().startswith("the ") and len(text) > 4 and text[4:5].isupper():
        text = text[4:]
    tokens = text.split()
    taken: list[str] = []
    for index, token in enumerate(tokens):
        bare = token if _ABBREVIATION.match(token) else token.rstrip(",.;:!?")
        if _NAME_TOKEN.match(bare) and bare != "I":
            taken.append(bare)
        elif (
            bare.lower() in _CONNECTORS
            and taken
            and index + 1 < len(tokens)
            and _NAME_TOKEN.match(tokens[index + 1].rstrip(",.;:!?"))
        ):
            taken.append(bare)
        else:
            break
        if (token != bare and not _ABBREVIATION.match(token)) or len(taken) >= max_tokens:
            break
    if not taken:
        return None
    name = " ".join(taken)
    if name.endswith(".") and not _ABBREVIATION.match(taken[-1] + "."):
        name = name.rstrip(".")
    if allow_region:
        rest = text[len(" ".join(tokens[: len(taken)])) :]
        m = re.match(r",\s*([A-Z][\w'.-]*(?:\s+[A-Z][\w'.-]*)?)(?=$|[\s,.;!?])", rest)
        if m and len(m[1].split()) <= 2 and m[1].split()[0].lower() not in ("i", "but", "and", "so"):
            name = f"{name}, {m[1]}"
    return name


@lru_cache(maxsize=_MEMO)
def clean(text: str, kind: str) -> str | None:
    """A clean object for ``kind`` ("place", "organization", "person", "pet", "thing", "value")."""
    names = kind in ("place", "organization", "person", "pet")
    raw = cut(text, kind)
    raw = strip_leading(raw) if not names else _LEADING_ARTICLE.sub("", raw)
    raw = tidy(raw)
    if not raw or raw.lower() in _PRONOUNS:
        return None
    if names:
        if raw.lower().startswith("the ") and raw[4:5].isupper():
            raw = raw[4:]
        run = proper_run(raw, allow_region=kind == "place")
        if run:
            return run
        if kind in ("person", "pet"):
            return None
        words = raw.split()
        if len(words) > 5 or words[0].lower() in _PRONOUNS or words[0].lower() in ("a", "an", "the"):
            return None
        if kind == "place" and raw.lower() in PLACES:
            return " ".join(w.capitalize() for w in raw.split())
        inside = re.search(r"\b(?:in|on)\s+(?=[A-Z])", raw)
        if kind == "place" and inside:  # "a farm in Iowa": the place is Iowa
            return proper_run(raw[inside.end() :], allow_region=True) or raw
        return raw
    raw = strip_trailing(strip_leading(raw))
    if not raw or raw.lower() in _PRONOUNS or len(raw.split()) > 8:
        return None
    return raw


def split_items(text: str, binomials: bool = True) -> list[str]:
    """Split a coordinated list: "hiking, biking and rock climbing" -> three items.

    Fixed pairs ("mac and cheese") stay whole unless ``binomials`` is False (lists of names).
    """
    lowered = text.lower().strip()
    if binomials and any(b in lowered for b in BINOMIALS):
        return [text.strip()]
    items = []
    for part in _LIST_SEPARATOR.split(text):
        if part and part.strip():
            if _CLAUSE_PART.match(part.strip()):
                break
            items.append(part.strip())
    return items


def first_to_third(text: str) -> str:
    """Rewrite the speaker's words for a third-person fact: "visit my parents" -> "visit their parents"."""
    return _FIRST_PERSON.sub(_third_person, text)


# Compiled once, with the swap table outside the call: every lower-case fact value passes through here.
_FIRST_TO_THIRD = {
    "my": "their",
    "our": "their",
    "me": "them",
    "us": "them",
    "I": "they",
    "we": "they",
    "myself": "themselves",
    "mine": "theirs",
    "am": "are",
}
_FIRST_PERSON = re.compile(r"\b(my|our|me|us|I|we|myself|mine|am)\b")


def _third_person(m: re.Match[str]) -> str:
    return _FIRST_TO_THIRD[m[1]]


# ------------------------------------------------------------------------------ verb forms

# Stems whose base form ends in a silent "e" that "-ing" removed ("moving" -> "move").
_E_STEMS = frozenset(
    "retir explor prepar graduat celebrat relocat creat purchas continu arriv receiv decid becom chang "
    "arrang manag dat hik bak tak mak rid writ skat vot shar car stor tir us com hop smok rac plac "
    "danc produc shav trad escap bik sav serv leav giv hav liv lov mov driv div clos lik hat caus chas "
    "promot rescu pursu issu argu".split()
)
_DOUBLE_KEEP = frozenset({"ll", "ss", "ff", "zz"})


def to_gerund(verb: str) -> str:
    """'run' -> 'running', 'hike' -> 'hiking', 'play' -> 'playing' (regular spelling rules)."""
    word = verb.lower()
    if word.endswith("ie"):
        return word[:-2] + "ying"
    if word.endswith("e") and not word.endswith(("ee", "ye", "oe")) and word != "be":
        return word[:-1] + "ing"
    if len(word) <= 4 and re.search(r"[^aeiou][aeiou][^aeiouwxy]$", word):
        return word + word[-1] + "ing"
    return word + "ing"


def to_base(gerund: str) -> str:
    """'running' -> 'run', 'moving' -> 'move', 'visiting' -> 'visit' (best effort)."""
    word = gerund.lower()
    if not word.endswith("ing") or len(word) <= 4:
        return gerund
    stem = word[:-3]
    if stem.endswith("y") and len(stem) == 2:
        return stem[0] + "ie"  # lying -> lie
    if len(stem) >= 3 and stem[-1] == stem[-2] and stem[-2:] not in _DOUBLE_KEEP and stem[-1] not in "aeiou":
        return stem[:-1]
    if stem in _E_STEMS or stem.endswith(("v", "dg")) or re.search(r"[^aeiou]c$", stem):
        return stem + "e"
    return stem


def verb_phrase_base(phrase: str) -> str:
    """Put the first word of a verb phrase in its base form: 'moving to Berlin' -> 'move to Berlin'."""
    words = phrase.split(maxsplit=1)
    if not words:
        return phrase
    head = words[0]
    base = to_base(head) if head.lower().endswith("ing") else head
    return " ".join([base, *words[1:]])


def place_title(name: str) -> str:
    """Title-case a lower-case name that is a known place ("portland" -> "Portland")."""
    if name.islower() and is_place(name):
        return " ".join(w.capitalize() for w in name.split())
    return name
