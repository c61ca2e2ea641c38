"""Rules for preferences and possessions, and the whole table of the tastes domain.

Likes and dislikes and what someone owns or runs are built here; food and allergies (``food``) and
pastimes and languages (``pastimes``) have their own modules, whose slices of the table this one
splices in, in the order facts come out.
"""

from __future__ import annotations

import re

from ....vocab.relation_words import PETS
from . import food, pastimes
from .base import Context, Draft, Rule, items, rule
from .common import BE, article, subject_text
from .lexicon import POSSESSIONS, is_place, job_head
from .objects import clean, cut, proper_run, to_gerund

_V_LIKE = (
    r"(?P<v>love|loves|loved|loving|like|likes|liked|enjoy|enjoys|enjoyed|enjoying|adore|adores|adored|dig|"
    r"digs|prefer|prefers|preferred|appreciate|appreciates)"
)

_NOT_LIKED = re.compile(
    r"^(?:it|that|this|them|him|her|you|to be|the idea|when|how|what|being|everything|anything|something|"
    r"nothing|him|me|us|one|the fact|the way)\b",
    re.IGNORECASE,
)


def _liked_objects(raw: str) -> list[str]:
    raw = raw.strip()
    if re.match(r"being\s+(?:a|an)\s", raw):
        return []  # "I love being a nurse" is about the job (see _like)
    if _NOT_LIKED.match(raw):
        return []
    to_verb = re.match(r"to\s+(?P<v>[a-z]+)\b(?P<rest>.*)", raw)
    if to_verb:
        raw = to_gerund(to_verb["v"]) + to_verb["rest"]
    raw = re.sub(r"\s+(?:over|more than|better than|instead of|to\s+(?=\S+$))\s*.*$", "", raw)
    return [d.object for d in items("likes", raw, "thing", 0.8, listable=True)]


def _like(m: re.Match[str], ctx: Context) -> list[Draft]:
    if (ctx.past or ctx.aspect.past) and not (ctx.aspect.ended or ctx.aspect.perfect):
        return []  # "I loved the trip" is a one-off opinion, not a standing preference
    objects = _liked_objects(m["o"])
    if ctx.aspect.negated and not ctx.aspect.ended:
        return [Draft("dislikes", o, 0.65, negated=False) for o in objects]
    job = re.match(r"being\s+(?:a|an)\s+(?P<j>.+)", m["o"])
    if job and job_head(cut(job["j"])):  # "I love being a nurse"
        return [Draft("job_title", cut(job["j"]), 0.7, kind="none")]
    home = re.match(r"living\s+in\s+(?P<o>.+)", m["o"])
    if home:  # "I love living in Lisbon" says where someone lives
        out = items("lives_in", home["o"], "place", 0.7, accept=lambda p: p[:1].isupper())
        return out + [Draft("likes", o, 0.8) for o in objects]
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


_OWN_DROP = re.compile(
    r"^(?:new|used|brand[- ]new|second[- ]hand|old|first|own|little|tiny|big|nice|fancy|cool)\s+",
    re.IGNORECASE,
)


_BRAND_AFTER = re.compile(
    r"(?:new\s+|used\s+|second[- ]hand\s+)?(?:car|bike|motorbike|van|phone|camera|laptop|guitar|truck)\s*,\s*"
    r"(?:an?\s+)(?:(?:new|used|second[- ]hand|old|little|\d{4})\s+)?(?P<b>[A-Z][\w-]*(?:\s+[A-Z0-9][\w-]*)?)"
)


def _trade(m: re.Match[str], ctx: Context) -> list[Draft]:
    """"traded the F-150 in for a Ram 2500": the old thing is sold, the new one bought."""
    return _owns({"v": "sold", "o": m["old"]}, ctx) + _owns({"v": "bought", "o": m["o"]}, ctx)


def _owns(m: re.Match[str] | dict[str, str], ctx: Context) -> list[Draft]:
    if re.search(r"\s(?:called|named)\s", m["o"]):
        return []  # "I own a cafe called Beans": the business rule names it
    if brand := _BRAND_AFTER.match(m["o"]):  # "a new car, a Skoda"
        timing = "start" if m["v"] in ("got", "bought") else "state"
        return [Draft("owns", brand["b"], 0.7, kind="thing", timing=timing)]
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
                text=f"{subject_text(ctx)} owns a {house['h']} in {place}" if place else None,
                entities=[(place, "place")] if place else [],
            )
        ]
        return out
    head = re.sub(r"[^a-z-]", "", words[min(len(words), 3) - 1].lower()) if len(words) <= 3 else ""
    product = proper_run(raw, max_tokens=4)
    if product and not is_place(product):
        return [Draft("owns", product, 0.75, timing=timing, ended=ended, kind="thing")]
    if head in PETS or head[:-1] in PETS or raw.lower() in PETS:
        return []  # pets have their own rule
    owned = verb in ("own", "owns", "owned") and len(words) <= 4  # "own" is unambiguous; "got a" is not
    if owned or head in POSSESSIONS or (head.endswith("s") and head[:-1] in POSSESSIONS):
        value = clean(raw, "thing")
        return [Draft("owns", value, 0.7, timing=timing, ended=ended, kind="thing")] if value else []
    return []


def _business(m: re.Match[str], ctx: Context) -> list[Draft]:
    name = proper_run(m["name"]) if m["name"] else None
    thing = m["o"].strip()
    text = f"{subject_text(ctx)} runs {article(thing)}" + (f" called {name}" if name else "")
    # "I started the company in 2019": a beginning, still owned, not an ownership that ended
    began = m["v"].lower() in ("started", "founded", "opened", "co-founded", "cofounded", "launched")
    return [Draft("owns", name or thing, 0.75, text=text, kind="organization" if name else "none",
                  timing="start" if began else "state")]


RULES: tuple[Rule, ...] = (
    # preferences
    rule("likes", rf"{_V_LIKE}\s+(?P<o>.+)", _like),
    rule(
        "likes.support",
        r"(?P<v>support|supports|follow|follows)\s+(?P<o>(?:the\s+)?[A-Z][\w.'&-]*(?:\s+[A-Z][\w.'&-]*){0,3})\s*"
        r"(?:$|,|\s+(?:and|but|since|because|through|all|religiously|too|as well)\b)",
        lambda m, c: [] if c.aspect.negated or c.past else [Draft("likes", d.object, 0.75) for d in items(
            "likes", m["o"], "thing", 0.75)],
    ),
    rule(
        "likes.fan",
        r"(?:a\s+)?(?:big|huge|massive|great|die-hard|lifelong)\s+fan\s+of\s+(?P<o>.+)",
        _like_adj,
    ),
    *pastimes.HABIT_RULES,
    rule(
        "likes.into",
        rf"(?:{BE}|got|get|getting|gotten|become|became)\s+(?:really\s+|very\s+|super\s+|so\s+|quite\s+|"
        r"totally\s+|pretty\s+|a\s+little\s+|kind\s+of\s+|sort\s+of\s+|a\s+bit\s+|mad\s+|big\s+|well\s+|"
        r"dead\s+|proper\s+|massively\s+|hugely\s+|seriously\s+)?"
        r"(?P<rel>into|passionate about|obsessed with|crazy about|mad about|"
        r"nuts about|a (?:big |huge |massive |great |die-hard |lifelong |total )?fan of|fond of|keen on|"
        r"addicted to|hooked on|big on|partial to|a sucker for)\s+(?P<o>.+)",
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
        rf"{BE}\s+(?:really\s+|so\s+)?(?:sick of|tired of|fed up with|scared of|afraid of|terrified of)\s+"
        r"(?P<o>.+)",
        _dislike_adj,
    ),
    *food.RULES,
    # possessions
    rule(
        "owns.business",
        r"(?P<v>run|runs|ran|own|owns|owned|started|founded|opened|co-founded|cofounded|launched|have|has)\s+(?:a|an|"
        r"my own|our own|my|our|the|his own|her own)\s+(?:own\s+|small\s+|"
        r"little\s+)?(?P<o>(?:[a-z-]+\s+){0,2}?(?:business|company|startup|shop|store|bakery|restaurant|cafe|"
        r"café|bar|salon|studio|agency|firm|practice|clinic|farm|bookstore|boutique|brewery|gym|nonprofit|"
        r"non-profit|charity|blog|podcast|channel|band|club|b&b|B&B|BnB|bnb|guesthouse|guest house|pub|"
        r"hotel|garage|nursery|takeaway|food truck|stall|market stall|barbershop|consultancy|vineyard|winery|"
        r"kennels|cattery|dairy farm|sheep farm))(?:\s+(?:in|on|near)\s+[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)*)?"
        r"(?:\s*,?\s+(?:called|named)\s+(?P<name>.+))?",
        _business,
    ),
    rule(
        "owns",
        r"(?P<v>own|owns|owned|bought|buy|purchased|got|get|have|has|had|drive|drives|drove|sold|sell|"
        r"selling|ride|rides|finally got|picked up|leased|lease)\s+(?:a|an|my|our|the|two|three|\d+|another|"
        r"some)\s+(?P<o>.+)",
        _owns,
    ),
    rule(
        "owns.trade",
        r"(?P<v>traded|traded in|trade in|swapped|exchanged|part-exchanged)\s+(?:in\s+)?"
        r"(?:my|our|the|his|her)\s+"
        r"(?:old\s+)?(?P<old>.+?)\s+(?:in\s+)?(?:(?:yesterday|today|last\s+\w+|this\s+\w+)\s+)?for\s+"
        r"(?:a|an|the|my|our|a\s+new|a\s+used)\s+(?P<o>.+)",
        _trade,
    ),
    *pastimes.RULES,
)
