"""Rules for preferences, food, allergies, possessions, pastimes and languages."""

from __future__ import annotations

import re

from ....vocab.relation_words import PETS
from .base import Context, Draft, Rule, items, rule
from .common import BE, article, subject_text
from .lexicon import (
    ACTIVITIES,
    DIETS,
    GO_ACTIVITIES,
    INSTRUMENTS,
    POSSESSIONS,
    SPORTS_AND_GAMES,
    is_language,
    is_place,
    job_head,
)
from .objects import clean, cut, proper_run, split_items, tidy, to_gerund

_V_LIKE = (
    r"(?P<v>love|loves|loved|loving|like|likes|liked|enjoy|enjoys|enjoyed|enjoying|adore|adores|adored|dig|"
    r"digs|prefer|prefers|preferred|appreciate|appreciates)"
)

_DRINKS = (
    r"tea|rooibos|decaf|coffee|oat milk|soy milk|almond milk|green tea|herbal tea|matcha|kombucha|"
    r"sparkling water|water|chai|espresso|hot chocolate|juice"
)
_DIET = "|".join(re.escape(d) for d in sorted(DIETS, key=len, reverse=True))

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


_DIET_AS_MODIFIER = frozenset(
    "food foods restaurant restaurants option options meal meals dish dishes cafe café place places cookbook "
    "recipe recipes cheese burger burgers sausage sausages version stuff friends friend shop".split()
)


def _diet(m: re.Match[str], ctx: Context) -> list[Draft]:
    if m.string.startswith(("-curious", "-ish"), m.end()):
        return []  # "he's vegetarian-curious": not (yet) the diet
    following = m.string[m.end() :].split(maxsplit=1)
    noun = following[0].lower().strip(",.!") if following else ""
    if noun in _DIET_AS_MODIFIER or job_head(noun):
        return []  # "a vegan chef", "vegetarian options": the diet word describes something else
    value = (
        m["o"].lower().replace(" ", "-")
        if m["o"].lower() in ("gluten free", "dairy free", "plant based")
        else m["o"].lower()
    )
    timing = "start" if m.groupdict().get("v") in ("went", "gone", "became", "become", "turned") else "state"
    return [Draft("diet", value, 0.85, kind="none", timing=timing)]


def _eats(m: re.Match[str], ctx: Context) -> list[Draft]:
    again = _AGAIN.match(m["o"])
    # "I eat meat again", "so I guess I eat pork now": a habit taken (back) up, an update of a
    # "don't eat" told before; without one, "I eat pizza" is an event more than a habit.
    if again or (ctx.has_time("now") and not ctx.aspect.negated and not ctx.aspect.ended):
        if ctx.aspect.negated or ctx.past or ctx.aspect.past:
            return []
        raw = again["o"] if again else re.split(r"\s*[,;:.!?]", m["o"])[0]  # where "now" was cut
        return [Draft("eats", d.object, 0.7, timing="start") for d in items("eats", raw, "thing", 0.7)
                if d.object.lower().split()[0] not in _NOT_FOOD]
    if not (ctx.aspect.negated or ctx.aspect.ended):
        return []  # "I eat pizza" is an event more than a habit; the negative is the useful fact
    if re.match(r"(?:much|many|a lot of|as much|enough|loads of|tons of)\b", m["o"]):
        return []  # "I don't eat much red meat": less, not none
    raw = re.sub(r"^(?:any|much|a lot of|red)\s+", lambda x: "red " if x[0].startswith("red") else "", m["o"])
    out = []
    for d in items("eats", raw, "thing", 0.8, listable=True):
        if d.object.lower() in _NOT_FOOD:
            continue
        out.append(Draft("eats", d.object, 0.8, negated=True))
    return out


# What "eat" takes that is no food: "I don't eat out", "I eat lunch now".
_NOT_FOOD = frozenset({"much", "out", "well", "enough", "breakfast", "lunch", "dinner"})
_AGAIN = re.compile(r"(?P<o>[a-z][a-z ]{1,30}?)\s+again\b")
_FOODS = (
    r"sugar|meat|red meat|dairy|gluten|alcohol|booze|caffeine|coffee|carbs|bread|chocolate|sweets|crisps|"
    r"fizzy drinks|soda|beer|wine|pork|beef|fish|eggs|cheese|milk|junk food|takeaways|fast food|"
    r"processed food"
)


def _cut_out(m: re.Match[str], ctx: Context) -> list[Draft]:
    """'I've cut out sugar', 'gave up booze in January': a food or drink no longer had."""
    if ctx.aspect.negated or ctx.aspect.modal or ctx.aspect.future or ctx.aspect.intent:
        return []
    value = "alcohol" if m["o"].lower() == "booze" else m["o"].lower()
    drink = value in ("alcohol", "caffeine", "coffee", "fizzy drinks", "soda", "beer", "wine", "milk")
    said = f"{subject_text(ctx)} does not {'drink' if drink else 'eat'} {value}"
    return [Draft("eats", value, 0.75, negated=True, timing="start", text=said)]


def _eats_again(m: re.Match[str], ctx: Context) -> list[Draft]:
    """'I started eating fish again' is a habit begun; 'I stopped eating meat' a negative one."""
    if ctx.aspect.negated or ctx.aspect.modal:
        return []
    stopped = m["v"].lower().startswith(("stop", "quit", "gave"))
    raw = re.sub(r"\s+again\b.*$", "", m["o"])
    return [
        Draft("eats", d.object, 0.75, negated=stopped, timing="start")
        for d in items("eats", raw, "thing", 0.75, listable=True)
        if d.object.lower()
        not in ("much", "out", "well", "enough", "breakfast", "lunch", "dinner", "healthy")
    ]


def _allergy(m: re.Match[str], ctx: Context) -> list[Draft]:
    return items("allergy", m["o"], "thing", 0.9, listable=True)


def _intolerant(m: re.Match[str], ctx: Context) -> list[Draft]:
    value = m["o"].lower()
    return [Draft("allergy", value, 0.85, text=f"{subject_text(ctx)} is {value} intolerant")]


# Pastimes the lexicon knows, hyphenated ("little-league"): a bare noun counts as a hobby only if listed.
_PASTIMES = ACTIVITIES | GO_ACTIVITIES | SPORTS_AND_GAMES

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
    # food
    rule(
        "diet",
        rf"(?P<v>am|is|are|was|were|been|be|went|gone|go|going|became|become|becoming|turned|stayed|doing|do|does)\s+"
        rf"(?:a\s+|an\s+|fully\s+|strictly\s+|mostly\s+|mainly\s+|completely\s+|100%\s+|"
        rf"full\s+)?(?P<o>{_DIET})\b",
        _diet,
        flags=re.I,
    ),
    rule(
        "diet.on", rf"{BE}\s+on\s+(?:a|the)\s+(?:strict\s+)?(?P<o>[a-z0-9-]+(?:\s+[a-z-]+)?)\s+diet\b", _diet
    ),
    rule(
        "diet.follow",
        r"(?P<v>follow|follows|followed|eat|eats|keep|keeps)\s+(?:a|an|the)\s+(?:strict\s+)?"
        r"(?P<o>[a-z0-9-]+(?:\s+[a-z-]+)?)\s+diet\b",
        _diet,
    ),
    rule(
        "diet.stopped",
        rf"(?P<v>stopped|stop|quit|gave up)\s+being\s+(?:a\s+|an\s+)?(?P<o>{_DIET})\b",
        lambda m, c: [] if c.aspect.negated else [
            Draft("diet", m["o"].lower(), 0.8, kind="none", timing="end", ended=True)
        ],
        flags=re.I,
    ),
    rule(
        "likes.switched_to",  # "I quit coffee and switched to rooibos": the new drink is a preference
        rf"(?P<v>switched|swapped|changed|moved)\s+(?:over\s+)?to\s+(?P<o>(?:[a-z-]+\s+)?(?:{_DRINKS}))\b",
        lambda m, c: []
        if c.aspect.negated or c.aspect.modal
        else [Draft("likes", m["o"], 0.6, timing="start")],
    ),
    rule(
        "eats.cut_out",
        rf"(?P<v>cut out|cutting out|given up|gave up|giving up|quit|quitting|kicked|ditched)\s+(?:the\s+)?"
        rf"(?P<o>{_FOODS})\b",
        _cut_out,
    ),
    rule(
        "eats.but_not",  # "I eat fish but not meat"
        r"(?P<v>eat|eats)\s+(?P<yes>[a-z][a-z ]{1,30}?),?\s+(?:but|just|only)\s+(?:not|never)\s+"
        r"(?P<o>[a-z][a-z ]{1,30})$",
        lambda m, c: [] if c.aspect.negated or c.past else [
            Draft("eats", m["yes"].strip(), 0.7),
            Draft("eats", m["o"].strip(), 0.75, negated=True),
        ],
    ),
    rule(
        "eats.drink",  # "I don't drink (anymore)": alcohol, by the idiom
        r"(?P<v>drink|drinks)\s*(?:$|,|\s+(?:at all|much|these days|alcohol|booze)\s*$)",
        lambda m, c: [Draft("eats", "alcohol", 0.75, negated=True)]
        if (c.aspect.negated or c.aspect.ended) and "much" not in m[0]
        else [],
    ),
    rule("eats", r"(?P<v>eat|eats|drink|drinks|touch|touches)\s+(?P<o>.+)", _eats),
    rule(
        "eats.started",
        r"(?P<v>started|start|starting|began|begun|stopped|stop|stopping|quit|gave up)\s+"
        r"(?:eating|drinking)\s+"
        r"(?P<o>.+)",
        _eats_again,
    ),
    rule(
        "allergy",
        rf"(?:{BE}\s+)?(?:severely\s+|very\s+|mildly\s+|deathly\s+|highly\s+|super\s+|really\s+|extremely\s+|"
        r"slightly\s+)?allergic\s+to\s+(?P<o>.+)",  # no verb: "allergic to penicillin, it turns out"
        _allergy,
    ),
    rule(
        "allergy.have",
        r"(?:have|has|got)\s+(?:a|an)?\s*(?:severe\s+|mild\s+|bad\s+|serious\s+)?(?P<o>[a-z-]+(?:\s+[a-z-]+)?)"
        r"\s+(?:allergy|allergies|intolerance)\b",
        _allergy,
    ),
    rule(
        "allergy.to",
        r"(?:have|has|got)\s+(?:an?\s+)?(?:allergy|allergies|intolerance|sensitivity)\s+to\s+(?P<o>.+)",
        _allergy,
    ),
    rule(
        "allergy.intolerant",
        rf"{BE}\s+(?P<o>lactose|gluten|fructose|dairy|wheat|histamine)[- ]intolerant",
        _intolerant,
    ),
    rule(
        "allergy.celiac",
        rf"(?:{BE}|have|has)\s+(?:a\s+)?(?:celiac|coeliac)\b",
        lambda m, c: [Draft("allergy", "gluten", 0.8, text=f"{c.subject.name} has celiac disease")],
    ),
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
