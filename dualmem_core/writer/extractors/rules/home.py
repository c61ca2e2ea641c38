"""Rules for where someone lives, where they are from and where they have travelled."""

from __future__ import annotations

import re

from . import dates
from .base import Builder, Context, Draft, Rule, items, rule
from .common import BE, NUMBER
from .jobs import org_drafts
from .lexicon import is_place, is_school
from .objects import clean, cut, split_items

_V_LIVE = r"(?P<v>live|lives|lived|living|reside|resides|resided|residing|stay|stays|staying)"


def _place(predicate: str, confidence: float, timing: str = "state") -> Builder:
    def build(m: re.Match[str], ctx: Context) -> list[Draft]:
        # "living on top of the fridge" is not an address; "on Maple Street" or "on Long Island" is.
        proper = (m.groupdict().get("prep") or "in") not in ("in", "near", "outside", "outside of")
        return items(
            predicate,
            m["o"],
            "place",
            confidence,
            timing=timing,
            accept=lambda p: not _is_year(p) and (p[:1].isupper() or not proper),
        )

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
        out += org_drafts(job["o"], 0.8, "start")
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
    # "I've been in Denver since May" or "we're still in Denver" is where someone lives; "I'm in Denver"
    # alone may be a visit.
    present = not (ctx.past or ctx.aspect.past)
    settled = _SETTLED_PLACE.match(m["o"]) is not None
    if present and ctx.is_speaker and m["back"] and settled and not ctx.times:
        # "we're back in Toronto": home again
        return items("lives_in", m["o"], "place", 0.6, accept=lambda p: p[:1].isupper())
    if present and not ctx.is_speaker and not ctx.times and _ENDS_AT_PLACE.match(m["o"]):
        # "my sister's in Chicago": where someone else is, said in passing, is where they live;
        # "my mum is in Tesco" is an errand
        return items("lives_in", m["o"], "place", 0.55, accept=_town)
    lasting = present and (
        ctx.aspect.still
        or bool(_THESE_DAYS.search(m["o"]))  # "we're down in Hobart these days"
        # "moved up ..., we're in Leeds now"; "now in Soho having drinks" is an evening out
        or (ctx.moved and (ctx.aspect.now or bool(_NOW.search(m["o"]))) and settled)
    )
    span = ctx.aspect.perfect and bool(_SPAN.search(m["o"]))  # "we've been in Toronto about two years"
    if not (lasting or span or ctx.has_time("since") or (ctx.has_time("duration") and ctx.aspect.perfect)):
        return []
    return items("lives_in", m["o"], "place", 0.6, accept=lambda p: p[:1].isupper())


def _town(place: str) -> bool:
    return place[:1].isupper() and not _VENUE.search(place)


_VENUE = re.compile(
    r"\b(?:Tesco|Aldi|Lidl|Asda|Sainsbury's|Morrisons|Waitrose|Dunnes|SuperValu|Woolworths|Coles|Costco|Walmart|"
    r"Target|IKEA|Ikea|Primark|Penneys|Boots|Starbucks|Costa|Greggs|Centra|Spar|Loblaws|Kmart|Argos|Currys|"
    r"Hospital|Airport|Station|Centre|Center|Mall|Park|Stadium|Arena|Hotel|Clinic|School|College|University|"
    r"Library|Church|Gym|Cinema|Theatre|Theater|Pub|Bar|Cafe|Café|Year|Grade|Class|Form)\b"
)
_THESE_DAYS = re.compile(r"\b(?:these days|nowadays|for good|permanently)\b")
_NOW = re.compile(r"\bnow\b")
_SETTLED_PLACE = re.compile(
    r"[A-Z][\w.'-]*(?:\s+[A-Z][\w.'-]*)*(?:,\s*[A-Z][\w.'-]*)?\s*(?:now\s*)?(?:$|,|\s+(?:now|working|living|"
    r"studying|with|and|again|for good)\b)"
)
_SPAN = re.compile(
    r"\b(?:(?:about|around|nearly|almost|over|going on)\s+"
    r"(?:a|one|two|three|four|five|six|seven|eight|nine|ten|a couple of|a few|\d+)\s+(?:years?|months?)|"
    r"for\s+(?:ages|years|decades|a while|a long time)|"
    r"(?:my|our|his|her|their) whole li(?:fe|ves)|all (?:my|our|his|her|their) li(?:fe|ves))\b"
)
_ENDS_AT_PLACE = re.compile(
    r"[A-Z][\w.'-]*(?:\s+[A-Z][\w.'-]*)*(?:,\s*[A-Z][\w.'-]*)?\s*(?:now|these days)?\s*$"
)


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


def _visited(m: re.Match[str], ctx: Context) -> list[Draft]:
    if ctx.aspect.progressive and not ctx.aspect.past:
        return []
    verb = m["v"].lower().split()[0]
    if "back" in m["v"].lower() and verb not in ("came", "got") and not re.search(r"\bback\s+from\b", m[0]):
        return []  # "back from Japan" was a trip; "back in Denver" is coming home
    if verb == "been" and (not (ctx.aspect.perfect or ctx.aspect.past) or not re.match(r"been\s+to\b", m[0])):
        return []  # "I've been to Rome" is a visit; "I've been in Rome since May" is not
    raw = m["o"]
    if re.search(r"'s\b", raw.split(" ")[0]):
        return []  # "went to Sarah's wedding": the place is not Sarah
    places = [p for p in split_items(cut(raw, "place"), binomials=False) if p[:1].isupper()]
    if len(places) > 1 and all(p.split()[0][:1].isupper() for p in places):
        out: list[Draft] = []  # "I've been to Iceland and Norway": each is a visit
        for place in places:
            out += _visit(place, verb, ctx)
        return out
    return _visit(raw, verb, ctx)


def _visit(raw: str, verb: str, ctx: Context) -> list[Draft]:
    value = clean(raw, "place")
    if not value or not value[:1].isupper():
        return []
    if verb in ("did", "do", "done", "doing") and not is_place(value.split(",")[0]):
        return []  # "we did Italy last summer"; "did Yoga" is not a trip
    if is_school(value):
        ended = verb in ("went", "attended") or ctx.aspect.past
        return [Draft("studies_at", value, 0.75, ended=ended, timing="state")]
    if verb in ("go", "goes") and not is_place(value):
        return []
    confidence = 0.85 if is_place(value.split(",")[0]) else 0.6
    if verb in ("go", "goes"):
        confidence -= 0.2
    return [Draft("visited", value, confidence, timing="event")]


def _left_for(m: re.Match[str], ctx: Context) -> list[Draft]:
    """'They left Chicago for Milwaukee': a move, when at least one side is a known place."""
    old, new = clean(m["frm"], "place"), clean(m["o"], "place")
    if (
        not old
        or not new
        or not (is_place(old) or is_place(new))
        or not (old[:1].isupper() and new[:1].isupper())
    ):
        return []
    return [
        Draft("lives_in", new, 0.8, timing="start"),
        Draft("lives_in", old, 0.75, timing="end", ended=True),
    ]


def _coming_from(m: re.Match[str], ctx: Context) -> list[Draft]:
    """'my friend Robert is coming in from Boston': a visitor lives where they come from."""
    if ctx.is_speaker or ctx.aspect.negated:
        return []  # the speaker coming back from somewhere is more often a trip
    return items(
        "lives_in", m["o"], "place", 0.6, timing="none", accept=lambda p: p[:1].isupper() and not _is_year(p)
    )


def _was_in(m: re.Match[str], ctx: Context) -> list[Draft]:
    if not any(t.kind == "point" and t.valid_from is not None for t in ctx.times):
        return []
    value = clean(m["o"], "place")
    if not value or not is_place(value.split(",")[0]):
        return []
    return [Draft("visited", value, 0.7, timing="event")]


RULES: tuple[Rule, ...] = (
    # where someone lives
    rule(
        "lives_in",
        rf"{_V_LIVE}\s+(?:(?:down|up|out|over|back)\s+)?"
        r"(?P<prep>in|at|near|outside(?:\s+of)?|on|just outside(?:\s+of)?|close to|by)\s+(?P<o>.+)",
        _place("lives_in", 0.9),
    ),
    rule(
        "lives_in.move",
        r"(?P<v>moved|move|moves|moving|relocated|relocate|relocating|relocates)\s+(?:(?:back|over|here|there|"
        r"home|all the way|up|down|out|across|away|in)\s+){0,3}"
        r"(?:from\s+(?P<frm>.+?)\s+)?(?:to|into|together\s+in)\s+(?P<o>.+)",
        _move,
    ),
    rule(
        "lives_in.move_away",
        r"(?P<v>moved|move|moving|relocated)\s+(?:(?:here|there|up|down|over|back|out)\s+)?"
        r"(?:away from|out of|from)\s+"
        r"(?P<o>(?:(?!\bto\b).)+)$",
        _move_away,
    ),
    rule(
        "lives_in.based",
        rf"{BE}\s+(?:based|located|settled|stationed|living)\s+(?:in|at|out of|near)\s+(?P<o>.+)",
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
    rule(
        "lives_in.in_since",
        rf"{BE}\s+(?:(?P<back>back)\s+|(?:down|up|out|over)\s+)?in\s+(?P<o>[A-Z].+)",
        _in_since,
        raw=True,  # "these days", "now" and "since May" say it is a home, not a visit
    ),
    rule(
        "works_at.in_working",
        rf"{BE}\s+(?:(?:down|up|out|over|back)\s+)?in\s+[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)*,?\s+working\s+"
        r"(?:at|for)\s+(?P<o>[A-Z].+)",
        lambda m, c: [] if c.aspect.negated or c.past else org_drafts(m["o"], 0.75),
    ),
    rule(
        "lives_in.left_for",
        r"(?P<v>left|leave|leaving|leaves)\s+(?P<frm>[A-Z][\w.'-]*(?:\s+[A-Z][\w.'-]*)*)\s+for\s+(?P<o>[A-Z].+)",
        _left_for,
    ),
    rule(
        "lives_in.coming_from",
        r"(?P<v>coming|driving|flying|visiting|came|drove|flew|visited|comes|drives|flies)\s+"
        r"(?:(?:in|down|up|over|out|across)\s+)*from\s+(?P<o>[A-Z].+)",
        _coming_from,
    ),
    rule(
        "lives_in.x_based",  # "we're Toronto based", "I'm Dublin-based"
        rf"{BE}\s+(?P<o>[A-Z][\w'.]*(?:\s+[A-Z][\w'.]*)*)[- ]based\b",
        lambda m, c: [] if c.aspect.negated or c.past else items("lives_in", m["o"], "place", 0.8),
    ),
    rule(
        "lives_in.spent_years",  # "spent five years in Tokyo": lived there, and no longer
        rf"(?P<v>spent)\s+(?:(?:{NUMBER}|a few|a couple of|several|many)\s+years?|a year|years)\s+"
        r"(?:living\s+|working\s+)?in\s+(?P<o>[A-Z].+)",
        lambda m, c: [
            Draft("lives_in", d.object, 0.7, ended=True) for d in items("lives_in", m["o"], "place", 0.7)
        ],
    ),
    rule(
        "lives_in.with",  # "I live with my partner and our two cats in Leith"
        rf"{_V_LIVE}\s+with\s+(?:[\w'-]+\s+){{1,8}}?in\s+(?P<o>[A-Z].+)",
        _place("lives_in", 0.8),
    ),
    rule(
        "lives_in.home_in",  # "we're in a rented flat in Salford"
        rf"{BE}\s+in\s+(?:a|an|our|my|the)\s+(?:[a-z-]+\s+){{0,2}}(?:flat|house|apartment|place|home|condo|"
        r"bungalow|cottage|terrace|semi|bedsit|studio)\s+(?:in|near|outside)\s+(?P<o>[A-Z].+)",
        lambda m, c: [] if c.aspect.negated or c.past or c.aspect.past else _place("lives_in", 0.75)(m, c),
    ),
    rule(
        "lives_in.rent",
        r"(?P<v>rent|rents|renting|share|shares|sharing)\s+(?:a|an|the|this)\s+(?:(?:small|tiny|little|nice|big|"
        r"two-bed|one-bed|three-bed)\s+)?(?:flat|house|place|apartment|room|terrace|semi|bedsit|studio|condo)\s+"
        r"(?:(?:in|near|outside)\s+)(?P<o>[A-Z].+)",
        lambda m, c: [] if c.aspect.negated or c.past or c.aspect.past else _place("lives_in", 0.75)(m, c),
    ),
    # where someone is from
    rule("from", rf"{BE}\s+(?:originally\s+)?from\s+(?P<o>.+)", _place("from", 0.9, "none")),
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
        "from.raised",
        rf"(?:{BE}\s+)?(?:raised|brought up)\s+(?:in|on)\s+(?P<o>.+)",
        _place("from", 0.85, "none"),
    ),
    rule("born", r"(?:(?:was|were)\s+)?[Bb]orn\s+(?P<rest>.+)", _born, raw=True),
    rule("from.native", rf"{BE}\s+(?:a\s+)?native\s+of\s+(?P<o>.+)", _place("from", 0.85, "none")),
    # travel
    rule(
        "visited",
        r"(?P<v>visited|visit|visits|toured|went|go|goes|travel(?:l)?ed|travels|flew|drove|headed|returned|"
        r"came back|got back|(?:am|is|are|was|were|just)\s+back|back|backpacked|vacationed|holidayed|"
        r"honeymooned|"
        r"did|been|took a trip|went on a trip|spent (?:a|an|"
        r"two|three|four|five|six|several|a few|a couple of|\d+|the)\s+(?:days?|weeks?|months?|nights?|"
        r"weekend|summer|winter|holidays?|year))\s+(?:to|in|from|through|across|around|over to|back to|"
        r"down to|up to|out to)?\s*(?P<o>.+)",
        _visited,
    ),
    rule("visited.was_in", r"(?:was|were)\s+in\s+(?P<o>[A-Z].+)", _was_in),
)
