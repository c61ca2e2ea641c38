"""Rules for pastimes and languages: hobbies played, done, taken up, learned or given up, and
languages spoken.

Separate from ``tastes`` because the hobby builders share their own word lists (pastimes, kinds of
outdoor activity, class nouns); ``tastes.RULES`` splices ``HABIT_RULES`` and ``RULES`` into its
table at their places.
"""

from __future__ import annotations

import re

from .base import Context, Draft, Rule, items, rule
from .common import BE, subject_text
from .lexicon import (
    ACTIVITIES,
    GO_ACTIVITIES,
    INSTRUMENTS,
    SPORTS_AND_GAMES,
    is_language,
)
from .objects import clean, cut, split_items, tidy, to_gerund

# Pastimes the lexicon knows, hyphenated ("little-league"): a bare noun counts as a hobby only if listed.
_PASTIMES = ACTIVITIES | GO_ACTIVITIES | SPORTS_AND_GAMES


def _play(m: re.Match[str], ctx: Context) -> list[Draft]:
    out = []
    raw = re.split(r"\s+(?:with|in|on|at|for|against|every|most|twice|once|since)\s+", m["o"], maxsplit=1)[0]
    for d in items("hobby", raw, "thing", 0.8, listable=True):
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
            text = f"{subject_text(ctx)} plays {played}"
            out.append(Draft("hobby", name, 0.8 if not ctx.past else 0.6, text=text))
    return out


def _gave_up_activity(m: re.Match[str], ctx: Context) -> list[Draft]:
    """"I've given up golf", "quit running last year": a pastime that ended (a listed one only:
    "gave up hope" is no hobby)."""
    if ctx.aspect.negated or ctx.aspect.modal or ctx.aspect.future or ctx.aspect.intent:
        return []
    value = re.sub(r"^(?:playing|doing)\s+", "", m["o"].lower()).replace(" ", "-")
    if value not in _PASTIMES:
        return []
    return [Draft("hobby", value.replace("-", " "), 0.7, timing="end", ended=True)]


def _do_activity(m: re.Match[str], ctx: Context) -> list[Draft]:
    out = []
    verb = m["v"].lower()
    timing = (
        "start"
        if verb in ("took up", "take up", "taking up", "taken up", "started", "got into", "picked up")
        else "state"
    )
    took_up = verb in ("took up", "take up", "taking up", "taken up", "takes up", "got into", "getting into")
    raw = re.split(r"\s+(?:for|since|at|in|with|on|every|last|this|when|because)\s+", m["o"], maxsplit=1)[0]
    raw = re.sub(r"^(?:doing|playing|practising|practicing)\s+", "", raw)  # "started doing yoga"
    for d in items("hobby", raw, "thing", 0.8, listable=True):
        value = d.object.lower().replace(" ", "-")
        if took_up and len(value.split("-")) <= 3 and value.isascii() and re.fullmatch(r"[a-z-]+", value):
            out.append(Draft("hobby", d.object, 0.7, timing=timing))  # "I've taken up pottery"
        elif (
            value in _PASTIMES  # "she just started little league"
            or value.split("-")[-1] in GO_ACTIVITIES  # "cold water swimming"
            or (value.endswith("ing") and timing == "start" and d.object.islower())  # not "Acme Consulting"
        ):
            out.append(Draft("hobby", d.object, 0.75, timing=timing))
    return out


# "a forró class", "the indoor bowling", "a running club": the activity a class or club is for.
_CLASS_NOUN = r"(?:class|classes|lessons?|club|sessions?)"
_ACTIVITY_ADJECTIVES = re.compile(
    r"^(?:(?:new|weekly|evening|morning|local|beginner'?s?|beginners|adult|indoor|outdoor|community|free|"
    r"regular|little|amateur)\s+)+", re.I)


def _class_activity(m: re.Match[str], ctx: Context) -> list[Draft]:
    """'I started a forró class', 'I go to salsa classes', 'joined the indoor bowling': a hobby."""
    activity = _ACTIVITY_ADJECTIVES.sub("", m["o"].strip()).strip()
    words = activity.split()
    if not words or len(words) > 3 or not all(re.fullmatch(r"[a-zà-ÿ-]+", w) for w in words):
        return []  # a named team or a school course, not a pastime
    value = activity.lower().replace(" ", "-")
    known = value in _PASTIMES or value.split("-")[-1] in GO_ACTIVITIES
    if not (m["noun"] or known):
        return []  # "joined the committee": only a known pastime stands without "class" or "club"
    if m["noun"] == "club" and not known:
        activity = f"{activity} club"  # "a book club", "the chess club" is chess
    verb = m["v"].lower()
    timing = "start" if verb in ("started", "joined", "signed up for", "enrolled in") else "state"
    if timing == "state" and (ctx.past or ctx.aspect.past) and ctx.has_time("point"):
        return []  # "went to a cooking class last night": once, not a pastime
    return [Draft("hobby", activity, 0.7, timing=timing)]


def _go_activity(m: re.Match[str], ctx: Context) -> list[Draft]:
    if ctx.past or ctx.aspect.past:
        return (
            [Draft("event", f"went {m['o']}", 0.5, timing="event", kind="none")]
            if ctx.has_time("point")
            else []
        )
    return [Draft("hobby", m["o"], 0.75)]


_HOBBY_REST = re.compile(
    r"\s+(?:every|most|on|at|in|with|a lot|a bit|regularly|twice|once|three times|daily|weekly|competitively|"
    r"when|whenever|for fun|for a club|as a hobby|nearly|almost|religiously|whenever|loads|all year|outdoors|"
    r"indoors|year[- ]round|for (?:a|the|my) (?:club|team|county|local))\b"
)
_GERUND = {"run": "running", "swim": "swimming", "box": "boxing", "fence": "fencing", "ski": "skiing"}
_HABIT_ING = (
    r"running|surfing|swimming|climbing|bouldering|hiking|cycling|knitting|skiing|sailing|baking|dancing|boxing|"
    r"kayaking|golfing|fishing|gardening|painting|singing|rowing|skating|crocheting|volunteering"
)


def _been_doing(m: re.Match[str], ctx: Context) -> list[Draft]:
    """'I've been climbing a lot lately': a pastime kept up, said in the perfect progressive."""
    aspect = ctx.aspect
    if aspect.negated or not (aspect.perfect and aspect.progressive) or aspect.past:
        return []
    rest = m["rest"] or ""
    kept_up = re.match(r"\s+(?:a lot|loads|lately|recently|more|again)\b", rest)
    if rest.strip() and not (_HOBBY_REST.match(rest) or kept_up):
        return []
    return [Draft("hobby", m["o"], 0.65)]


def _hobby_verb(m: re.Match[str], ctx: Context) -> list[Draft]:
    """'I run every morning', 'I surf most weekends': a habit in the simple present."""
    aspect = ctx.aspect
    if aspect.negated or aspect.past or aspect.progressive or aspect.perfect or aspect.future or ctx.past:
        return []
    rest = m["rest"] or ""
    if rest.strip() and not _HOBBY_REST.match(rest):
        return []  # "I run a business", "I fish for compliments"
    verb = m["v"]
    return [Draft("hobby", _GERUND.get(verb) or to_gerund(verb), 0.7)]


_GO = "|".join(sorted(GO_ACTIVITIES, key=len, reverse=True))
# "wild swimming", "trail running": the kind is part of the pastime
_GO_KIND = (
    r"(?:wild|cold[- ]water|open[- ]water|sea|trail|fell|rock|ice|night|road|mountain|deep[- ]sea|fly|"
    r"indoor|sport)"
)


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
        Draft("hobby", value, 0.65, text=f"{subject_text(ctx)} is learning {clean(m['o'], 'thing') or value}")
    ]


_LANGUAGE_QUALIFIERS = re.compile(
    r"^(?:a (?:little|bit|little bit) of|a bit|some|a little|little|basic|fluent|conversational|broken|"
    r"decent|good|pretty good|very good|perfect|native|intermediate|beginner|rusty|passable|okay|ok)\s+",
    re.IGNORECASE,
)


def _speaks(m: re.Match[str], ctx: Context) -> list[Draft]:
    out = []
    said = re.split(r"\s+(?:to|with|at|in|for|around|when|because)\s", m["o"], maxsplit=1)[0]
    for part in split_items(cut(said)):
        part = _LANGUAGE_QUALIFIERS.sub("", _LANGUAGE_QUALIFIERS.sub("", part.strip()))
        word = tidy(re.sub(r"\s+(?:fluently|well|a bit|a little|too|as well|good enough|well enough|ok|okay|"
                           r"alright|pretty good|pretty well|decently|fine|badly|poorly|now)$", "", part))
        if is_language(word):
            shown = word if any(c.isupper() for c in word[1:]) else word[:1].upper() + word[1:]  # "isiXhosa"
            out.append(Draft("speaks", shown, 0.85, kind="thing"))
    return out


# Habits said with the verb itself ("I run every morning"): early in the tastes table.
HABIT_RULES: tuple[Rule, ...] = (
    rule("hobby.been_doing", rf"(?P<o>{_HABIT_ING})(?P<rest>\s+.*)?$", _been_doing),
    rule(
        "hobby.gym",  # "I go to the gym most days"
        r"(?P<v>go|goes)\s+to\s+(?:the\s+)?gym\b",
        lambda m, c: [] if c.aspect.negated or c.past or c.aspect.past or c.aspect.progressive
        else [Draft("hobby", "going to the gym", 0.6)],
    ),
    rule(
        "hobby.verb",
        r"(?P<v>run|surf|swim|hike|climb|boulder|knit|crochet|sail|ski|sing|volunteer|snowboard|skate|cycle|box|fence|"
        r"dance|bake|garden|fish|kayak|paddleboard|golf)(?P<rest>\s+.*)?$",
        lambda m, c: _hobby_verb(m, c),
    ),
)

RULES: tuple[Rule, ...] = (
    # pastimes
    rule(
        "hobby.play",
        r"(?P<v>play|plays|played|playing)\s+(?:the\s+|a\s+little\s+|some\s+|a\s+lot\s+of\s+|lots\s+of\s+|"
        r"competitive\s+|professional\s+|recreational\s+)?(?P<o>.+)",
        _play,
    ),
    rule(
        "hobby.gave_up",
        r"(?P<v>gave up|given up|giving up|quit|quitting|stopped|stopping)\s+"
        r"(?P<o>(?:playing\s+|doing\s+)?[a-z-]+(?:\s+[a-z-]+)?)(?=$|\s+(?:for|since|in|last|after|because|when|years|"
        r"months|a\s+while|altogether|now))",
        _gave_up_activity,
    ),
    rule(
        "hobby.do",
        r"(?P<v>do|does|doing|practice|practices|practicing|practise|practises|practising|took up|taken up|"
        r"takes up|take up|taking up|started|got into|getting into|picked up)\s+(?P<o>.+)",
        _do_activity,
    ),
    rule(
        "hobby.go",
        rf"(?P<v>go|goes|went|going)\s+(?P<o>(?:{_GO_KIND}\s+)?(?:{_GO}))\b",
        _go_activity,
    ),
    rule("hobby.learn", r"(?P<v>learning|learn|learned|learnt|learns)\s+(?P<o>.+)", _learn),
    rule(
        "hobby.class",
        r"(?P<v>started|start|starting|take|takes|taking|took|go to|goes to|going to|went to|attend|attends|"
        r"attending|signed up for|joined|join|joining|enrolled in|do|does|doing)\s+(?:a|an|the|my|some)?\s*"
        rf"(?P<o>[a-zà-ÿ' -]+?)(?:\s+(?P<noun>{_CLASS_NOUN}))?(?=$|\s+(?:on|at|in|every|twice|once|with|"
        r"for|since|this|last|and)\b|[,.!])",
        _class_activity,
    ),
    rule(
        "hobby.round_of",
        r"(?P<v>had|have|has|played|play|playing|did|do)\s+(?:a|another|the odd|a quick)\s+"
        r"(?:round|game|match)\s+of\s+(?P<o>golf|tennis|squash|pool|darts|snooker|bowls|chess|cards|padel)\b",
        lambda m, c: [Draft("hobby", m["o"], 0.65)],
    ),
    rule(
        "speaks", r"(?P<v>speak|speaks|spoke|speaking|understand|understands|know|knows)\s+(?P<o>.+)", _speaks
    ),
    rule(
        "speaks.fluent",
        rf"{BE}\s+(?:fluent|bilingual|trilingual|conversational|proficient)\s+(?:in\s+)?(?P<o>.+)",
        _speaks,
    ),
    rule("speaks.native", rf"{BE}\s+(?:a\s+)?native\s+(?P<o>[A-Z]\w+)\s+speaker", _speaks),
)
