"""Rules for identity (name, age), partners and family; pets have theirs in ``pets``."""

from __future__ import annotations

import re

from ....vocab.relation_words import is_plural_relation, relation_of
from .base import Builder, Context, Draft, Rule, rule
from .clauses import NAME
from .common import BE, NAMES, NUMBER, REL, count_text, names_in, subject_text
from .lexicon import is_demonym, job_head
from .objects import proper_run


def _intro(m: re.Match[str], ctx: Context) -> list[Draft]:
    name = m["o"]
    first = name.split()[0].lower()
    if not (ctx.is_speaker and ctx.intro) or job_head(name):
        return []
    if first in _NOT_INTRO or is_demonym(first) or first.endswith("-based"):
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
    if not ctx.aspect.future and any(t.valid_from and t.valid_from > ctx.now for t in ctx.times):
        return []  # "my mam is 80 next week": not yet
    return _turned(m, ctx)


def _turned(m: re.Match[str], ctx: Context) -> list[Draft]:
    if ctx.subject.kind == "relative" and is_plural_relation(ctx.subject.role):
        return []  # "my kids are 4 and 7": ages of several people, none of them "the kids"
    value = count_text(m["o"])
    if not value.isdigit() or not 0 < int(value) < 130:
        return []
    return [Draft("age", value, 0.9 if not m.groupdict().get("q") else 0.7, kind="none", timing="start")]


def _status(m: re.Match[str], ctx: Context) -> list[Draft]:
    value = re.sub(r"^a widow(?:er)?$", "widowed", m["o"].lower()).replace(
        "in a committed relationship", "in a relationship"
    )
    value = {
        "taken": "in a relationship",
        "dating someone": "in a relationship",
        "seeing someone": "in a relationship",
        "hitched": "married",
    }.get(value, value)
    # "we were married 44 years", "I was engaged to Tom": a couple the past tense says is over;
    # "I was married in June", "we were married on the 4th" date a wedding, still so
    over = (
        re.match(r"(?:was|were)\s", m[0]) is not None and not ctx.aspect.perfect
        and value in ("married", "engaged", "in a relationship", "dating")
        and not ctx.has_time("point", "since")
    )
    out = [Draft("relationship_status", value, 0.85, kind="none", timing="state" if over else "start",
                 ended=over)]
    name = m.groupdict().get("name") or ctx.subject.co_subject  # "Marcus and I are married"
    if name and (person := proper_run(name)):
        predicate = {
            "married": "spouse",
            "engaged": "partner",
            "divorced": "spouse",
            "dating": "partner",
        }.get(value)
        if predicate:
            out.append(
                Draft(
                    predicate,
                    person,
                    0.85,
                    timing="end" if value == "divorced" else "state" if over else "start",
                    ended=value == "divorced" or over,
                )
            )
    return out


def _status_dating(m: re.Match[str], ctx: Context) -> list[Draft]:
    """'we've been dating for three years', 'Marcus and I have been together since 2022'."""
    if not ctx.is_speaker or ctx.aspect.negated or (ctx.past and not ctx.aspect.perfect):
        return []
    if m["v"] == "together" and not (
        ctx.aspect.perfect or ctx.has_time("since", "duration") or re.search(r"\b(?:years?|months?)\b", m[0])
    ):
        return []  # "we're together" may mean in one place; "together since 2022" is a couple
    value = "dating" if m["v"].startswith("dat") else "in a relationship"
    out = [Draft("relationship_status", value, 0.7, kind="none")]
    if ctx.subject.co_subject and "'s " not in ctx.subject.co_subject:
        out.append(Draft("partner", ctx.subject.co_subject, 0.75))
    return out


def _been_with(m: re.Match[str], ctx: Context) -> list[Draft]:
    """'I've been with my girlfriend for 4 years': a lasting couple, not a meeting."""
    lasting = ctx.aspect.perfect or ctx.has_time("since", "duration")
    if not ctx.is_speaker or ctx.aspect.negated or not lasting:
        return []
    if ctx.past and not ctx.aspect.perfect:
        return []
    married = m["rel"] in ("wife", "husband", "missus")
    out = [Draft("relationship_status", "married" if married else "in a relationship", 0.7, kind="none")]
    if m["name"]:
        out.append(Draft("spouse" if married else "partner", m["name"], 0.8))
    return out


def _died(m: re.Match[str], ctx: Context) -> list[Draft]:
    """'My dog Luna passed away last year': the pet was the speaker's and is no more."""
    if ctx.aspect.negated or ctx.aspect.future or ctx.aspect.modal:
        return []
    spouse = ctx.subject.role in ("husband", "wife") and ctx.subject.name.startswith(f"{ctx.speaker}'s ")
    if ctx.subject.kind == "relative" and spouse:  # "my husband passed away in 2020"
        return [
            Draft("relationship_status", "widowed", 0.75, subject=ctx.speaker, kind="none", timing="start")
        ]
    if ctx.subject.kind != "pet":
        return []
    named = "'s " not in ctx.subject.name
    value = ctx.subject.name if named else ctx.subject.role
    kind = "pet" if named else "none"
    return [Draft("pet", value, 0.95, subject=ctx.speaker, timing="end", ended=True, kind=kind)]


def _person(predicate: str, confidence: float, timing: str = "state", ended: bool = False) -> Builder:
    def build(m: re.Match[str], ctx: Context) -> list[Draft]:
        people = names_in(m["o"])
        return [Draft(predicate, p, confidence, timing=timing, ended=ended) for p in people]

    return build


def _with_status(builder: Builder, status: str) -> Builder:
    """A partner named with the status it implies: "married Tasha" also says the speaker is
    married, as "got engaged to Marcus" says engaged (the status is what a profile shows)."""

    def build(m: re.Match[str], ctx: Context) -> list[Draft]:
        out = builder(m, ctx)
        if out and not ctx.aspect.negated and not (m["v"] == "dated" or ctx.aspect.ended):
            timing = "start" if m["v"] in ("married", "wed") else "state"
            out.append(Draft("relationship_status", status, 0.7, kind="none", timing=timing))
        return out

    return build


def _engaged_to(m: re.Match[str], ctx: Context) -> list[Draft]:
    people = names_in(m["o"])
    if not people:
        return [Draft("relationship_status", "engaged", 0.8, kind="none")]
    return [Draft("partner", people[0], 0.85), Draft("relationship_status", "engaged", 0.8, kind="none")]


def _breakup(m: re.Match[str], ctx: Context) -> list[Draft]:
    out = [Draft("relationship_status", "single", 0.6, kind="none", timing="start")]
    if said := (m["o"] or m["o2"]):
        out += [Draft("partner", p, 0.8, timing="end", ended=True) for p in names_in(said)]
    elif ctx.subject.co_kind == "person" and names_in(ctx.subject.co_subject or ""):
        # "Nadia and I broke up": the one named beside the speaker was the partner
        out += [Draft("partner", p, 0.75, timing="end", ended=True) for p in names_in(ctx.subject.co_subject)]
    return out


def _have_relation(m: re.Match[str], ctx: Context) -> list[Draft]:
    rel = m["rel"].lower()
    predicate = relation_of(rel)
    if predicate is None:
        return []
    if m["n"].lower() == "no":  # "I have no siblings"
        return _no_relatives(predicate, rel, ctx)
    timing = "start" if m["v"] in ("had", "got") and predicate == "child" else "none"
    people = names_in(m["names"])
    if people:
        return [
            Draft(predicate, p, 0.85, timing=timing, text=f"{p} is {subject_text(ctx)}'s {rel.rstrip('s')}")
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
            text=f"{subject_text(ctx)} has {m['n']} {rel}",
        )
    ]


def _no_relatives(predicate: str, rel: str, ctx: Context) -> list[Draft]:
    """'I don't have kids', 'I'm an only child': a negative fact, kept explicit."""
    if predicate not in ("child", "sibling"):
        return []
    value = "children" if predicate == "child" else "siblings"
    said = f"{subject_text(ctx)} has no {value if rel.endswith('s') or rel in ('children',) else rel + 's'}"
    return [Draft(predicate, value, 0.75, negated=True, kind="none", timing="none", text=said)]


def _none_had(m: re.Match[str], ctx: Context) -> list[Draft]:
    if not ctx.aspect.negated or ((ctx.past or ctx.aspect.past) and m["v"] != "got") or not ctx.is_speaker:
        return []
    rel = m["rel"].lower()
    return _no_relatives(relation_of(rel) or "", rel, ctx)


def _baby(m: re.Match[str], ctx: Context) -> list[Draft]:
    people = names_in(m["names"])
    if people:
        return [Draft("child", p, 0.85, timing="start") for p in people]
    return [
        Draft(
            "child",
            m["sex"].lower(),
            0.6,
            timing="start",
            kind="none",
            text=f"{subject_text(ctx)} had a baby"
            + ("" if m["sex"].lower() == "baby" else f" {m['sex'].lower()}"),
        )
    ]


RULES: tuple[Rule, ...] = (
    # identity
    # "I am Beatriz Carvalho, but please call me Bia": the name, then what to call the speaker
    rule("name.intro", rf"(?:am|is)\s+(?P<o>{NAME}(?:\s+{NAME})?)\s*(?:$|,?\s*(?:but|so|and)?\s*"
         r"(?:please\s+|just\s+|everyone\s+|everybody\s+)?calls?\s+me\b)", _intro),
    rule(
        "name.called",
        rf"(?:am|is|was)\s+(?:called|named)\s+(?P<o>{NAME}(?:\s+{NAME})?)",
        # "my son is called Tom": the mention rules already say Tom is the son
        lambda m, c: []
        if c.subject.kind in ("relative", "pet")
        else [Draft("name", m["o"], 0.9, kind="none", timing="none")],
    ),
    rule(
        "nickname.goes_by",
        rf"(?P<v>go|goes|went)\s+by\s+(?P<o>{NAME}(?:\s+{NAME})?)",
        lambda m, c: [Draft("nickname", m["o"], 0.9, kind="none", timing="none")],
    ),
    rule(
        "age",
        rf"(?:am|is|are)\s+(?P<q>almost\s+|nearly\s+|about\s+|over\s+)?(?P<o>{NUMBER})"
        r"(?:\s+(?:years?|yrs?)(?:\s+old)?|\s*y/?o)?\s*(?:$|(?=,|\s+(?:and|but|so|now|today)\b))",
        _age,
    ),
    rule(
        "age.turned",
        rf"(?P<v>turned|turn|turning|turns|be|hit|hits|hitting)\s+(?P<o>{NUMBER})\b(?:\s+(?:years?|yrs?)(?:\s+old)?)?"
        r"\s*(?:$|(?=,|!|\s+(?:and|but|so|on|in|at|this|last|next|today|tomorrow|yesterday)\b))",
        _turned,
        future_ok=True,
    ),
    rule(
        "age.year_old",
        rf"(?:am|is|are)\s+(?:a|an)\s+(?P<o>{NUMBER})[- ](?:years?|yrs?)[- ]old\b",
        _age,
    ),
    # partners and family
    rule(
        "status.been_with",
        r"(?P<v>been|was|were)\s+with\s+(?:my|our|her|his)\s+(?P<rel>girlfriend|boyfriend|partner|other half|"
        r"better half|wife|husband|missus|fiancee?|fiancée?)(?:\s*,?\s*(?P<name>[A-Z][a-z]+))?",
        lambda m, c: _been_with(m, c),
    ),
    rule(
        "spouse.married_to",
        r"(?P<v>am|is|are|was|were|been|got|get|getting)\s+(?:happily\s+)?married\s+to\s+(?P<o>.+)",
        _person("spouse", 0.9),
    ),
    rule(
        "spouse.married",
        rf"(?P<v>married|marry|marries|wed)\s+(?:(?:my|his|her)\s+(?:[a-z-]+\s+){{0,3}}?(?:sweetheart|love|partner|"
        rf"girlfriend|boyfriend|fianc[eé]e?|best friend)\s*,?\s*)?(?P<o>{NAME}(?:\s+{NAME})?)",
        _with_status(_person("spouse", 0.85, "start"), "married"),
    ),
    rule(
        "status.got",
        rf"(?P<v>got|get|getting|gotten)\s+(?P<o>married|engaged|divorced|separated|hitched)"
        rf"(?:\s+(?:to|from)\s+(?:(?:his|her|my|their)\s+(?:[a-z]+\s+)?)?(?P<name>{NAME}(?:\s+{NAME})?))?",
        _status,
    ),
    rule(
        "status",
        rf"{BE}\s+(?:happily\s+|recently\s+|newly\s+)?(?P<o>single|married|engaged|divorced|widowed|"
        rf"separated|"
        r"in a relationship|in a committed relationship|taken|a widow|a widower|dating someone|"
        r"seeing someone)\b(?!\s+to\b|\s+with\s+(?!(?:a|an|one|two|three|four|five|\d+|kids|children|little|"
        r"young|grown)\b))",
        _status,
    ),
    rule(
        "status.seeing",  # "I'm seeing someone (new)": the progressive peeled the copula off
        r"(?P<v>seeing|dating)\s+someone\b",
        lambda m, c: []
        if c.aspect.negated or c.past or not c.is_speaker
        else [Draft("relationship_status", "in a relationship", 0.7, kind="none", timing="start")],
    ),
    rule(
        "status.single_parent",  # "I'm a single mum"
        rf"{BE}\s+(?:a\s+)?single\s+(?:mum|mom|dad|parent|mother|father)\b",
        lambda m, c: [] if c.aspect.negated else [Draft("relationship_status", "single", 0.75, kind="none")],
    ),
    rule(
        "status.dating",
        rf"(?:{BE}\s+)?(?P<v>dating|dated|together)(?:\s+(?:for|since|on and off|"
        rf"(?:about|nearly|almost|over\s+)?(?:{NUMBER}|a|a few|a couple of)\s+(?:years?|months?))\b.*)?$",
        lambda m, c: _status_dating(m, c),
    ),
    rule("partner.engaged_to", rf"{BE}\s+engaged\s+to\s+(?P<o>.+)", _engaged_to),
    rule(
        "partner.dating",
        rf"(?P<v>dating|date|dates|dated)\s+(?P<o>{NAME}(?:\s+{NAME})?)",
        _with_status(_person("partner", 0.8), "dating"),
    ),
    rule(
        "partner.relationship",
        rf"{BE}\s+in\s+a\s+(?:serious\s+|committed\s+|long-distance\s+|happy\s+)?"
        r"relationship\s+with\s+(?P<o>.+)",
        _person("partner", 0.85),
    ),
    rule(
        "partner.breakup",
        r"(?P<v>broke|break|breaking|split|splitting)\s+up(?:\s+with\s+(?P<o>.+))?|"
        # "we split in 2019": split with no "up", before a time or a partner (not "split the bill")
        r"(?P<v2>split)(?=$|\s+(?:in|on|last|after|from|when|back|years|months|\d)\b)(?:\s+from\s+(?P<o2>.+))?",
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
        rf"(?:(?:older|younger|little|big|baby|twin|grown|adult|teenage|step|half)[\s-]+)*(?P<rel>{REL})\b"
        rf"(?:\s*[,:(]?\s*(?:(?:named|called)\s+)?(?P<names>{NAMES}))?",
        _have_relation,
    ),
    rule(
        "relations.none",  # "I don't have kids", "we haven't got any children"
        r"(?P<v>have|has|got)\s+(?:any\s+)?(?P<rel>kids|children|siblings|brothers or sisters)\s*"
        r"(?:$|,|\s+(?:yet|of my own)\b)",
        _none_had,
    ),
    rule(
        "relations.only_child",
        r"(?:am|is|was)\s+(?:an\s+)?only\s+child\b",
        lambda m, c: [] if c.aspect.negated else _no_relatives("sibling", "siblings", c),
    ),
    rule(
        "relations.baby",
        rf"(?P<v>had|welcomed)\s+(?:a|our|my|their)\s+(?:first\s+|second\s+|third\s+|new\s+)?"
        rf"(?:baby\s+)?(?P<sex>boy|girl|baby|son|daughter)(?:\s*,?\s*(?:an?\s+(?:baby\s+)?(?:boy|girl)\s+)?"
        rf"(?:(?:named|called)\s+)?(?P<names>{NAMES}))?",
        _baby,
    ),
    rule(
        "died",  # a pet that died is no longer had; a husband or wife who died leaves the speaker widowed
        r"(?P<v>passed away|died|passed|was put down|was put to sleep|got put down|"
        r"crossed the rainbow bridge)\b",
        _died,
    ),
)
