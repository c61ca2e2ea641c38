"""Facts carried by noun phrases and possessives rather than by a verb phrase.

"my girlfriend, Hana," states a relationship wherever it appears ("I met my girlfriend, Hana, at a
concert"); "my favourite film is Alien" and "Portland is where I live" have a possessive or a
place as their grammatical subject. These rules run on the whole clause, before and independent of
the subject-and-verb rules in ``patterns.py``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime

from ....vocab.predicates import favourite_predicate
from ....vocab.relation_words import NOT_NAMES, relation_of, relation_pattern
from . import dates
from .base import Draft, items
from .clauses import ADJ, NAME, possessive_subject
from .common import NUMBER, count_text
from .gates import prefiltered
from .lexicon import is_demonym, is_place, job_head, pet_pattern
from .objects import clean, proper_run, split_items, strip_leading, tidy

_REL = relation_pattern()
_PET = pet_pattern()
_NAME_LIST = rf"{NAME}(?:\s+{NAME})?(?:\s*,\s*{NAME})*(?:\s*,?\s+(?:and|&)\s+{NAME})?"
_MY = r"(?:[Mm]y|[Oo]ur)"


def _ok(name: str) -> bool:
    first = name.split()[0].lower()
    return (
        first not in NOT_NAMES and not is_demonym(first) and relation_of(first) is None and not is_place(name)
    )


def _people(text: str | None, plural: bool) -> list[str]:
    if not text:
        return []
    found = [
        n for n in (proper_run(p, max_tokens=2) for p in split_items(text, binomials=False)) if n and _ok(n)
    ]
    return found if plural else found[:1]


def _relation_drafts(owner: str, rel: str, names: list[str], adj: str | None, rule: str) -> list[Draft]:
    predicate = relation_of(rel)
    if predicate is None:
        return []
    if rel.lower() == "twins":  # "our twins" are children; "my twin" is a sibling
        predicate = "child"
    adj = (adj or "").lower()
    ended = adj == "late" or adj.startswith("ex") or rel.lower() == "ex"
    role = ("ex-" if adj.startswith("ex") else "late " if adj == "late" else "") + rel.lower()
    out = []
    for name in names:
        name = re.sub(r"'s$", "", name)  # "my boy Ty's game": Ty
        role_singular = role[:-1] if role.endswith("s") and relation_of(role[:-1]) else role
        text = f"{name} is {owner}'s {role_singular}" if not ended else f"{name} was {owner}'s {rel.lower()}"
        out.append(
            Draft(predicate, name, 0.85, rule=rule, subject=owner, text=text, timing="none", ended=ended)
        )
    return out


_RELATION_APPOSITION = re.compile(
    rf"\b(?P<own>{_MY}|[Hh]is|[Hh]er)\s+(?:(?P<adj>{ADJ})(?:\s+|(?<=-)))?(?P<rel>{_REL})(?!')\b"
    rf"(?:\s*,\s*(?P<name>{_NAME_LIST})\s*(?=,|$|\s+(?:and|who|is|was|has|had|lives|works)\b)|"
    rf"\s+(?P<name2>{_NAME_LIST}))"
)
_RELATION_BEFORE = re.compile(
    rf"\b(?P<name>{NAME}(?:\s+{NAME})?)\s*,\s*{_MY}\s+(?:(?P<adj>{ADJ})(?:\s+|(?<=-)))?(?P<rel>{_REL})\b"
)
_RELATION_IS = re.compile(
    rf"(?:^|(?<=\s))(?P<name>{_NAME_LIST})\s+(?:is|are|was|were|has been|have been)\s+{_MY}\s+"
    rf"(?:(?P<adj>{ADJ})(?:\s+|(?<=-)))?(?P<rel>{_REL})\b(?!')"
)
_PRONOUN_IS_REL = re.compile(
    rf"^(?:[Hh]e|[Ss]he)\s+(?:is|was)\s+(?:now\s+|officially\s+)?{_MY}\s+(?:(?P<adj>{ADJ})(?:\s+|(?<=-)))?"
    rf"(?P<rel>{_REL})\b(?!')"
)
_RELATION_NAMED = re.compile(
    rf"\b{_MY}\s+(?:(?P<adj>{ADJ})(?:\s+|(?<=-)))?(?P<rel>{_REL})(?:'s\s+name\s+is|\s+is\s+(?:named|called)|"
    rf"\s+goes\s+by)\s+(?P<name>{NAME}(?:\s+{NAME})?)"
)
_RELATION_IS_NAME = re.compile(
    rf"^{_MY}\s+(?:(?P<adj>{ADJ})(?:\s+|(?<=-)))?(?P<rel>{_REL})\s+(?:is|are)\s+(?P<name>{_NAME_LIST})$"
)
_THIRD_PARTY = re.compile(
    rf"\b(?P<owner>{NAME})'s\s+(?:(?P<adj>{ADJ})(?:\s+|(?<=-)))?(?P<rel>{_REL})(?!')\b"
    rf"(?:\s*,\s*(?P<name>{NAME})\s*,|"
    rf"\s+(?P<name2>{NAME}))"
)
_JOB_AT = re.compile(
    rf"\b(?P<own>{_MY}|[Hh]is|[Hh]er)\s+(?:(?P<when>new|current|first|old|previous|former|last|dream|summer|day)\s+)?"
    r"(?:job|position|role|internship|gig)\s+(?:at|with)\s+(?P<o>[A-Z].*)"
)
_PET_APPOSITION = re.compile(
    rf"\b{_MY}\s+(?P<mods>(?:[a-z-]+\s+){{0,2}}?)(?P<pet>{_PET})(?!')\b"
    rf"(?:\s*,\s*(?P<name>{NAME})\s*(?=,|$|\s+(?:and|who|is|was|has)\b)|\s+(?P<name2>{NAME}))"
)
# "Tasha's cat Peaches", "my sister's dog Rex": someone else's pet
_PET_OF_OTHER = re.compile(
    rf"\b(?:(?P<owner>{NAME})|{_MY}\s+(?P<rel>{_REL}))'s\s+(?P<mods>(?:[a-z-]+\s+){{0,2}}?)(?P<pet>{_PET})(?!')\b"
    rf"(?:\s*,\s*(?P<name>{NAME})\s*(?=,|$|\s+(?:and|who|is|was|has)\b)|\s+(?P<name2>{NAME}))"
)
# "a video of Pipoca, her dog", "Biscuit, our beagle": the name, then whose pet it is
_PET_APPOSED = re.compile(
    rf"(?:^|(?<=\s))(?P<name>{NAME}),\s+(?P<own>my|our|his|her)\s+(?P<mods>(?:[a-z-]+\s+){{0,2}}?)(?P<pet>{_PET})\b"
    r"(?!')(?=\s*(?:,|$))"
)
_PET_NAMED = re.compile(
    rf"\b{_MY}\s+(?P<pet>{_PET})(?:'s\s+name\s+is|\s+is\s+(?:named|called))\s+(?P<name>{NAME})"
)
_PET_IS = re.compile(
    rf"(?:^|(?<=\s))(?P<name>{NAME})\s+is\s+{_MY}\s+(?P<mods>(?:[a-z-]+\s+){{0,2}}?)(?P<pet>{_PET})\b(?!')"
)


_NAME_TITLE = re.compile(
    rf"\b(?P<name>{NAME}(?:\s+{NAME})?)\s*(?:,\s*(?:my|our|the)\s+(?P<t>(?:[a-z-]+\s+){{0,3}}[a-z-]+)\s*(?:,|$)|"
    rf"\(\s*(?:my|our|the)?\s*(?P<t2>(?:[a-z-]+\s+){{0,3}}[a-z-]+)\s*\))"
)
_OF_MINE = re.compile(
    rf"\b(?:a|an|one)\s+(?:(?P<adj>{ADJ})(?:\s+|(?<=-)))?(?P<rel>{_REL})\s+of\s+(?:mine|ours)\s*,?\s*"
    rf"(?:(?:named|called)\s+)?(?P<name>{NAME}(?:\s+{NAME})?)"
)
_FROM_WORK = re.compile(
    rf"\b(?P<name>{NAME}(?:\s+{NAME})?)\s+from\s+(?:(?:my|our)\s+(?:[a-z-]+\s+){{0,2}}?(?:department|team|office|lab|"
    r"company|squad|group|unit|floor|job)|work)\b"
)
_GOES_BY = re.compile(
    rf"\b(?P<name>{NAME}(?:\s+{NAME})?)\s*,?\s+(?:who|whom)\s+(?:goes|went)\s+by\s+(?P<nick>{NAME})"
)
_CALLS_THEM = re.compile(
    r"(?:^|,\s*)(?:everyone|everybody|people|most people|we all|we|friends|all (?:his|her) friends|"
    rf"(?:his|her) friends)\s+(?:just\s+)?calls?\s+(?:him|her)\s+(?P<nick>{NAME})"
)
_AGE_WHO = re.compile(
    rf"\b(?P<name>{NAME})\s*,?\s+who\s+is\s+(?:(?:now|just|only|almost|nearly)\s+)?(?P<n>{NUMBER})\b"
    r"(?!\s*(?:%|percent|feet|foot|ft|cm|inches|kg|lbs?|pounds|minutes|hours|days|weeks|months|-))"
)
_HERE_IN = re.compile(r"\bhere\s+in\s+(?:the\s+)?(?P<o>[A-Z][\w.'-]*(?:\s+[A-Z][\w.'-]*)*)")
# Words that make "here in X" a stay rather than a home, anywhere in the message.
AWAY = re.compile(
    r"\b(?:visit|visiting|trip|travel|travelling|traveling|vacation|holiday|honeymoon|conference|tourist|"
    r"for (?:a|the|one|two|three) (?:night|nights|day|days|week|weeks|weekend|few days))\b",
    re.I,
)
_LAST_DAY = re.compile(
    r"\b(?P<own>[Mm]y|[Hh]is|[Hh]er)\s+last\s+day\s+(?:at|with)\s+(?P<o>[A-Z][\w&.'-]*(?:\s+[A-Z][\w&.'-]*)*)"
)
_BIRTHDAY_AGE = re.compile(
    r"\b(?:was|is)\s+my\s+(?:(?P<n>\d{1,2})(?:st|nd|rd|th)\s+birthday\b|birthday\s*,\s*(?P<n2>\d{1,2})\b"
    r"(?!\s*(?:st|nd|rd|th|am|pm|:|%)))"
)


def _more_mentions(text: str, speaker: str, referent: str | None) -> list[Draft]:
    """Apposed relations ("a coworker of mine, Sarah Kim"), nicknames, ages and workplaces in passing."""
    out: list[Draft] = []
    for m in _OF_MINE.finditer(text):
        out += _relation_drafts(speaker, m["rel"], _people(m["name"], False), m["adj"], "relation.of_mine")
    for m in _FROM_WORK.finditer(text):
        if _ok(m["name"]) and m["name"] != speaker:
            text_ = f"{m['name']} is {speaker}'s colleague"
            out.append(
                Draft("colleague", m["name"], 0.7, rule="relation.from_work", subject=speaker, text=text_)
            )
    for m in _NAME_TITLE.finditer(text):  # "Pedro Alves, our head baker, ...", "Pedro Alves (head baker)"
        title = (m["t"] or m["t2"]).lower()
        if _ok(m["name"]) and job_head(title) and relation_of(title.split()[-1]) is None:
            said = f"{m['name']} is {'an' if title[:1] in 'aeiou' else 'a'} {title}"
            out.append(Draft("job_title", title, 0.75, rule="job.apposition", subject=m["name"], text=said,
                             kind="none", timing="none"))
    for m in _GOES_BY.finditer(text):
        if _ok(m["name"]) and _ok(m["nick"]):
            out.append(_nickname(m["name"], m["nick"]))
    if referent and (m := _CALLS_THEM.search(text)) and _ok(m["nick"]) and m["nick"] != referent:
        out.append(_nickname(referent, m["nick"]))
    for m in _AGE_WHO.finditer(text):
        value = count_text(m["n"])
        if _ok(m["name"]) and value.isdigit() and 0 < int(value) < 120:
            out.append(
                Draft("age", value, 0.8, rule="age.who_is", subject=m["name"], kind="none", timing="start")
            )
    for m in _LAST_DAY.finditer(text):
        owner = speaker if m["own"].lower() == "my" else referent
        value = proper_run(m["o"])
        if owner and value and not is_place(value):
            out.append(
                Draft(
                    "works_at", value, 0.8, rule="works_at.last_day", subject=owner, timing="end", ended=True
                )
            )
    if m := _BIRTHDAY_AGE.search(text):
        value = m["n"] or m["n2"]
        if 0 < int(value) < 120:
            out.append(
                Draft("age", value, 0.8, rule="age.birthday", subject=speaker, kind="none", timing="start")
            )
    return out


def here_in(text: str, speaker: str) -> list[Draft]:
    """'I'm a designer at an agency here in Denver': the speaker is in Denver (said of themself only)."""
    out = []
    if (m := _HERE_IN.search(text)) and m["o"].split()[0].lower() not in NOT_NAMES:  # "got here in March"
        for d in items("lives_in", m["o"], "place", 0.6):
            d.rule, d.subject, d.timing = "lives_in.here_in", speaker, "none"
            out.append(d)
    return out


def _nickname(name: str, nick: str) -> Draft:
    return Draft(
        "nickname", nick, 0.8, rule="nickname.mention", subject=name, kind="none", timing="none",
        text=f"{name} goes by {nick}",
    )  # fmt: skip


def relation_mentions(text: str, speaker: str, referent: str | None = None) -> list[Draft]:
    """Relationships and pets named anywhere in the clause ("my sister Lena", "Mochi is our cat").

    "his/her wife Ana" belongs to ``referent``, the one person already named in the message.
    """
    out: list[Draft] = _more_mentions(text, speaker, referent)
    # "with Tony, my fella, South Island, Queenstown ...": a relation named before its comma is
    # not named again after it; what follows is the sentence going on (here a list of places).
    named_before = {m.end("rel") for m in _RELATION_BEFORE.finditer(text)}
    for m in _RELATION_APPOSITION.finditer(text):
        owner = speaker if m["own"].lower() in ("my", "our") else referent
        if owner is None or (m["name"] and m.end("rel") in named_before):
            continue
        plural = m["rel"].lower().endswith(("s", "children"))
        out += _relation_drafts(
            owner, m["rel"], _people(m["name"] or m["name2"], plural), m["adj"], "relation.apposition"
        )
    if referent and (m := _PRONOUN_IS_REL.match(text)):  # "she's my girlfriend now": the one person named
        out += _relation_drafts(speaker, m["rel"], [referent], m["adj"], "relation.is")
    for pattern, rule in (
        (_RELATION_BEFORE, "relation.apposition"),
        (_RELATION_NAMED, "relation.named"),
        (_RELATION_IS, "relation.is"),
        (_RELATION_IS_NAME, "relation.is"),
    ):
        for m in pattern.finditer(text):
            plural = m["rel"].lower().endswith("s")
            out += _relation_drafts(
                speaker, m["rel"], _people(m["name"], plural or rule == "relation.is"), m["adj"], rule
            )
    for m in _JOB_AT.finditer(text):  # "I love my new job at Adobe"
        owner = speaker if m["own"].lower() in ("my", "our") else referent
        value = proper_run(m["o"])
        if owner and value and not is_place(value):
            ended = bool(m["when"]) and m["when"].lower() in ("old", "previous", "former", "last", "first")
            out.append(
                Draft(
                    "works_at",
                    value,
                    0.75,
                    rule="works_at.mention",
                    subject=owner,
                    timing="none",
                    ended=ended,
                )
            )
    for m in _THIRD_PARTY.finditer(text):
        if _ok(m["owner"]):
            out += _relation_drafts(
                m["owner"],
                m["rel"],
                _people(m["name"] or m["name2"], False),
                m["adj"],
                "relation.third_party",
            )
    for pattern in (_PET_APPOSITION, _PET_NAMED, _PET_IS, _PET_OF_OTHER, _PET_APPOSED):
        for m in pattern.finditer(text):
            name = m["name"] or m.groupdict().get("name2")
            if not name or not _ok(name):
                continue
            owner = speaker
            if pattern is _PET_APPOSED and m["own"] in ("his", "her"):
                if not referent:
                    continue
                owner = referent
            if pattern is _PET_OF_OTHER:
                owner = m["owner"] if m["owner"] else f"{speaker}'s {m['rel'].lower()}"
                if m["owner"] and not _ok(m["owner"]):
                    continue
            kind = " ".join([*(m.groupdict().get("mods") or "").split(), m["pet"]]).lower()
            out.append(
                Draft(
                    "pet",
                    name,
                    0.85,
                    rule="pet.mention",
                    subject=owner,
                    timing="none",
                    text=f"{owner} has a {kind} named {name}",
                )
            )
    return out


# ------------------------------------------------------------------------------ possessives


@dataclass(frozen=True, slots=True)
class Owner:
    name: str  # whose attribute it is
    kind: str  # "speaker" | "person" | "relative" | "pet"
    role: str = ""  # relation or pet noun for an unnamed relative ("sister")


_OWNER = (
    rf"(?P<owner>{_MY}|[Hh]is|[Hh]er|[Ii]ts|{NAME}'s|{_MY}\s+(?:{ADJ}(?:\s+|(?<=-)))?(?:{_REL}|{_PET})(?:\s+{NAME})?'s)"
)


_OWNER_NOUN = re.compile(
    rf"{_MY}\s+(?:{ADJ}(?:\s+|(?<=-)))?(?P<noun>[a-z-]+(?:\s+[a-z-]+)?)(?:\s+(?P<name>{NAME}))?'s$"
)


def _owner(text: str, speaker: str, referent: str | None, last_pet: str | None = None) -> Owner | None:
    lowered = text.lower()
    if lowered in ("my", "our"):
        return Owner(speaker, "speaker")
    if lowered in ("his", "her", "its"):
        if referent:
            return Owner(referent, "person")
        if last_pet:  # "I adopted a puppy! His name is Oscar."
            return Owner(possessive_subject(last_pet, speaker), "pet", last_pet)
        return None
    m = _OWNER_NOUN.match(text)
    if m:
        if m["name"] and _ok(m["name"]):
            return Owner(m["name"], "person")
        noun = m["noun"].lower()
        kind = "relative" if relation_of(noun) else "pet"
        return Owner(possessive_subject(noun, speaker), kind, noun)
    name = text[:-2]
    if _ok(name):
        return Owner(name, "person")
    return None


_WEEKDAY_FIRST = re.compile(
    r"^(?:on\s+)?(?:last\s+)?(?:mon|tues|wednes|thurs|fri|satur|sun)day,?\s+(?=(?:the\s+)?\d|[A-Z][a-z]+\s+\d)",
    re.IGNORECASE,
)


def _date_value(raw: str, now: datetime) -> tuple[str | None, str | None]:
    """('May 3', '1990') from "May 3rd, 1990"; month-only gives ('May', None). A weekday before
    the date ("Thursday, August 14") is not the date."""
    raw = _WEEKDAY_FIRST.sub("", raw)
    for expr in dates.find_time_expressions(raw, now):
        if expr.kind != "point" or expr.valid_from is None:
            continue
        year = str(expr.valid_from.year) if re.search(r"\b(?:1[89]|20)\d\d\b", expr.text) else None
        if expr.granularity == "day":
            return expr.valid_from.strftime("%B %-d"), year
        if expr.granularity == "month":
            return expr.valid_from.strftime("%B"), year
    return None, None


_COPULA = (
    r"(?:is|are|was|were|has always been|has to be|would have to be|would be|must be|will always be|"
    r"right now is|is now|are now|has become|have become|became|is still|are still|remains|has been|"
    r"have been|is probably|is definitely)"
)
POSSESSIVE_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (name, prefiltered(re.compile(pattern)))  # speed: each needs its noun ("name", "birthday", "job", ...)
    for name, pattern in (
        (
            "name",
            rf"^{_OWNER}\s+(?:full\s+|real\s+|first\s+|given\s+|"
            rf"legal\s+)?name\s+is\s+(?P<o>{NAME}(?:\s+{NAME}){{0,2}})",
        ),
        ("nickname", rf"^{_OWNER}\s+nickname\s+is\s+(?P<o>{NAME})"),
        (
            "birthday",
            rf"^{_OWNER}\s+(?:birthday|bday|b-day|date of birth|birth date|DOB|"
            rf"dob)\s+(?:is|was|falls)\s+(?:on\s+)?(?P<o>.+)",  # "was on Thursday, August 14": this year's
        ),
        (
            "favourite",
            rf"^{_OWNER}\s+(?:all[- ]time\s+|absolute\s+|personal\s+|current\s+|new\s+)?(?:favou?rite|go-to|"
            rf"fave|fav)\s+(?P<cat>[A-Za-z][\w -]{{0,30}}?)"
            rf"(?:\s+(?:of all time|ever|in the world|at the moment|right now|these days|of the year))?"
            rf"\s+{_COPULA}\s+(?P<o>.+)",
        ),
        (
            "hobby",
            rf"^{_OWNER}\s+(?:main\s+|favou?rite\s+|biggest\s+|only\s+|new\s+)?(?:hobby|hobbies|passion|"
            rf"passions|"
            rf"pastime|pastimes)\s+(?:is|are|include|includes|would be|would have to be)\s+(?P<o>.+)",
        ),
        (
            "job_title",
            rf"^{_OWNER}\s+(?:current\s+|new\s+|day\s+|full-time\s+)?(?:job|job title|occupation|profession|"
            rf"title|role|position)\s+is\s+(?P<o>.+)",
        ),
        ("works_at", rf"^{_OWNER}\s+(?:employer|company|workplace)\s+is\s+(?P<o>[A-Z].+)"),
        ("studies_at", rf"^{_OWNER}\s+(?:school|university|college|uni|alma mater)\s+is\s+(?P<o>[A-Z].+)"),
        ("studies", rf"^{_OWNER}\s+(?:major|field|field of study|degree|subject)\s+is\s+(?:in\s+)?(?P<o>.+)"),
        (
            "lives_in",
            rf"^{_OWNER}\s+(?:home|house|place|apartment|flat|family home|new place|new apartment|"
            rf"new house)\s+is\s+(?:in|at|near|located in|based in|over in|out in|down in|up in)\s+(?P<o>.+)",
        ),
        (
            "from",
            rf"^{_OWNER}\s+(?:hometown|home town|birthplace|home country|home state|"
            rf"home city)\s+is\s+(?P<o>.+)",
        ),
        (
            "speaks",
            rf"^{_OWNER}\s+(?:native|first|mother|primary|home)\s+(?:language|tongue)\s+is\s+(?P<o>.+)",
        ),
    )
)
_FAVOURITE_REVERSED = re.compile(
    rf"^(?P<o>.+?)\s+(?P<cop>is|are|was|were|has always been|will always be)\s+"
    rf"(?P<owner>{_MY}|[Hh]is|[Hh]er)\s+"
    r"(?:all[- ]time\s+|absolute\s+|personal\s+|new\s+)?(?:favou?rite|go-to|fave|"
    r"fav)(?:\s+(?P<cat>[A-Za-z][\w-]*(?:\s+[A-Za-z][\w-]*)?))?"
    r"(?:\s+(?:now|these days|nowadays|again|for now|right now|period|hands down|by far|of all time|ever|"
    r"for sure|no question|in the world|bar none))*(?:$|,)"
)
_GENERIC_THINGS = frozenset(
    "one thing things place movie film book song show dish food drink game band".split()
)
# "she makes a chicken gumbo that is my favourite food now": the noun phrase before the relative
_FAVOURITE_RELATIVE = re.compile(
    r"\b(?:a|an|the|this|her|his)\s+(?P<o>[A-Za-z][\w'&-]*(?:\s+[A-Za-z][\w'&-]*){0,5}?)\s*,?\s+"
    r"(?:that|which)\s+(?P<cop>is|was|has become|became)\s+(?:now\s+)?(?P<owner>my|our)\s+"
    r"(?:new\s+|all[- ]time\s+|absolute\s+)?(?:favou?rite|fave|fav)\s+(?P<cat>[a-z]+)\b"
)
# "the Kings are my team", "hiking is my happy place": a favourite or a pastime said without the word.
_MY_TEAM = re.compile(
    r"(?:^|,\s+)(?:[Tt]he\s+)?(?P<o>[A-Z][\w'&.-]*(?:\s+[A-Z][\w'&.-]*)*)\s+"
    r"(?:is|are|has always been|have always been)\s+"
    r"(?:(?:still|always|definitely)\s+)?(?:my|our)\s+(?P<cat>team|band|club|show|song|album|game|sport|artist|"
    r"singer|author|podcast)\b(?!\s+(?:mate|member|leader|manager|lead|captain))"
)
_MY_THING = re.compile(
    r"^(?P<o>[a-z]+ing(?:\s+[a-z]+)?|[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)*)\s+"
    r"(?:is|has become|became|has been|has always been|have been|have always been)\s+"
    r"(?:(?:kind of|sort of|really|genuinely|honestly|totally|definitely|basically|just|truly|still|always|"
    r"officially|like)\s+)*(?:my|our)\s+(?:(?:happy|zen|favou?rite|comfort|new|main|big|whole|one true|"
    r"go-to)\s+)?(?P<what>place|thing|jam|passion|therapy|outlet|escape|obsession|hobby|love|life)\b"
)
_LANGUAGE_REVERSED = re.compile(
    rf"^(?P<o>[A-Z]\w+)\s+is\s+(?P<owner>{_MY}|[Hh]is|[Hh]er)\s+(?:native|first|mother|"
    rf"primary)\s+(?:language|tongue)"
)
_PLACE_IS_WHERE = re.compile(
    r"^(?P<o>[A-Z][\w .,'-]*?)\s+is\s+(?:where\s+(?:I|we)\s+(?P<verb>live|am living|have lived|"
    r"have been living|grew up|am from|was born|work|study)\b|(?:my|our)\s+(?:new\s+)?(?P<h>home|hometown|"
    r"home town)\b|(?P<now>home)\s*(?:now|for now|these days)?$)"
)


def possessive_drafts(
    text: str,
    speaker: str,
    referent: str | None,
    now: datetime,
    last_pet: str | None = None,
    antecedent: str | None = None,
) -> list[Draft]:
    """Statements whose subject is a possessive ("my birthday is ...") or a place ("Lyon is home").

    ``last_pet`` is an unnamed pet the message mentioned, the likely owner of "his name is ...".
    """
    out: list[Draft] = []
    for name, pattern in POSSESSIVE_PATTERNS:
        m = pattern.match(text)
        if not m:
            continue
        owner = _owner(m["owner"], speaker, referent, last_pet)
        if owner is None:
            continue
        out += [_owned(d, owner, name) for d in _possessive(name, m, owner, speaker, now)]
    if m := _FAVOURITE_REVERSED.match(text):
        owner = _owner(m["owner"], speaker, referent)
        said = m["o"].strip()
        if said.lower() in ("they", "it", "that", "this", "they are", "it is") and antecedent:
            said = antecedent  # "Big Thief has taken over. They're my favourite band now"
        value = clean(said, "thing")
        clause_like = re.search(r"^(?:I|we|they|he|she|you)\s|\s(?:that|which)$", said)  # a relative: below
        if owner and value and len(value.split()) <= 6 and not clause_like:
            predicate = favourite_predicate(m["cat"]) if m["cat"] else "likes"
            ended = m["cop"] in ("was", "were")  # "Radiohead was my favourite band": no longer
            out.append(
                Draft(
                    predicate,
                    value,
                    0.8,
                    rule="favourite.reversed",
                    subject=owner.name,
                    timing="none",
                    ended=ended,
                )
            )
    if (
        (m := _FAVOURITE_RELATIVE.search(text))
        and (value := clean(m["o"], "thing"))
        and value.lower() not in _GENERIC_THINGS
    ):
        out.append(Draft(favourite_predicate(m["cat"]), value, 0.7, rule="favourite.relative",
                         subject=speaker,
                         timing="none", ended=m["cop"] == "was"))
    if m := _MY_TEAM.search(text):
        owner_name = speaker
        if (value := proper_run(m["o"])) and _ok(value):
            predicate = favourite_predicate(m["cat"])
            out.append(
                Draft(predicate, value, 0.75, rule="favourite.my_team", subject=owner_name, timing="none")
            )
    if m := _MY_THING.match(text):
        value = clean(m["o"], "thing")
        if value and value.lower() not in ("this", "that", "it", "everything", "nothing", "something"):
            gerund = value.endswith("ing")
            hobby = gerund and m["what"] != "love"  # "hiking is my escape"; "baking is my love" is a liking
            predicate = "hobby" if hobby else "likes"
            out.append(
                Draft(predicate, value, 0.7, rule=f"{predicate}.my_thing", subject=speaker, timing="none")
            )
    if m := _LANGUAGE_REVERSED.match(text):
        owner = _owner(m["owner"], speaker, referent)
        if owner:
            out.append(Draft("speaks", m["o"], 0.85, rule="speaks.native", subject=owner.name, timing="none"))
    if m := _PLACE_IS_WHERE.match(text):
        verb = (m["verb"] or m["h"] or m["now"] or "").lower()
        predicate = {
            "grew up": "from",
            "am from": "from",
            "was born": "from",
            "hometown": "from",
            "home town": "from",
            "work": "works_at",
            "study": "studies_at",
        }.get(verb, "lives_in")
        kind = "organization" if predicate in ("works_at", "studies_at") else "place"
        for d in items(predicate, m["o"], kind, 0.8 if m["verb"] or m["h"] else 0.65):
            d.rule, d.subject = "place.is_where", speaker
            out.append(d)
    return out


def _owned(draft: Draft, owner: Owner, rule: str) -> Draft:
    draft.rule = draft.rule or f"possessive.{rule}"
    draft.subject = draft.subject or owner.name
    return draft


def _possessive(name: str, m: re.Match[str], owner: Owner, speaker: str, now: datetime) -> list[Draft]:
    value = m["o"]
    if name == "name":
        person = proper_run(value, max_tokens=3)
        if not person or not _ok(person):
            return []
        if owner.kind == "relative":  # "my sister's name is Ana": the fact is who the sister is
            return _relation_drafts(speaker, owner.role, [person], None, "relation.named")
        if owner.kind == "person" and owner.name != person and m["owner"].lower() in ("his", "her"):
            return []  # "Salt has a new friend, her name is Nutmeg": the name is the friend's
        if owner.kind == "pet":
            return [
                Draft(
                    "pet",
                    person,
                    0.9,
                    subject=speaker,
                    timing="none",
                    text=f"{speaker} has a {owner.role} named {person}",
                )
            ]
        return [Draft("name", person, 0.95, kind="none", timing="none")]
    if name == "nickname":
        return [Draft("nickname", value, 0.9, kind="none", timing="none")]
    if name == "birthday":
        day, year = _date_value(value, now)
        out = [Draft("birthday", day, 0.9, kind="none", timing="none")] if day else []
        if year:
            out.append(Draft("birth_year", year, 0.85, kind="none", timing="none"))
        return out
    if name == "favourite":
        predicate = favourite_predicate(m["cat"])
        out = items(
            predicate, value, "thing", 0.9, timing="none", listable=" are " in m[0] or " were " in m[0]
        )
        for d in out:
            d.kind = "thing"
        return out
    if name == "hobby":
        return items("hobby", value, "thing", 0.9, listable=True)
    if name == "job_title":
        value = re.sub(r"^(?:being\s+|working\s+as\s+|as\s+)?(?:a|an)\s+", "", tidy(value))
        title = strip_leading(clean(re.split(r"\s+(?:at|for|with)\s+", value)[0], "thing") or "")
        out = [Draft("job_title", title, 0.85, kind="none")] if title and len(title.split()) <= 5 else []
        org = re.search(r"\s+(?:at|for|with)\s+(?P<o>[A-Z].+)", value)
        if org:
            out += items("works_at", org["o"], "organization", 0.8)
        return out
    if name in ("works_at", "studies_at"):
        return items(name, value, "organization", 0.85)
    if name == "studies":
        cleaned = clean(value, "thing")
        return [Draft("studies", cleaned, 0.8, kind="none")] if cleaned else []
    if name in ("lives_in", "from"):
        return items(name, value, "place", 0.85, timing="none" if name == "from" else "state")
    if name == "speaks":
        return [
            Draft("speaks", p, 0.85, timing="none")
            for p in (tidy(x) for x in split_items(value))
            if p[:1].isupper()
        ]
    return []


# ------------------------------------------------------------------------------ speaker-only

_CALL_ME = re.compile(
    r"^(?i:(?:(?:you can|you may|please|just|feel free to|everyone|everybody|people|my friends|friends|"
    r"most people|they|folks|my family|all my friends|most folks)\s+)*calls?\s+me\s+)"
    rf"(?P<o>{NAME})\b"
)
_KNOWN_AS = re.compile(
    rf"^(?i:(?:everyone|everybody|people|my friends|most people)\s+knows?\s+me\s+as\s+)(?P<o>{NAME})\b"
)
_HERE = re.compile(
    rf"^(?:(?:this is|it is)\s+)?(?P<o>{NAME}(?:\s+{NAME})?)\s+(?:here|speaking)(?:$|,)|"
    rf"^this is\s+(?P<n>{NAME})$"
)
# "Jonathan here, but call me Jon": the request follows the introduction in the same clause.
# After a bare space it needs the conjunction: in "only my mum calls me Beatriz" one person's
# name for the speaker is not what the speaker goes by.
_BUT_CALL_ME = re.compile(
    r"(?:,\s*(?:(?:but|so|and)\s+)?|\s+(?:but|so|and)\s+)"
    r"(?:(?:please|just|everyone|everybody|people|my friends|friends|most people)\s+)?"
    rf"calls?\s+me\s+(?P<o>{NAME})\b"
)


def speaker_drafts(text: str, speaker: str, intro: bool) -> list[Draft]:
    """Statements only the speaker makes about themself: "call me Sam", "Priya here"."""
    for pattern in (_CALL_ME, _KNOWN_AS):
        if (m := pattern.match(text)) and _ok(m["o"]):
            return [
                Draft(
                    "nickname",
                    m["o"],
                    0.85,
                    rule="nickname.call_me",
                    subject=speaker,
                    kind="none",
                    timing="none",
                )
            ]
    out = []
    if intro and (m := _HERE.match(text)):
        name = m["o"] or m["n"]
        if _ok(name):
            out.append(
                Draft("name", name, 0.6, rule="name.here", subject=speaker, kind="none", timing="none")
            )
    if (m := _BUT_CALL_ME.search(text)) and _ok(m["o"]):
        out.append(
            Draft(
                "nickname", m["o"], 0.8, rule="nickname.call_me", subject=speaker, kind="none", timing="none"
            )
        )
    if (m := _HOME_IS.match(text)) and (place := proper_run(m["o"], allow_region=True)):
        out.append(Draft("lives_in", place, 0.7, rule="lives_in.home_is", subject=speaker, kind="place"))
    if (m := _WEEKS_IN.match(text)) and (org := proper_run(m["o"])) and not is_place(org):
        out.append(Draft("works_at", org, 0.7, rule="works_at.weeks_in", subject=speaker, timing="none"))
    if (m := _FIRST_STINT.match(text)) and (org := proper_run(m["o"])) and not is_place(org):
        out += [
            Draft("works_at", org, 0.7, rule="works_at.first_days", subject=speaker, timing="none"),
            Draft("job_title", m["job"], 0.65, rule="job.first_days", subject=speaker, kind="none",
                  timing="none"),
        ]
    if (m := _TO_SELL.search(text)) and (thing := proper_run(m["o"], max_tokens=3) or m["o"].lower()):
        said = f"{speaker} owns {thing if thing[:1].isupper() else 'a ' + thing}"
        out.append(Draft("owns", thing, 0.65, rule="owns.to_sell", subject=speaker, text=said, kind="thing"))
    return out


# "Home is Vancouver these days", "home for me is Saskatoon"
_HOME_IS = re.compile(
    r"^(?:[Mm]y\s+)?[Hh]ome(?:\s+for\s+(?:me|us))?\s+(?:is|has been)\s+(?:now\s+)?(?:in\s+)?"
    r"(?P<o>[A-Z][\w'.-]*.*)"
)
# "two weeks in at Aerojet": how long someone has been in a new job
_WEEKS_IN = re.compile(
    r"^(?:\w+\s+){1,2}(?:days?|weeks?|months?)\s+in\s+at\s+(?P<o>(?:the\s+)?[A-Z].*)"
)
# "first week at WHOI as a research technician": a new job, told by its first days. Only with
# the role: "my first day at Disneyland" is a visit.
_FIRST_STINT = re.compile(
    r"^(?:(?i:my|our)\s+)?(?i:first|second|third|1st|2nd|3rd)\s+(?:full\s+)?(?:day|week|month)s?\s+"
    r"(?:at|with)\s+(?P<o>(?:the\s+)?[A-Z][\w&.'-]*(?:\s+[A-Z][\w&.'-]*)*)\s+as\s+(?:a\s+|an\s+|the\s+)?"
    r"(?P<job>[a-z][a-z-]*(?:\s+[a-z][a-z-]*){0,3}?)(?=\s*(?:[,.!?;:]|\s(?:and|but|so|which)\b|$))"
)
# "I need to sell my Subaru": what one is about to sell, one still owns
_TO_SELL = re.compile(
    r"\b(?:need|have|want|going|trying|got|planning|hoping)\s+to\s+sell\s+my\s+(?:old\s+)?"
    r"(?P<o>[A-Z][\w-]*(?:\s+[A-Z0-9][\w-]*){0,2}|car|bike|van|camera|piano|guitar|motorbike|boat|caravan)\b"
)


# Speed: these scan the whole clause, and most clauses lack a word each of them needs ("my", "from",
# "who", "job", ...); ``prefiltered`` reads those words off the pattern and tests for them first.
(
    _OF_MINE, _FROM_WORK, _NAME_TITLE, _GOES_BY, _CALLS_THEM, _AGE_WHO, _LAST_DAY, _BIRTHDAY_AGE, _HERE_IN,
    _RELATION_APPOSITION, _RELATION_BEFORE, _RELATION_NAMED, _RELATION_IS, _RELATION_IS_NAME, _JOB_AT,
    _THIRD_PARTY, _PET_APPOSITION, _PET_NAMED, _PET_IS, _PET_OF_OTHER, _PET_APPOSED, _MY_TEAM, _MY_THING,
    _FAVOURITE_REVERSED, _FAVOURITE_RELATIVE, _BUT_CALL_ME, _TO_SELL, _WEEKS_IN,
) = map(prefiltered, (
    _OF_MINE, _FROM_WORK, _NAME_TITLE, _GOES_BY, _CALLS_THEM, _AGE_WHO, _LAST_DAY, _BIRTHDAY_AGE, _HERE_IN,
    _RELATION_APPOSITION, _RELATION_BEFORE, _RELATION_NAMED, _RELATION_IS, _RELATION_IS_NAME, _JOB_AT,
    _THIRD_PARTY, _PET_APPOSITION, _PET_NAMED, _PET_IS, _PET_OF_OTHER, _PET_APPOSED, _MY_TEAM, _MY_THING,
    _FAVOURITE_REVERSED, _FAVOURITE_RELATIVE, _BUT_CALL_ME, _TO_SELL, _WEEKS_IN,
))  # fmt: skip
