"""Facts carried by noun phrases and possessives rather than by a verb phrase.

"my girlfriend, Hana," states a relationship wherever it appears ("I met my girlfriend, Hana, at a
concert"); "my favourite film is Alien" and "Portland is where I live" have a possessive or a
place as their grammatical subject. These rules run on the whole clause, before and independent of
the subject-and-verb rules in ``patterns.py``.

This module reads the mentions (relations, pets, "here in X"); the possessive and place subjects are
read in ``possessives.py``, what only the speaker says of themself in ``speaker_statements.py``. Both use
the name test (``name_ok``) and relation drafts of this module.
"""

from __future__ import annotations

import re

from ....vocab.relation_words import NOT_NAMES, relation_of, relation_pattern
from .base import Draft, items
from .clauses import ADJ, NAME
from .common import NUMBER, count_text
from .gates import prefiltered
from .lexicon import is_demonym, is_place, job_head, pet_pattern
from .objects import proper_run, split_items

REL = relation_pattern()
PET = pet_pattern()
_NAME_LIST = rf"{NAME}(?:\s+{NAME})?(?:\s*,\s*{NAME})*(?:\s*,?\s+(?:and|&)\s+{NAME})?"
MY = r"(?:[Mm]y|[Oo]ur)"


def name_ok(name: str) -> bool:
    first = name.split()[0].lower()
    return (
        first not in NOT_NAMES and not is_demonym(first) and relation_of(first) is None and not is_place(name)
    )


def _people(text: str | None, plural: bool) -> list[str]:
    if not text:
        return []
    found = [
        n for n in (proper_run(p, max_tokens=2) for p in split_items(text, binomials=False))
        if n and name_ok(n)
    ]
    return found if plural else found[:1]


def relation_drafts(owner: str, rel: str, names: list[str], adj: str | None, rule: str) -> list[Draft]:
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
    rf"\b(?P<own>{MY}|[Hh]is|[Hh]er)\s+(?:(?P<adj>{ADJ})(?:\s+|(?<=-)))?(?P<rel>{REL})(?!')\b"
    rf"(?:\s*,\s*(?P<name>{_NAME_LIST})\s*(?=,|$|\s+(?:and|who|is|was|has|had|lives|works)\b)|"
    rf"\s+(?P<name2>{_NAME_LIST}))"
)
_RELATION_BEFORE = re.compile(
    rf"\b(?P<name>{NAME}(?:\s+{NAME})?)\s*,\s*{MY}\s+(?:(?P<adj>{ADJ})(?:\s+|(?<=-)))?(?P<rel>{REL})\b"
)
_RELATION_IS = re.compile(
    rf"(?:^|(?<=\s))(?P<name>{_NAME_LIST})\s+(?:is|are|was|were|has been|have been)\s+{MY}\s+"
    rf"(?:(?P<adj>{ADJ})(?:\s+|(?<=-)))?(?P<rel>{REL})\b(?!')"
)
_PRONOUN_IS_REL = re.compile(
    rf"^(?:[Hh]e|[Ss]he)\s+(?:is|was)\s+(?:now\s+|officially\s+)?{MY}\s+(?:(?P<adj>{ADJ})(?:\s+|(?<=-)))?"
    rf"(?P<rel>{REL})\b(?!')"
)
_RELATION_NAMED = re.compile(
    rf"\b{MY}\s+(?:(?P<adj>{ADJ})(?:\s+|(?<=-)))?(?P<rel>{REL})(?:'s\s+name\s+is|\s+is\s+(?:named|called)|"
    rf"\s+goes\s+by)\s+(?P<name>{NAME}(?:\s+{NAME})?)"
)
_RELATION_IS_NAME = re.compile(
    rf"^{MY}\s+(?:(?P<adj>{ADJ})(?:\s+|(?<=-)))?(?P<rel>{REL})\s+(?:is|are)\s+(?P<name>{_NAME_LIST})$"
)
_THIRD_PARTY = re.compile(
    rf"\b(?P<owner>{NAME})'s\s+(?:(?P<adj>{ADJ})(?:\s+|(?<=-)))?(?P<rel>{REL})(?!')\b"
    rf"(?:\s*,\s*(?P<name>{NAME})\s*,|"
    rf"\s+(?P<name2>{NAME}))"
)
_JOB_AT = re.compile(
    rf"\b(?P<own>{MY}|[Hh]is|[Hh]er)\s+(?:(?P<when>new|current|first|old|previous|former|last|dream|summer|day)\s+)?"
    r"(?:job|position|role|internship|gig)\s+(?:at|with)\s+(?P<o>[A-Z].*)"
)
_PET_APPOSITION = re.compile(
    rf"\b{MY}\s+(?P<mods>(?:[a-z-]+\s+){{0,2}}?)(?P<pet>{PET})(?!')\b"
    rf"(?:\s*,\s*(?P<name>{NAME})\s*(?=,|$|\s+(?:and|who|is|was|has)\b)|\s+(?P<name2>{NAME}))"
)
# "Tasha's cat Peaches", "my sister's dog Rex": someone else's pet
_PET_OF_OTHER = re.compile(
    rf"\b(?:(?P<owner>{NAME})|{MY}\s+(?P<rel>{REL}))'s\s+(?P<mods>(?:[a-z-]+\s+){{0,2}}?)(?P<pet>{PET})(?!')\b"
    rf"(?:\s*,\s*(?P<name>{NAME})\s*(?=,|$|\s+(?:and|who|is|was|has)\b)|\s+(?P<name2>{NAME}))"
)
# "a video of Pipoca, her dog", "Biscuit, our beagle": the name, then whose pet it is
_PET_APPOSED = re.compile(
    rf"(?:^|(?<=\s))(?P<name>{NAME}),\s+(?P<own>my|our|his|her)\s+(?P<mods>(?:[a-z-]+\s+){{0,2}}?)(?P<pet>{PET})\b"
    r"(?!')(?=\s*(?:,|$))"
)
_PET_NAMED = re.compile(
    rf"\b{MY}\s+(?P<pet>{PET})(?:'s\s+name\s+is|\s+is\s+(?:named|called))\s+(?P<name>{NAME})"
)
_PET_IS = re.compile(
    rf"(?:^|(?<=\s))(?P<name>{NAME})\s+is\s+{MY}\s+(?P<mods>(?:[a-z-]+\s+){{0,2}}?)(?P<pet>{PET})\b(?!')"
)


_NAME_TITLE = re.compile(
    rf"\b(?P<name>{NAME}(?:\s+{NAME})?)\s*(?:,\s*(?:my|our|the)\s+(?P<t>(?:[a-z-]+\s+){{0,3}}[a-z-]+)\s*(?:,|$)|"
    rf"\(\s*(?:my|our|the)?\s*(?P<t2>(?:[a-z-]+\s+){{0,3}}[a-z-]+)\s*\))"
)
_OF_MINE = re.compile(
    rf"\b(?:a|an|one)\s+(?:(?P<adj>{ADJ})(?:\s+|(?<=-)))?(?P<rel>{REL})\s+of\s+(?:mine|ours)\s*,?\s*"
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
    m: re.Match[str] | None  # the loops' matches, then searches that may find nothing
    value: str | None  # an age's digits, then a workplace that may clean to nothing
    for m in _OF_MINE.finditer(text):
        out += relation_drafts(speaker, m["rel"], _people(m["name"], False), m["adj"], "relation.of_mine")
    for m in _FROM_WORK.finditer(text):
        if name_ok(m["name"]) and m["name"] != speaker:
            text_ = f"{m['name']} is {speaker}'s colleague"
            out.append(
                Draft("colleague", m["name"], 0.7, rule="relation.from_work", subject=speaker, text=text_)
            )
    for m in _NAME_TITLE.finditer(text):  # "Pedro Alves, our head baker, ...", "Pedro Alves (head baker)"
        title = (m["t"] or m["t2"]).lower()
        if name_ok(m["name"]) and job_head(title) and relation_of(title.split()[-1]) is None:
            said = f"{m['name']} is {'an' if title[:1] in 'aeiou' else 'a'} {title}"
            out.append(Draft("job_title", title, 0.75, rule="job.apposition", subject=m["name"], text=said,
                             kind="none", timing="none"))
    for m in _GOES_BY.finditer(text):
        if name_ok(m["name"]) and name_ok(m["nick"]):
            out.append(_nickname(m["name"], m["nick"]))
    if referent and (m := _CALLS_THEM.search(text)) and name_ok(m["nick"]) and m["nick"] != referent:
        out.append(_nickname(referent, m["nick"]))
    for m in _AGE_WHO.finditer(text):
        value = count_text(m["n"])
        if name_ok(m["name"]) and value.isdigit() and 0 < int(value) < 120:
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
    m: re.Match[str] | None  # the loops' matches, then a match at the start that may fail
    # "with Tony, my fella, South Island, Queenstown ...": a relation named before its comma is
    # not named again after it; what follows is the sentence going on (here a list of places).
    named_before = {m.end("rel") for m in _RELATION_BEFORE.finditer(text)}
    for m in _RELATION_APPOSITION.finditer(text):
        owner = speaker if m["own"].lower() in ("my", "our") else referent
        if owner is None or (m["name"] and m.end("rel") in named_before):
            continue
        plural = m["rel"].lower().endswith(("s", "children"))
        out += relation_drafts(
            owner, m["rel"], _people(m["name"] or m["name2"], plural), m["adj"], "relation.apposition"
        )
    if referent and (m := _PRONOUN_IS_REL.match(text)):  # "she's my girlfriend now": the one person named
        out += relation_drafts(speaker, m["rel"], [referent], m["adj"], "relation.is")
    for pattern, rule in (
        (_RELATION_BEFORE, "relation.apposition"),
        (_RELATION_NAMED, "relation.named"),
        (_RELATION_IS, "relation.is"),
        (_RELATION_IS_NAME, "relation.is"),
    ):
        for m in pattern.finditer(text):
            plural = m["rel"].lower().endswith("s")
            out += relation_drafts(
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
        if name_ok(m["owner"]):
            out += relation_drafts(
                m["owner"],
                m["rel"],
                _people(m["name"] or m["name2"], False),
                m["adj"],
                "relation.third_party",
            )
    for pattern in (_PET_APPOSITION, _PET_NAMED, _PET_IS, _PET_OF_OTHER, _PET_APPOSED):
        for m in pattern.finditer(text):
            name = m["name"] or m.groupdict().get("name2")
            if not name or not name_ok(name):
                continue
            owner = speaker
            if pattern is _PET_APPOSED and m["own"] in ("his", "her"):
                if not referent:
                    continue
                owner = referent
            if pattern is _PET_OF_OTHER:
                owner = m["owner"] if m["owner"] else f"{speaker}'s {m['rel'].lower()}"
                if m["owner"] and not name_ok(m["owner"]):
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






# Speed: these scan the whole clause, and most clauses lack a word each of them needs ("my", "from",
# "who", "job", ...); ``prefiltered`` reads those words off the pattern and tests for them first.
(
    _OF_MINE, _FROM_WORK, _NAME_TITLE, _GOES_BY, _CALLS_THEM, _AGE_WHO, _LAST_DAY, _BIRTHDAY_AGE, _HERE_IN,
    _RELATION_APPOSITION, _RELATION_BEFORE, _RELATION_NAMED, _RELATION_IS, _RELATION_IS_NAME, _JOB_AT,
    _THIRD_PARTY, _PET_APPOSITION, _PET_NAMED, _PET_IS, _PET_OF_OTHER, _PET_APPOSED,
) = map(prefiltered, (
    _OF_MINE, _FROM_WORK, _NAME_TITLE, _GOES_BY, _CALLS_THEM, _AGE_WHO, _LAST_DAY, _BIRTHDAY_AGE, _HERE_IN,
    _RELATION_APPOSITION, _RELATION_BEFORE, _RELATION_NAMED, _RELATION_IS, _RELATION_IS_NAME, _JOB_AT,
    _THIRD_PARTY, _PET_APPOSITION, _PET_NAMED, _PET_IS, _PET_OF_OTHER, _PET_APPOSED,
))  # fmt: skip
