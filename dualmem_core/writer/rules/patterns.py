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

import re

from .. import dates
from .base import Context, Draft, Rule, items, rule
from .clauses import NAME, is_past_form
from .lexicon import (
    ACTIVITIES,
    DIETS,
    GO_ACTIVITIES,
    HOBBY_AGENTS,
    INSTRUMENTS,
    PETS,
    POSSESSIONS,
    SPORTS_AND_GAMES,
    is_demonym,
    is_language,
    is_place,
    is_school,
    job_head,
    pet_pattern,
    relation_of,
    relation_pattern,
)
from .objects import clean, cut, proper_run, split_items, strip_leading, tidy, to_gerund

_NUMBER = (
    r"(?:\d{1,3}|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|"
    r"fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)"
    r"(?:[- ](?:one|two|three|four|five|six|seven|eight|nine))?"
)
_BE = r"(?:am|is|are|was|were|been|be)"
_REL = relation_pattern()
_PET = pet_pattern()
_NAMES = rf"{NAME}(?:\s+{NAME})?(?:\s*,\s*{NAME})*(?:\s*,?\s+(?:and|&)\s+{NAME})?"
_DIET = "|".join(re.escape(d) for d in sorted(DIETS, key=len, reverse=True))


def _n(word: str) -> str:
    """A count as digits: 'thirty-two' -> '32'."""
    count, _ = dates.parse_count(word.replace(" ", "-"))
    return str(count) if count is not None else word


def _names(text: str | None) -> list[str]:
    if not text:
        return []
    return [n for n in (proper_run(p) for p in split_items(text, binomials=False)) if n]


def _article(noun: str) -> str:
    return ("an " if noun[:1].lower() in "aeiou" else "a ") + noun


def _subject_text(ctx: Context) -> str:
    return ctx.subject.name


# ------------------------------------------------------------------------------------ builders


def _simple(predicate: str, kind: str, confidence: float, timing: str = "state", **options: object):
    def build(m: re.Match[str], ctx: Context) -> list[Draft]:
        return items(predicate, m["o"], kind, confidence, timing=timing, **options)  # type: ignore[arg-type]

    return build


def _place(predicate: str, confidence: float, timing: str = "state"):
    def build(m: re.Match[str], ctx: Context) -> list[Draft]:
        return items(predicate, m["o"], "place", confidence, timing=timing, accept=lambda p: not _is_year(p))

    return build


def _is_year(text: str) -> bool:
    return bool(re.fullmatch(r"(?:1[89]|20)\d\d", text.strip()))


_FOR_JOB = re.compile(
    r"\bfor\s+(?:a|my|the|his|her|their)\s+(?:new\s+)?(?:job|position|role|internship)\s+"
    r"(?:at|with)\s+(?P<o>.+)"
)


def _move(m: re.Match[str], ctx: Context) -> list[Draft]:
    out = items("lives_in", m["o"], "place", 0.85, timing="start")
    if job := _FOR_JOB.search(m["o"]):  # "moved to Denver for a new job at Palantir"
        out += _org(job["o"], 0.8, "start")
    if m["frm"]:
        out += [
            Draft(d.predicate, d.object, 0.75, timing="end", ended=True, text=None)
            for d in items("lives_in", m["frm"], "place", 0.75)
        ]
    return out


def _move_away(m: re.Match[str], ctx: Context) -> list[Draft]:
    return [
        Draft(d.predicate, d.object, 0.75, timing="end", ended=True)
        for d in items("lives_in", m["o"], "place", 0.75)
    ]


def _in_since(m: re.Match[str], ctx: Context) -> list[Draft]:
    # "I've been in Denver since May" is where someone lives; "I'm in Denver" alone may be a visit.
    if not (ctx.has_time("since") or (ctx.has_time("duration") and ctx.aspect.perfect)):
        return []
    return items("lives_in", m["o"], "place", 0.6, accept=lambda p: p[:1].isupper())


def _born(m: re.Match[str], ctx: Context) -> list[Draft]:
    rest = m["rest"]
    out: list[Draft] = []
    found = dates.find_time_expressions(rest, ctx.now)
    for expr in found:
        if expr.kind != "point" or expr.valid_from is None:
            continue
        if expr.granularity == "day":
            out.append(
                Draft("birthday", expr.valid_from.strftime("%B %-d"), 0.85, timing="none", kind="none")
            )
            if re.search(r"(?:1[89]|20)\d\d", expr.text):
                out.append(Draft("birth_year", str(expr.valid_from.year), 0.85, timing="none", kind="none"))
        elif expr.granularity in ("year", "month", "season") and re.search(r"(?:1[89]|20)\d\d", expr.text):
            out.append(Draft("birth_year", str(expr.valid_from.year), 0.85, timing="none", kind="none"))
    remainder = rest
    for expr in sorted(found, key=lambda e: -e.start):
        remainder = remainder[: expr.start] + remainder[expr.end :]
    place = re.match(r"\s*(?:and raised\s+)?(?:in|at)\s+(?P<o>.+)", remainder)
    if place:
        out += items("from", place["o"], "place", 0.9, timing="none", accept=lambda p: not _is_year(p))
    return out


def _job_phrase(phrase: str, confidence: float, ctx: Context, timing: str = "state") -> list[Draft]:
    """'pharmacist at Walgreens' -> job_title pharmacist + works_at Walgreens."""
    title, org = phrase, None
    split = re.search(r"\s+(?:at|for|with|in|from|on)\s+(?=\S)", phrase)
    if split:
        title = phrase[: split.start()]
        if split[0].strip() in ("at", "for", "with"):
            org = phrase[split.end() :]
    title = strip_leading(tidy(cut(title)))
    if not title or len(title.split()) > 5:
        return []
    out = [
        Draft(
            "job_title",
            title,
            confidence,
            timing=timing,
            kind="none",
            text=f"{_subject_text(ctx)} is {_article(title)}",
        )
    ]
    if org:
        out += _org(org, confidence, timing)
    return out


def _org(raw: str, confidence: float, timing: str = "state") -> list[Draft]:
    return items(
        "works_at",
        raw,
        "organization",
        confidence,
        timing=timing,
        accept=lambda o: o.lower() not in _NOT_ORGS and not is_place(o) and not re.match(r"\d", o),
    )


_NOT_ORGS = frozenset(
    "myself yourself himself herself themselves free fun money hours years a living living home a while "
    "the weekend weekends the summer a year two years free".split()
)


def _work_as(m: re.Match[str], ctx: Context) -> list[Draft]:
    return _job_phrase(m["o"], 0.85, ctx)


def _work_at(m: re.Match[str], ctx: Context) -> list[Draft]:
    if re.match(r"(?:myself|my own)\b", m["o"]):
        return [Draft("job_title", "self-employed", 0.8, kind="none")]
    return _org(m["o"], 0.85)


def _work_in(m: re.Match[str], ctx: Context) -> list[Draft]:
    value = clean(m["o"], "organization")
    if not value or is_place(value):
        return []
    if value[:1].isupper():
        return _org(value, 0.6)
    if len(value.split()) <= 3:
        return [Draft("job_title", value, 0.5, kind="none", text=f"{_subject_text(ctx)} works in {value}")]
    return []


def _job_at(m: re.Match[str], ctx: Context) -> list[Draft]:
    timing = "state" if m["v"] in ("have", "has") else "start"
    out = _org(m["o"], 0.85, timing)
    if m["title"]:
        out += _job_phrase(m["title"], 0.8, ctx, timing)
    return out


def _join(m: re.Match[str], ctx: Context) -> list[Draft]:
    value = clean(m["o"], "organization")
    if not value or not value[:1].isupper() or is_place(value):
        return []
    return _org(value, 0.7, "start")


def _leave(m: re.Match[str], ctx: Context) -> list[Draft]:
    raw = m["o"]
    job = re.match(r"(?:my|his|her|their)\s+(?:job|position|role|post)\s+(?:at|with)\s+(?P<o>.+)", raw)
    if job:
        return [Draft("works_at", d.object, 0.85, timing="end", ended=True) for d in _org(job["o"], 0.85)]
    value = clean(raw, "organization")
    if not value or not value[:1].isupper():
        return []
    if is_place(value):
        if m["v"] in ("left", "leave", "leaving"):
            return [Draft("lives_in", value, 0.6, timing="end", ended=True)]
        return []
    return [Draft("works_at", d.object, 0.75, timing="end", ended=True) for d in _org(value, 0.75)]


def _fired(m: re.Match[str], ctx: Context) -> list[Draft]:
    return [Draft("works_at", d.object, 0.85, timing="end", ended=True) for d in _org(m["o"], 0.85)]


def _teach(m: re.Match[str], ctx: Context) -> list[Draft]:
    out = _org(m["o"], 0.75)
    if out:
        out.append(Draft("job_title", "teacher", 0.7, kind="none", text=f"{_subject_text(ctx)} is a teacher"))
    return out


def _title_of(m: re.Match[str], ctx: Context) -> list[Draft]:
    return _job_phrase(f"{m['title']} at {m['o']}", 0.85, ctx)


_LIKE_NOUNS = {"dog": "dogs", "cat": "cats"}


def _copula_a(m: re.Match[str], ctx: Context) -> list[Draft]:
    """'am a nurse (at X)', 'am an avid runner', 'am a student at X', 'am a cat person'."""
    phrase = m["o"]
    lowered = phrase.lower()
    if re.match(
        r"(?:[a-z]+\s+)?(?:fan|native|vegetarian|vegan|pescatarian|student|junior|senior|sophomore|freshman)"
        r"\b(?!\s+(?:teacher|nurse|engineer|advisor|counselor))",
        lowered,
    ):
        if re.match(r"student\b", lowered) and not re.search(r"\s(?:at|in|of)\s", lowered):
            return [Draft("job_title", "student", 0.7, kind="none")]
        return []  # handled by the likes, diet and studies rules
    pet = re.match(r"(?:huge\s+|big\s+|total\s+)?(?P<a>dog|cat)\s+(?:person|lover|fan)", lowered)
    if pet:
        return [Draft("likes", _LIKE_NOUNS[pet["a"]], 0.75, kind="thing")]
    fan = re.match(
        r"(?:huge|big|massive|die-hard|lifelong|total|great)\s+(?P<x>.+?)\s+(?:fan|lover|nerd|geek|buff)$",
        phrase,
    )
    if fan:  # "a huge Arsenal fan"
        return [Draft("likes", fan["x"], 0.75, kind="thing")]
    agent = re.match(
        r"(?:avid|keen|amateur|passionate|enthusiastic|casual|weekend|serious|big|huge|hobby)\s+"
        r"(?P<a>[a-z]+)",
        lowered,
    )
    if agent and agent["a"] in HOBBY_AGENTS:
        return [Draft("hobby", HOBBY_AGENTS[agent["a"]], 0.75)]
    major = re.match(r"(?P<f>[a-z][a-z ]{1,30}?)\s+major\b", phrase)
    if major:
        return [Draft("studies", major["f"], 0.75, kind="none")]
    title = re.split(r"\s+(?:at|for|with|in|from|who|that|and|but|,)\s+", phrase, maxsplit=1)[0]
    if job_head(cut(title)):
        became = m["v"] in ("become", "became", "becoming")
        return _job_phrase(phrase, 0.8, ctx, "start" if became else "state")
    return []


def _study(m: re.Match[str], ctx: Context) -> list[Draft]:
    field_raw = m["field"]
    if re.match(
        r"(?:for|to|hard|a lot|abroad|every|at|with|online|late|together|the|a|an|it|that|this)\b", field_raw
    ):
        field_raw = ""
    out: list[Draft] = []
    if field_raw:
        value = clean(field_raw, "thing")
        if value and len(value.split()) <= 5:
            out.append(Draft("studies", value, 0.8, kind="none"))
    if m["o"]:
        out += items("studies_at", m["o"], "organization", 0.85)
    return out


def _attend(m: re.Match[str], ctx: Context) -> list[Draft]:
    value = clean(m["o"], "organization")
    if not value or not is_school(value):
        return []
    return [Draft("studies_at", value, 0.8)]


def _graduate(m: re.Match[str], ctx: Context) -> list[Draft]:
    value = clean(m["o"], "organization")
    if not value or not value[:1].isupper():
        return []
    return [
        Draft(
            "studies_at",
            value,
            0.8,
            timing="end",
            ended=True,
            text=f"{_subject_text(ctx)} graduated from {value}",
        )
    ]


def _degree(m: re.Match[str], ctx: Context) -> list[Draft]:
    out: list[Draft] = []
    if m["field"]:
        value = clean(m["field"], "thing")
        if value:
            out.append(Draft("studies", value, 0.8, kind="none"))
    if m["o"]:
        out += items("studies_at", m["o"], "organization", 0.8)
    return out


def _intro(m: re.Match[str], ctx: Context) -> list[Draft]:
    name = m["o"]
    first = name.split()[0].lower()
    if not (ctx.is_speaker and ctx.intro) or is_place(name) or job_head(name):
        return []
    if first in _NOT_INTRO or is_demonym(first):
        return []
    return [Draft("name", name, 0.85, kind="none", timing="none")]


_NOT_INTRO = frozenset(
    "american canadian british english french german italian spanish mexican chinese japanese korean indian "
    "australian irish scottish jewish muslim catholic christian buddhist hindu vegan vegetarian gay "
    "straight bi ok okay fine good great well back home here sorry new excited".split()
)


def _age(m: re.Match[str], ctx: Context) -> list[Draft]:
    if ctx.past and not ctx.aspect.future:
        return []  # "I was 5 when ..." describes a moment, not an age now
    return _turned(m, ctx)


def _turned(m: re.Match[str], ctx: Context) -> list[Draft]:
    value = _n(m["o"])
    if not value.isdigit() or not 0 < int(value) < 130:
        return []
    return [Draft("age", value, 0.9 if not m.groupdict().get("q") else 0.7, kind="none", timing="start")]


def _status(m: re.Match[str], ctx: Context) -> list[Draft]:
    value = (
        m["o"]
        .lower()
        .replace("a widow", "widowed")
        .replace("in a committed relationship", "in a relationship")
    )
    value = {
        "taken": "in a relationship",
        "dating someone": "in a relationship",
        "seeing someone": "in a relationship",
        "hitched": "married",
    }.get(value, value)
    out = [Draft("relationship_status", value, 0.85, kind="none", timing="start")]
    name = m.groupdict().get("name")
    if name and (person := proper_run(name)):
        predicate = {"married": "spouse", "engaged": "partner", "divorced": "spouse"}.get(value)
        if predicate:
            out.append(
                Draft(
                    predicate,
                    person,
                    0.85,
                    timing="end" if value == "divorced" else "start",
                    ended=value == "divorced",
                )
            )
    return out


def _person(predicate: str, confidence: float, timing: str = "state", ended: bool = False):
    def build(m: re.Match[str], ctx: Context) -> list[Draft]:
        people = _names(m["o"])
        return [Draft(predicate, p, confidence, timing=timing, ended=ended) for p in people]

    return build


def _engaged_to(m: re.Match[str], ctx: Context) -> list[Draft]:
    people = _names(m["o"])
    if not people:
        return [Draft("relationship_status", "engaged", 0.8, kind="none")]
    return [Draft("partner", people[0], 0.85), Draft("relationship_status", "engaged", 0.8, kind="none")]


def _breakup(m: re.Match[str], ctx: Context) -> list[Draft]:
    out = [Draft("relationship_status", "single", 0.6, kind="none", timing="start")]
    if m["o"]:
        out += [Draft("partner", p, 0.8, timing="end", ended=True) for p in _names(m["o"])]
    return out


def _have_relation(m: re.Match[str], ctx: Context) -> list[Draft]:
    rel = m["rel"].lower()
    predicate = relation_of(rel)
    if predicate is None or m["n"].lower() == "no":
        return []
    timing = "start" if m["v"] in ("had", "got") and predicate == "child" else "none"
    people = _names(m["names"])
    if people:
        return [
            Draft(predicate, p, 0.85, timing=timing, text=f"{p} is {_subject_text(ctx)}'s {rel.rstrip('s')}")
            for p in people
        ]
    single = m["n"].lower() in ("a", "an", "one")
    return [
        Draft(
            predicate,
            rel.rstrip("s") if single else rel,
            0.6,
            timing=timing,
            kind="none",
            text=f"{_subject_text(ctx)} has {m['n']} {rel}",
        )
    ]


def _baby(m: re.Match[str], ctx: Context) -> list[Draft]:
    people = _names(m["names"])
    if people:
        return [Draft("child", p, 0.85, timing="start") for p in people]
    return [
        Draft(
            "child",
            m["sex"].lower(),
            0.6,
            timing="start",
            kind="none",
            text=f"{_subject_text(ctx)} had a baby"
            + ("" if m["sex"].lower() == "baby" else f" {m['sex'].lower()}"),
        )
    ]


_MORE_PETS = re.compile(
    rf"^\s*(?:,\s*(?:and\s+)?|\s+and\s+)(?P<n>a|an|one|two|three|four|five|\d+|another)\s+"
    rf"(?P<mods>(?:[a-z-]+\s+){{0,3}}?)(?P<pet>{_PET})\b(?:\s*[,(]?\s*(?:named|"
    rf"called)\s+(?P<names>{_NAMES}))?"
)


def _pets(m: re.Match[str], ctx: Context) -> list[Draft]:
    """'a dog and two cats named Tom and Jerry': every pet in the list."""
    out = _pet(m, ctx)
    rest = m.string[m.end() :]
    while out and (more := _MORE_PETS.match(rest)):
        out += _pet(more, ctx, verb=m["v"])
        rest = rest[more.end() :]
    return out


def _pet(m: re.Match[str], ctx: Context, verb: str | None = None) -> list[Draft]:
    if m["n"].lower() in ("no", "any"):
        if m["n"].lower() == "any" and not ctx.aspect.negated:
            return []
        return [
            Draft("pet", "pets", 0.7, negated=True, kind="none", text=f"{_subject_text(ctx)} has no pets")
        ]
    pet = m["pet"].lower()
    pet = pet[:-1] if pet.endswith("s") and pet[:-1] in PETS else pet
    kind = " ".join(w for w in [*(m["mods"] or "").split(), pet] if w).lower()
    verb = (verb or m["v"]).lower()
    timing = (
        "start"
        if verb in ("got", "get", "adopted", "adopt", "rescued", "bought", "brought home", "took in")
        else "state"
    )
    ended = verb in ("had", "owned") and not ctx.aspect.perfect  # "I've had my cat for years": still has it
    names = _names(m["names"])
    if names:
        return [
            Draft(
                "pet",
                n,
                0.9,
                timing=timing,
                ended=ended,
                text=f"{_subject_text(ctx)} has {_article(kind)} named {n}",
            )
            for n in names
        ]
    return [
        Draft(
            "pet",
            kind,
            0.7,
            timing=timing,
            ended=ended,
            kind="none",
            text=f"{_subject_text(ctx)} has {_article(kind)}",
        )
    ]


_NOT_LIKED = re.compile(
    r"^(?:it|that|this|them|him|her|you|to be|the idea|when|how|what|being|everything|anything|something|"
    r"nothing|him|me|us|one|the fact|the way)\b",
    re.IGNORECASE,
)


def _liked_objects(raw: str) -> list[str]:
    raw = raw.strip()
    if _NOT_LIKED.match(raw):
        return []
    to_verb = re.match(r"to\s+(?P<v>[a-z]+)\b(?P<rest>.*)", raw)
    if to_verb:
        raw = to_gerund(to_verb["v"]) + to_verb["rest"]
    raw = re.sub(r"\s+(?:over|more than|better than|instead of)\s+.*$", "", raw)
    return [d.object for d in items("likes", raw, "thing", 0.8, listable=True)]


def _like(m: re.Match[str], ctx: Context) -> list[Draft]:
    if (ctx.past or ctx.aspect.past) and not (ctx.aspect.ended or ctx.aspect.perfect):
        return []  # "I loved the trip" is a one-off opinion, not a standing preference
    objects = _liked_objects(m["o"])
    if ctx.aspect.negated and not ctx.aspect.ended:
        return [Draft("dislikes", o, 0.65, negated=False) for o in objects]
    return [
        Draft("likes", o, 0.85 if m["v"].startswith(("love", "adore", "enjoy")) else 0.8) for o in objects
    ]


def _like_adj(m: re.Match[str], ctx: Context) -> list[Draft]:
    objects = _liked_objects(m["o"])
    if ctx.aspect.negated and not ctx.aspect.ended:
        return [Draft("dislikes", o, 0.75, negated=False) for o in objects]
    return [Draft("likes", o, 0.8) for o in objects]


def _dislike(m: re.Match[str], ctx: Context) -> list[Draft]:
    if ctx.aspect.negated and not ctx.aspect.ended:
        return []  # "I don't hate it" says little
    if (ctx.past or ctx.aspect.past) and not ctx.aspect.ended:
        return []
    return [Draft("dislikes", o, 0.85) for o in _liked_objects(m["o"])]


def _dislike_adj(m: re.Match[str], ctx: Context) -> list[Draft]:
    if ctx.aspect.negated:
        return []
    return [Draft("dislikes", o, 0.6) for o in _liked_objects(m["o"])]


def _diet(m: re.Match[str], ctx: Context) -> list[Draft]:
    value = (
        m["o"].lower().replace(" ", "-")
        if m["o"].lower() in ("gluten free", "dairy free", "plant based")
        else m["o"].lower()
    )
    timing = "start" if m.groupdict().get("v") in ("went", "gone", "became", "become", "turned") else "state"
    return [Draft("diet", value, 0.85, kind="none", timing=timing)]


def _eats(m: re.Match[str], ctx: Context) -> list[Draft]:
    if not (ctx.aspect.negated or ctx.aspect.ended):
        return []  # "I eat pizza" is an event more than a habit; the negative is the useful fact
    raw = re.sub(r"^(?:any|much|a lot of|red)\s+", lambda x: "red " if x[0].startswith("red") else "", m["o"])
    out = []
    for d in items("eats", raw, "thing", 0.8, listable=True):
        if d.object.lower() in ("much", "out", "well", "enough", "breakfast", "lunch", "dinner"):
            continue
        out.append(Draft("eats", d.object, 0.8, negated=True))
    return out


def _allergy(m: re.Match[str], ctx: Context) -> list[Draft]:
    return items("allergy", m["o"], "thing", 0.9, listable=True)


def _intolerant(m: re.Match[str], ctx: Context) -> list[Draft]:
    value = m["o"].lower()
    return [Draft("allergy", value, 0.85, text=f"{_subject_text(ctx)} is {value} intolerant")]


_OWN_DROP = re.compile(
    r"^(?:new|used|brand[- ]new|second[- ]hand|old|first|own|little|tiny|big|nice|fancy|cool)\s+",
    re.IGNORECASE,
)


def _owns(m: re.Match[str], ctx: Context) -> list[Draft]:
    raw = cut(m["o"], "thing")
    raw = _OWN_DROP.sub("", _OWN_DROP.sub("", raw))
    house = re.match(r"(?P<h>house|home|place|apartment|flat|condo|townhouse|cabin)\s+in\s+(?P<p>.+)", raw)
    words = raw.split()
    if not words:
        return []
    verb = m["v"].lower()
    timing = {"sold": "end", "sell": "end", "selling": "end"}.get(
        verb,
        "start"
        if verb in ("bought", "buy", "purchased", "got", "get", "finally got", "picked up", "leased")
        else "state",
    )
    ended = timing == "end" or verb == "had"
    if house:
        place = clean(house["p"], "place")
        out = [
            Draft(
                "owns",
                house["h"],
                0.75,
                timing=timing,
                ended=ended,
                kind="none",
                text=f"{_subject_text(ctx)} owns a {house['h']} in {place}" if place else None,
                entities=[(place, "place")] if place else [],
            )
        ]
        return out
    head = re.sub(r"[^a-z-]", "", words[min(len(words), 3) - 1].lower()) if len(words) <= 3 else ""
    product = proper_run(raw, max_tokens=4)
    if product and not is_place(product):
        return [Draft("owns", product, 0.75, timing=timing, ended=ended, kind="thing")]
    if head in POSSESSIONS or (head.endswith("s") and head[:-1] in POSSESSIONS):
        value = clean(raw, "thing")
        return [Draft("owns", value, 0.7, timing=timing, ended=ended, kind="thing")] if value else []
    return []


def _business(m: re.Match[str], ctx: Context) -> list[Draft]:
    name = proper_run(m["name"]) if m["name"] else None
    thing = m["o"].strip()
    text = f"{_subject_text(ctx)} runs {_article(thing)}" + (f" called {name}" if name else "")
    return [Draft("owns", name or thing, 0.75, text=text, kind="organization" if name else "none")]


def _visited(m: re.Match[str], ctx: Context) -> list[Draft]:
    if ctx.aspect.progressive and not ctx.aspect.past:
        return []
    verb = m["v"].lower().split()[0]
    if verb == "been" and (not (ctx.aspect.perfect or ctx.aspect.past) or not re.match(r"been\s+to\b", m[0])):
        return []  # "I've been to Rome" is a visit; "I've been in Rome since May" is not
    raw = m["o"]
    if re.search(r"'s\b", raw.split(" ")[0]):
        return []  # "went to Sarah's wedding": the place is not Sarah
    value = clean(raw, "place")
    if not value or not value[:1].isupper():
        return []
    if is_school(value):
        ended = verb in ("went", "attended") or ctx.aspect.past
        return [Draft("studies_at", value, 0.75, ended=ended, timing="state")]
    if verb in ("go", "goes") and not is_place(value):
        return []
    confidence = 0.85 if is_place(value.split(",")[0]) else 0.6
    if verb in ("go", "goes"):
        confidence -= 0.2
    return [Draft("visited", value, confidence, timing="event")]


def _was_in(m: re.Match[str], ctx: Context) -> list[Draft]:
    if not any(t.kind == "point" and t.valid_from is not None for t in ctx.times):
        return []
    value = clean(m["o"], "place")
    if not value or not is_place(value.split(",")[0]):
        return []
    return [Draft("visited", value, 0.7, timing="event")]


def _play(m: re.Match[str], ctx: Context) -> list[Draft]:
    out = []
    for d in items("hobby", m["o"], "thing", 0.8, listable=True):
        value = d.object.lower()
        head = value.split()[-1]
        if (
            head in INSTRUMENTS
            or value.replace(" ", "-") in SPORTS_AND_GAMES
            or head in SPORTS_AND_GAMES
            or head in ("games", "game", "videogames")
            or value.endswith("ball")
        ):
            instrument = head in INSTRUMENTS
            name = f"playing the {d.object}" if instrument else d.object
            played = f"the {d.object}" if instrument else d.object
            text = f"{_subject_text(ctx)} plays {played}"
            out.append(Draft("hobby", name, 0.8 if not ctx.past else 0.6, text=text))
    return out


def _do_activity(m: re.Match[str], ctx: Context) -> list[Draft]:
    out = []
    verb = m["v"].lower()
    timing = (
        "start"
        if verb in ("took up", "take up", "taking up", "started", "got into", "picked up")
        else "state"
    )
    for d in items("hobby", m["o"], "thing", 0.8, listable=True):
        value = d.object.lower().replace(" ", "-")
        if value in ACTIVITIES or value in GO_ACTIVITIES or (value.endswith("ing") and timing == "start"):
            out.append(Draft("hobby", d.object, 0.75, timing=timing))
    return out


def _go_activity(m: re.Match[str], ctx: Context) -> list[Draft]:
    if ctx.past or ctx.aspect.past:
        return (
            [Draft("event", f"went {m['o']}", 0.5, timing="event", kind="none")]
            if ctx.has_time("point")
            else []
        )
    return [Draft("hobby", m["o"], 0.75)]


def _learn(m: re.Match[str], ctx: Context) -> list[Draft]:
    if ctx.past or ctx.aspect.past:
        return []
    raw = m["o"]
    to_verb = re.match(r"(?:how\s+)?to\s+(?P<v>[a-z]+)\b(?P<rest>.*)", raw)
    if to_verb:
        raw = to_gerund(to_verb["v"]) + to_verb["rest"]
    value = clean(raw, "thing")
    if not value:
        return []
    return [
        Draft(
            "hobby", value, 0.65, text=f"{_subject_text(ctx)} is learning {clean(m['o'], 'thing') or value}"
        )
    ]


_LANGUAGE_QUALIFIERS = re.compile(
    r"^(?:a (?:little|bit|little bit) of|a bit|some|a little|little|basic|fluent|conversational|broken|"
    r"decent|"
    r"good|pretty good|very good|perfect|native|intermediate|beginner|rusty|passable|okay|ok)\s+",
    re.IGNORECASE,
)


def _speaks(m: re.Match[str], ctx: Context) -> list[Draft]:
    out = []
    for part in split_items(cut(m["o"])):
        part = _LANGUAGE_QUALIFIERS.sub("", _LANGUAGE_QUALIFIERS.sub("", part.strip()))
        word = tidy(re.sub(r"\s+(?:fluently|well|a bit|a little|too|as well)$", "", part))
        if is_language(word):
            out.append(Draft("speaks", word[:1].upper() + word[1:], 0.85, kind="thing"))
    return out


# ------------------------------------------------------------------------------------ the table

_V_LIVE = r"(?P<v>live|lives|lived|living|reside|resides|resided|residing|stay|stays|staying)"
_V_WORK = r"(?P<v>work|works|worked|working)"
_V_LIKE = (
    r"(?P<v>love|loves|loved|loving|like|likes|liked|enjoy|enjoys|enjoyed|enjoying|adore|adores|adored|dig|"
    r"digs|"
    r"prefer|prefers|preferred|appreciate|appreciates)"
)
_V_HAVE_PET = (
    r"(?P<v>have|has|had|got|get|adopted|adopt|rescued|bought|own|owns|owned|brought home|took in|fostered|"
    r"foster|fostering|adopting)"
)
_TITLES = (
    r"(?:[A-Za-z-]+\s+){0,3}?(?:CEO|CTO|CFO|COO|VP|head|director|manager|founder|co-founder|cofounder|owner|"
    r"president|chair|lead|principal|dean|editor|captain|coach|partner)"
)

VERB_RULES: tuple[Rule, ...] = (
    # where someone lives
    rule(
        "lives_in",
        rf"{_V_LIVE}\s+(?:in|at|near|outside(?:\s+of)?|on|just outside(?:\s+of)?|close to|by)\s+(?P<o>.+)",
        _place("lives_in", 0.9),
    ),
    rule(
        "lives_in.move",
        r"(?P<v>moved|move|moves|moving|relocated|relocate|relocating|relocates)\s+"
        r"(?:back\s+|over\s+|here\s+|there\s+|home\s+|all the way\s+)?(?:from\s+(?P<frm>.+?)\s+)?(?:to|"
        r"into)\s+(?P<o>.+)",
        _move,
    ),
    rule(
        "lives_in.move_away",
        r"(?P<v>moved|move|moving|relocated)\s+(?:here\s+|there\s+)?(?:away from|out of|from)\s+"
        r"(?P<o>.+)",
        _move_away,
    ),
    rule(
        "lives_in.based",
        rf"{_BE}\s+(?:based|located|settled|stationed|living)\s+(?:in|at|out of|near)\s+(?P<o>.+)",
        _place("lives_in", 0.8),
    ),
    rule(
        "lives_in.settled",
        r"(?P<v>settled|settle|settling)\s+(?:down\s+)?in\s+(?P<o>.+)",
        _place("lives_in", 0.75, "start"),
    ),
    rule(
        "lives_in.call_home",
        r"(?P<v>call|calls|called)\s+(?P<o>[A-Z][\w .,'-]*?)\s+home\b",
        _place("lives_in", 0.8),
    ),
    rule("lives_in.in_since", rf"{_BE}\s+in\s+(?P<o>[A-Z].+)", _in_since),
    # where someone is from
    rule("from", rf"{_BE}\s+(?:originally\s+)?from\s+(?P<o>.+)", _place("from", 0.9, "none")),
    rule(
        "from.come",
        r"(?P<v>come|comes|came)\s+(?:originally\s+)?from\s+(?P<o>[A-Z].+)",
        _place("from", 0.85, "none"),
    ),
    rule(
        "from.grew_up",
        r"(?P<v>grew|grow|growing|brought)\s+up\s+(?:in|on|near|around|outside(?:\s+of)?)\s+(?P<o>.+)",
        _place("from", 0.85, "none"),
    ),
    rule(
        "from.raised", rf"{_BE}\s+(?:raised|brought up)\s+(?:in|on)\s+(?P<o>.+)", _place("from", 0.85, "none")
    ),
    rule("born", r"(?:was|were)\s+born\s+(?P<rest>.+)", _born, raw=True),
    rule("from.native", rf"{_BE}\s+(?:a\s+)?native\s+of\s+(?P<o>.+)", _place("from", 0.85, "none")),
    # work
    rule(
        "job.work_as",
        rf"{_V_WORK}\s+(?:full[- ]time\s+|part[- ]time\s+|remotely\s+)?as\s+(?:a\s+|an\s+|the\s+)?(?P<o>.+)",
        _work_as,
    ),
    rule(
        "works_at",
        rf"{_V_WORK}\s+(?:full[- ]time\s+|part[- ]time\s+|remotely\s+)?(?:at|for)\s+(?P<o>.+)",
        _work_at,
    ),
    rule("works_at.in", rf"{_V_WORK}\s+in\s+(?P<o>.+)", _work_in),
    rule(
        "works_at.employed",
        rf"{_BE}\s+(?:employed|hired)\s+(?:at|by|with)\s+(?P<o>.+)",
        _simple("works_at", "organization", 0.85),
    ),
    rule(
        "works_at.hired",
        r"(?P<v>got|get|was|were|been)\s+(?:hired|recruited|headhunted|promoted)\s+(?:at|by|to|with)\s+"
        r"(?P<o>.+)",
        lambda m, c: _org(m["o"], 0.8, "start"),
    ),
    rule(
        "works_at.job",
        r"(?P<v>got|get|getting|landed|land|accepted|accept|took|take|started|start|starting|found|have|has|"
        r"began|begin|secured|scored)\s+(?:a|an|the|my|this|that)\s+(?:(?:new|dream|first|full-time|"
        r"part-time|summer|"
        r"great|good|big)\s+)*(?:job|position|role|internship|gig|post|contract|placement)"
        r"(?:\s+as\s+(?:a\s+|an\s+)?(?P<title>.+?))?\s+(?:at|with|for|in)\s+(?P<o>.+)",
        _job_at,
    ),
    rule(
        "works_at.start",
        r"(?P<v>started|start|starting|began|begin|beginning|starts)\s+(?:working\s+|work\s+|"
        r"(?:a|my)\s+new\s+job\s+|a\s+job\s+|an\s+internship\s+)?(?:at|for|with)\s+(?P<o>.+)",
        lambda m, c: _org(m["o"], 0.8, "start"),
    ),
    rule("works_at.join", r"(?P<v>joined|join|joining|joins)\s+(?P<o>[A-Z].+)", _join),
    rule(
        "works_at.left",
        r"(?P<v>quit|left|leave|leaving|quitting|resigned|resign|resigning|retired|retire|retiring)\s+"
        r"(?:from\s+)?(?P<o>.+)",
        _leave,
    ),
    rule(
        "works_at.fired",
        rf"(?:{_BE}|got|get)\s+(?:fired|laid off|let go|sacked|made redundant)\s+(?:from|by|at)\s+(?P<o>.+)",
        _fired,
    ),
    rule(
        "works_at.intern",
        r"(?P<v>intern|interns|interned|interning)\s+(?:at|for|with)\s+(?P<o>.+)",
        lambda m, c: _org(m["o"], 0.8) + [Draft("job_title", "intern", 0.75, kind="none")],
    ),
    rule(
        "works_at.teach",
        r"(?P<v>teach|teaches|taught|teaching)\s+(?:[a-zA-Z ]+?\s+)?(?:at|in)\s+(?P<o>[A-Z].+)",
        _teach,
    ),
    rule(
        "job.title_of",
        rf"{_BE}\s+(?:the\s+|a\s+|an\s+)?(?P<title>{_TITLES})\s+(?:of|at|for)\s+(?P<o>[A-Z].+)",
        _title_of,
    ),
    rule(
        "job.copula",
        r"(?P<v>am|is|are|was|were|been|be|become|became|becoming)\s+(?:a|an)\s+(?P<o>.+)",
        _copula_a,
    ),
    rule(
        "job.state",
        rf"{_BE}\s+(?P<o>retired|unemployed|self-employed|between jobs|out of work|freelancing|"
        r"a stay-at-home (?:mom|dad|parent)|on (?:maternity|paternity|parental) leave)\b",
        lambda m, c: [Draft("job_title", re.sub(r"^a\s+", "", m["o"]), 0.8, kind="none")],
    ),
    # study
    rule(
        "studies.study",
        r"(?P<v>study|studies|studied|studying|major|majors|majored|majoring|minor|minoring|minored)\s+"
        r"(?:in\s+)?(?P<field>.+?)(?:\s+(?:at|in)\s+(?P<o>[A-Z].+))?$",
        _study,
    ),
    rule(
        "studies_at.student",
        rf"{_BE}\s+(?:a\s+|an\s+)?(?:[a-z-]+\s+){{0,2}}?(?:student|freshman|sophomore|junior|senior|"
        r"grad student|graduate student|phd student|phd candidate|undergrad|undergraduate|postgrad|alum|"
        r"alumnus|"
        r"alumna)\s+(?:at|of|in)\s+(?P<o>.+)",
        _simple("studies_at", "organization", 0.85),
    ),
    rule(
        "studies_at.attend",
        r"(?P<v>go|goes|went|attend|attends|attended|attending|enrolled|enroll|enrolling)\s+"
        r"(?:to\s+|at\s+|in\s+)?(?P<o>.+)",
        _attend,
    ),
    rule(
        "studies_at.graduate",
        r"(?P<v>graduated|graduate|graduating|graduates)\s+(?:from\s+)?(?P<o>.+)",
        _graduate,
    ),
    rule(
        "studies.degree",
        r"(?P<v>doing|getting|pursuing|working on|finishing|completing|do|did|got|earned|completed|"
        r"finished|have|has|hold|holds|started|starting)\s+(?:a|an|my|his|her|their)\s+(?:(?:phd|ph\.d\.?|"
        r"doctorate|"
        r"master's|masters|bachelor's|bachelors|degree|mba|md|jd|ba|bs|bsc|ma|ms|msc|diploma|"
        r"certificate)\s*)+"
        r"(?:degree\s+)?(?:(?:in|on)\s+(?P<field>.+?))?(?:\s*(?:at|from)\s+(?P<o>.+))?$",
        _degree,
        flags=re.I,
    ),
    # identity
    rule("name.intro", rf"(?:am|is)\s+(?P<o>{NAME}(?:\s+{NAME})?)\s*$", _intro),
    rule(
        "name.called",
        rf"(?:am|is|was)\s+(?:called|named)\s+(?P<o>{NAME}(?:\s+{NAME})?)",
        lambda m, c: [Draft("name", m["o"], 0.9, kind="none", timing="none")],
    ),
    rule(
        "nickname.goes_by",
        rf"(?P<v>go|goes|went)\s+by\s+(?P<o>{NAME}(?:\s+{NAME})?)",
        lambda m, c: [Draft("nickname", m["o"], 0.9, kind="none", timing="none")],
    ),
    rule(
        "age",
        rf"(?:am|is|are)\s+(?P<q>almost\s+|nearly\s+|about\s+|over\s+)?(?P<o>{_NUMBER})"
        r"(?:\s+(?:years?|yrs?)(?:\s+old)?|\s*y/?o)?\s*$",
        _age,
    ),
    rule(
        "age.turned",
        rf"(?P<v>turned|turn|turning|turns|be)\s+(?P<o>{_NUMBER})\b(?:\s+(?:years?|yrs?)(?:\s+old)?)?\s*$",
        _turned,
        future_ok=True,
    ),
    # partners and family
    rule(
        "spouse.married_to",
        r"(?P<v>am|is|are|was|were|been|got|get|getting)\s+(?:happily\s+)?married\s+to\s+(?P<o>.+)",
        _person("spouse", 0.9),
    ),
    rule(
        "spouse.married",
        rf"(?P<v>married|marry|marries|wed)\s+(?P<o>{NAME}(?:\s+{NAME})?)",
        _person("spouse", 0.85, "start"),
    ),
    rule(
        "status.got",
        rf"(?P<v>got|get|getting|gotten)\s+(?P<o>married|engaged|divorced|separated|hitched)"
        rf"(?:\s+(?:to|from)\s+(?:(?:his|her|my|their)\s+(?:[a-z]+\s+)?)?(?P<name>{NAME}(?:\s+{NAME})?))?",
        _status,
    ),
    rule(
        "status",
        rf"{_BE}\s+(?:happily\s+|recently\s+|newly\s+)?(?P<o>single|married|engaged|divorced|widowed|"
        rf"separated|"
        r"in a relationship|in a committed relationship|taken|a widow|a widower|dating someone|"
        r"seeing someone)\b"
        r"(?!\s+(?:to|with)\b)",
        _status,
    ),
    rule("partner.engaged_to", rf"{_BE}\s+engaged\s+to\s+(?P<o>.+)", _engaged_to),
    rule(
        "partner.dating",
        rf"(?P<v>dating|date|dates|dated)\s+(?P<o>{NAME}(?:\s+{NAME})?)",
        _person("partner", 0.8),
    ),
    rule(
        "partner.relationship",
        rf"{_BE}\s+in\s+a\s+(?:serious\s+|committed\s+|long-distance\s+|happy\s+)?"
        r"relationship\s+with\s+(?P<o>.+)",
        _person("partner", 0.85),
    ),
    rule(
        "partner.breakup",
        r"(?P<v>broke|break|breaking|split|splitting)\s+up(?:\s+with\s+(?P<o>.+))?",
        _breakup,
    ),
    rule(
        "spouse.divorced",
        rf"(?P<v>divorced|divorcing)\s+(?:from\s+)?(?P<o>{NAME})",
        _person("spouse", 0.8, "end", True),
    ),
    rule(
        "relations.have",
        rf"(?P<v>have|has|had|got)\s+(?P<n>a|an|one|two|three|four|five|six|seven|eight|nine|ten|\d+|no)\s+"
        rf"(?:(?:older|younger|little|big|baby|twin|grown|adult|teenage|step|half)[\s-]+)*(?P<rel>{_REL})\b"
        rf"(?:\s*[,:(]?\s*(?:(?:named|called)\s+)?(?P<names>{_NAMES}))?",
        _have_relation,
    ),
    rule(
        "relations.baby",
        rf"(?P<v>had|welcomed)\s+(?:a|our|my|their)\s+(?:first\s+|second\s+|third\s+|new\s+)?"
        rf"(?:baby\s+)?(?P<sex>boy|girl|baby|son|daughter)(?:\s*,?\s*(?:an?\s+(?:baby\s+)?(?:boy|girl)\s+)?"
        rf"(?:(?:named|called)\s+)?(?P<names>{_NAMES}))?",
        _baby,
    ),
    # pets
    rule(
        "pet.have",
        rf"{_V_HAVE_PET}\s+(?P<n>a|an|one|two|three|four|five|\d+|another|some|no|any|my|our)\s+"
        rf"(?P<mods>(?:[a-z-]+\s+){{0,3}}?)(?P<pet>{_PET})\b(?:(?:\s*[,:(]\s*(?:(?:named|called)\s+)?|"
        rf"\s+(?:named|called|whose names? (?:is|are))\s+)(?P<names>{_NAMES}))?",
        _pets,
    ),
    rule(
        "works_at.offer",
        r"(?P<v>accepted|accept|accepting|took|signed)\s+(?:a|an|the|their|his|her|my)\s+(?:job\s+)?"
        r"offer\s+(?:from|at|with)\s+(?P<o>.+)",
        lambda m, c: _org(m["o"], 0.7, "start"),
    ),
    # preferences
    rule("likes", rf"{_V_LIKE}\s+(?P<o>.+)", _like),
    rule(
        "likes.into",
        rf"(?:{_BE}|got|get|getting)\s+(?:really\s+|very\s+|super\s+|so\s+|quite\s+|totally\s+|pretty\s+|"
        r"a\s+little\s+|kind\s+of\s+)?(?P<rel>into|passionate about|obsessed with|crazy about|mad about|"
        r"nuts about|"
        r"a (?:big |huge |massive |great |die-hard |lifelong |total )?fan of|fond of|keen on|addicted to|"
        r"hooked on|"
        r"big on|partial to|a sucker for)\s+(?P<o>.+)",
        _like_adj,
    ),
    rule(
        "dislikes",
        r"(?P<v>hate|hates|hated|dislike|dislikes|disliked|detest|detests|loathe|loathes|despise|despises|"
        r"abhor)\s+(?P<o>.+)",
        _dislike,
    ),
    rule(
        "dislikes.adj",
        rf"{_BE}\s+(?:really\s+|so\s+)?(?:sick of|tired of|fed up with|scared of|afraid of|terrified of)\s+"
        r"(?P<o>.+)",
        _dislike_adj,
    ),
    # food
    rule(
        "diet",
        rf"(?P<v>am|is|are|was|were|been|be|went|gone|go|going|became|become|becoming|turned|stayed)\s+"
        rf"(?:a\s+|an\s+|fully\s+|strictly\s+|mostly\s+|mainly\s+|completely\s+|100%\s+|"
        rf"full\s+)?(?P<o>{_DIET})\b",
        _diet,
        flags=re.I,
    ),
    rule(
        "diet.on", rf"{_BE}\s+on\s+(?:a|the)\s+(?:strict\s+)?(?P<o>[a-z0-9-]+(?:\s+[a-z-]+)?)\s+diet\b", _diet
    ),
    rule(
        "diet.follow",
        r"(?P<v>follow|follows|followed|eat|eats|keep|keeps)\s+(?:a|an|the)\s+(?:strict\s+)?"
        r"(?P<o>[a-z0-9-]+(?:\s+[a-z-]+)?)\s+diet\b",
        _diet,
    ),
    rule("eats", r"(?P<v>eat|eats|drink|drinks|touch|touches)\s+(?P<o>.+)", _eats),
    rule(
        "allergy",
        rf"{_BE}\s+(?:severely\s+|very\s+|mildly\s+|deathly\s+|highly\s+|super\s+|really\s+|extremely\s+|"
        r"slightly\s+)?allergic\s+to\s+(?P<o>.+)",
        _allergy,
    ),
    rule(
        "allergy.have",
        r"(?:have|has)\s+(?:a|an)?\s*(?:severe\s+|mild\s+|bad\s+|serious\s+)?(?P<o>[a-z-]+(?:\s+[a-z-]+)?)"
        r"\s+(?:allergy|allergies|intolerance)\b",
        _allergy,
    ),
    rule(
        "allergy.to",
        r"(?:have|has)\s+(?:an?\s+)?(?:allergy|allergies|intolerance|sensitivity)\s+to\s+(?P<o>.+)",
        _allergy,
    ),
    rule(
        "allergy.intolerant",
        rf"{_BE}\s+(?P<o>lactose|gluten|fructose|dairy|wheat|histamine)[- ]intolerant",
        _intolerant,
    ),
    rule(
        "allergy.celiac",
        rf"(?:{_BE}|have|has)\s+(?:a\s+)?(?:celiac|coeliac)\b",
        lambda m, c: [Draft("allergy", "gluten", 0.8, text=f"{c.subject.name} has celiac disease")],
    ),
    # possessions
    rule(
        "owns.business",
        r"(?P<v>run|runs|ran|own|owns|owned|started|founded|opened|co-founded|cofounded|launched)\s+"
        r"(?:a|an|my own|our own|my|our|the|his own|her own)\s+(?:own\s+|small\s+|"
        r"little\s+)?(?P<o>(?:[a-z-]+\s+){0,2}?"
        r"(?:business|company|startup|shop|store|bakery|restaurant|cafe|café|bar|salon|studio|agency|firm|"
        r"practice|"
        r"clinic|farm|bookstore|boutique|brewery|gym|nonprofit|non-profit|charity|blog|podcast|channel|band|"
        r"club))"
        r"(?:\s*,?\s+(?:called|named)\s+(?P<name>.+))?",
        _business,
    ),
    rule(
        "owns",
        r"(?P<v>own|owns|owned|bought|buy|purchased|got|get|have|has|had|drive|drives|drove|sold|sell|"
        r"selling|"
        r"ride|rides|finally got|picked up|leased|lease)\s+(?:a|an|my|our|the|two|three|\d+|another|"
        r"some)\s+(?P<o>.+)",
        _owns,
    ),
    # travel
    rule(
        "visited",
        r"(?P<v>visited|visit|visits|toured|went|go|goes|travel(?:l)?ed|travels|flew|drove|headed|returned|"
        r"came back|got back|backpacked|vacationed|holidayed|been|took a trip|went on a trip|spent (?:a|an|"
        r"two|three|"
        r"four|five|six|several|a few|a couple of|\d+|the)\s+(?:days?|weeks?|months?|nights?|weekend|summer|"
        r"winter|"
        r"holidays?|year))\s+(?:to|in|from|through|across|around|over to|back to|down to|up to|"
        r"out to)?\s*(?P<o>.+)",
        _visited,
    ),
    rule("visited.was_in", r"(?:was|were)\s+in\s+(?P<o>[A-Z].+)", _was_in),
    # pastimes
    rule(
        "hobby.play",
        r"(?P<v>play|plays|played|playing)\s+(?:the\s+|a\s+little\s+|some\s+|a\s+lot\s+of\s+|lots\s+of\s+|"
        r"competitive\s+|professional\s+|recreational\s+)?(?P<o>.+)",
        _play,
    ),
    rule(
        "hobby.do",
        r"(?P<v>do|does|doing|practice|practices|practicing|practise|practises|practising|took up|"
        r"take up|taking up|started|got into|getting into|picked up)\s+(?P<o>.+)",
        _do_activity,
    ),
    rule(
        "hobby.go",
        rf"(?P<v>go|goes|went|going)\s+(?P<o>{'|'.join(sorted(GO_ACTIVITIES, key=len, reverse=True))})\b",
        _go_activity,
    ),
    rule("hobby.learn", r"(?P<v>learning|learn|learned|learnt|learns)\s+(?P<o>.+)", _learn),
    rule(
        "speaks", r"(?P<v>speak|speaks|spoke|speaking|understand|understands|know|knows)\s+(?P<o>.+)", _speaks
    ),
    rule(
        "speaks.fluent",
        rf"{_BE}\s+(?:fluent|bilingual|trilingual|conversational|proficient)\s+(?:in\s+)?(?P<o>.+)",
        _speaks,
    ),
    rule("speaks.native", rf"{_BE}\s+(?:a\s+)?native\s+(?P<o>[A-Z]\w+)\s+speaker", _speaks),
)


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
