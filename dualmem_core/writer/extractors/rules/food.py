"""Rules for diet, eating and drinking habits, and allergies.

Separate from ``tastes`` because what someone eats, avoids or cannot tolerate has its own vocabulary
(diets, foods, drinks) and its own builders; ``tastes.RULES`` splices this slice of the table in
its place.
"""

from __future__ import annotations

import re

from .base import Context, Draft, Rule, items, rule
from .common import BE, subject_text
from .lexicon import DIETS, job_head

_DRINKS = (
    r"tea|rooibos|decaf|coffee|oat milk|soy milk|almond milk|green tea|herbal tea|matcha|kombucha|"
    r"sparkling water|water|chai|espresso|hot chocolate|juice"
)
_DIET = "|".join(re.escape(d) for d in sorted(DIETS, key=len, reverse=True))

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


RULES: tuple[Rule, ...] = (
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
)
