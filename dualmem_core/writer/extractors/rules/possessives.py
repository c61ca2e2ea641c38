"""Statements whose subject is a possessive or a place: "my favourite film is Alien", "Lyon is home".

``possessive_drafts`` reads the owner ("my", "her", "my sister's", a pet just mentioned) and what the
clause says they have: a name, nickname, birthday, favourite, hobby, job, school, home or language,
and the reversed forms ("Alien is my favourite film", "Portland is where I live"). Like the noun-phrase
mentions of ``noun_phrases.py`` it runs on the whole clause, before the subject-and-verb rules; it is
apart from them because it reads a clause's grammatical subject, not a phrase anywhere in it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime

from ....vocab.predicates import favourite_predicate
from ....vocab.relation_words import relation_of
from . import dates
from .base import Draft, items
from .clauses import ADJ, NAME, possessive_subject
from .gates import prefiltered
from .noun_phrases import MY, PET, REL, name_ok, relation_drafts
from .objects import clean, proper_run, split_items, strip_leading, tidy


@dataclass(frozen=True, slots=True)
class Owner:
    name: str  # whose attribute it is
    kind: str  # "speaker" | "person" | "relative" | "pet"
    role: str = ""  # relation or pet noun for an unnamed relative ("sister")


_OWNER = (
    rf"(?P<owner>{MY}|[Hh]is|[Hh]er|[Ii]ts|{NAME}'s|{MY}\s+(?:{ADJ}(?:\s+|(?<=-)))?(?:{REL}|{PET})(?:\s+{NAME})?'s)"
)


_OWNER_NOUN = re.compile(
    rf"{MY}\s+(?:{ADJ}(?:\s+|(?<=-)))?(?P<noun>[a-z-]+(?:\s+[a-z-]+)?)(?:\s+(?P<name>{NAME}))?'s$"
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
        if m["name"] and name_ok(m["name"]):
            return Owner(m["name"], "person")
        noun = m["noun"].lower()
        kind = "relative" if relation_of(noun) else "pet"
        return Owner(possessive_subject(noun, speaker), kind, noun)
    name = text[:-2]
    if name_ok(name):
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
    rf"(?P<owner>{MY}|[Hh]is|[Hh]er)\s+"
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
    rf"^(?P<o>[A-Z]\w+)\s+is\s+(?P<owner>{MY}|[Hh]is|[Hh]er)\s+(?:native|first|mother|"
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
        if (value := proper_run(m["o"])) and name_ok(value):
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
        if not person or not name_ok(person):
            return []
        if owner.kind == "relative":  # "my sister's name is Ana": the fact is who the sister is
            return relation_drafts(speaker, owner.role, [person], None, "relation.named")
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


# Speed: these scan the whole clause, and most need a word ("my", "favourite") most clauses lack.
_MY_TEAM, _MY_THING, _FAVOURITE_REVERSED, _FAVOURITE_RELATIVE = map(
    prefiltered, (_MY_TEAM, _MY_THING, _FAVOURITE_REVERSED, _FAVOURITE_RELATIVE)
)
