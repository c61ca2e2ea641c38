"""Reading a job title and an employer out of a phrase.

``job_drafts`` and ``org_drafts`` turn "pharmacist at Walgreens" or "a small agency called
Brightline" into drafts, for the work rules and for ``home`` ("moved here for a job at ...").
The builders that need more than a pattern to tell a job from something else live here too: the
complement of "am a ..." (a job, or a fan, a snob, a major, a home), "been at X" (an employer
only with a duration or in talk about work) and "promoted to ...". Separate from ``work``,
which holds the table of work and study rules and their simpler builders.
"""

from __future__ import annotations

import re

from ....vocab.relation_words import RELATIONS
from .base import Context, Draft, items
from .common import article, subject_text
from .lexicon import HOBBY_AGENTS, is_place, job_head
from .objects import clean, cut, strip_leading, tidy


def job_drafts(phrase: str, confidence: float, ctx: Context, timing: str = "state") -> list[Draft]:
    """'pharmacist at Walgreens' -> job_title pharmacist + works_at Walgreens."""
    # "electrician, self-employed": what follows the comma is another complement
    phrase = re.split(r"\s*,\s*", phrase, maxsplit=1)[0]
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
            text=f"{subject_text(ctx)} is {article(title)}",
        )
    ]
    if org:
        out += org_drafts(org, confidence, timing)
    return out


_CALLED = re.compile(
    r"^(?:(?:a|an|the|this|my|our)\s+)?(?:[a-z-]+\s+){0,4}?[a-z-]+(?:\s+(?:here|there|nearby))?"
    r"(?:\s+(?:in|near|outside|downtown)\s+[A-Z][\w.'-]*(?:\s+[A-Z][\w.'-]*)*)?,?\s+(?:called|named)\s+"
    r"(?P<name>[A-Z].*)"
)


def org_drafts(raw: str, confidence: float, timing: str = "state") -> list[Draft]:
    if named := _CALLED.match(raw):  # "a small agency here in Denver called Brightline"
        raw = named["name"]
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


_LIKE_NOUNS = {"dog": "dogs", "cat": "cats"}


_JUDGED = re.compile(r"(?:terrible|awful|horrible|lousy|hopeless|useless|rubbish|crap|bad|worst)\s", re.I)


def _copula_a(m: re.Match[str], ctx: Context) -> list[Draft]:
    """'am a nurse (at X)', 'am an avid runner', 'am a student at X', 'am a cat person'."""
    phrase = m["o"].replace("stay at home", "stay-at-home")
    lowered = phrase.lower()
    if team := _TEAM_FAN.match(phrase):  # "a Habs fan", "a Leinster supporter"
        return [Draft("likes", team["x"], 0.75, kind="thing")]
    if re.match(
        r"(?:[a-z]+\s+)?(?:fan|native|vegetarian|vegan|pescatarian|student|junior|senior|sophomore|freshman)\b",
        lowered,
    ) and not _job_noun(lowered):  # "a junior doctor", "a vegan chef" are jobs
        if re.match(r"(?:[a-z]+\s+)?student\b", lowered) and not re.search(r"\s(?:at|in|of)\s", lowered):
            out = [Draft("job_title", "student", 0.7, kind="none")]
            # "a student studying law"
            if field := re.search(r"\bstudying\s+(?P<f>[a-z][a-z ]{1,40})$", lowered):
                out.append(Draft("studies", cut(field["f"]), 0.75, kind="none"))
            return out
        return []  # handled by the likes, diet and studies rules
    pet = re.match(r"(?:huge\s+|big\s+|total\s+)?(?P<a>dog|cat)\s+(?:person|lover|fan)", lowered)
    if pet:
        return [Draft("likes", _LIKE_NOUNS[pet["a"]], 0.75, kind="thing")]
    person = re.match(
        r"(?:huge\s+|big\s+|total\s+)?(?P<x>[A-Z][\w'&.-]*(?:\s+[A-Z][\w'&.-]*){0,3})\s+person\b", phrase
    )
    if person:  # "a Coldplay person"
        return [Draft("likes", person["x"], 0.7, kind="thing")]
    fan = re.match(
        r"(?:huge|big|massive|die-hard|lifelong|total|great)\s+(?P<x>.+?)\s+(?:fan|lover|nerd|geek|buff)$",
        phrase,
    )
    if fan:  # "a huge Arsenal fan"
        return [Draft("likes", fan["x"], 0.75, kind="thing")]
    snob = _SNOB.search(lowered)
    if snob and snob["x"] not in ("total", "big", "huge", "real", "complete", "self-confessed", "bit"):
        return [Draft("likes", snob["x"], 0.7, kind="thing")]  # "a coffee snob", "a film buff"
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
    home = _LIVING_IN.search(phrase)  # "a Kiwi living in London"
    if home:
        return items("lives_in", home["o"], "place", 0.75, accept=lambda p: p[:1].isupper())
    where = _WHERE_ELSE.search(phrase)  # "a vet tech down in San Diego": where they are, not the job
    if where:
        phrase = phrase[: where.start()] + phrase[where.end() :]
    title = re.split(r"\s*,\s*|\s+(?:at|for|with|in|on|from|who|that|and|but)\s+", phrase, maxsplit=1)[0]
    phrase = re.sub(r"\s+(?:there|here|now)$", "", phrase)  # "she's a nurse there"
    title = re.sub(r"\s+(?:there|here|now)$", "", title)
    vocative = _VOCATIVE.search(title)  # "a plumber mate": "mate" is said to the listener
    if vocative:
        title = phrase = title[: vocative.start()]
    if re.search(r"\bstudents?$", cut(title)):  # "a third-year medical student at Queen's": not an employer
        if re.search(r"\s(?:at|in|of)\s", phrase):
            return []  # the studies_at rule names the school
        return [Draft("job_title", "student", 0.7, kind="none")]
    if _JUDGED.match(title):  # "a terrible singer", "a hopeless cook": a judgement, not a job
        return []
    if job_head(cut(title)) or (_AT_ORG.search(phrase) and _agent_noun(cut(title))):
        became = m["v"] in ("become", "became", "becoming")
        out = job_drafts(phrase, 0.8, ctx, "start" if became else "state")
        if where and out:
            out += items("lives_in", where["o"], "place", 0.6, accept=lambda p: p[:1].isupper())
        origin = _FROM_PLACE.search(phrase)  # "a plasterer from Essex"
        if origin and out:
            out += items("from", origin["o"], "place", 0.75, timing="none", accept=lambda p: p[:1].isupper())
        return out
    return []


# "a coffee snob", "a bit of a film buff": what someone is fond of
_SNOB = re.compile(
    r"(?:^|\s)(?P<x>[a-z]+)\s+(?:snob|nerd|geek|addict|fiend|junkie|fanatic|enthusiast|buff|lover)$"
)
_TEAM_FAN = re.compile(
    r"(?P<x>[A-Z][\w.'&-]*(?:\s+[A-Z][\w.'&-]*){0,2})\s+(?:fan|supporter)"
    r"(?:$|\s+(?:through and through|for life|since)\b)"
)
_LIVING_IN = re.compile(r"^[A-Za-z-]+\s+(?:living|based|settled)\s+in\s+(?P<o>[A-Z].*)")
_VOCATIVE = re.compile(r"\s+(?:mate|bro|dude|man|lol|haha|tbh|innit|eh)$", re.I)
_FROM_PLACE = re.compile(r"\s+from\s+(?P<o>[A-Z][\w.'-]*(?:\s+[A-Z][\w.'-]*)*)")
_WHERE_ELSE = re.compile(
    r",?\s+(?:down|up|out|over|back home)\s+in\s+"
    r"(?P<o>[A-Z][\w.'-]*(?:\s+[A-Z][\w.'-]*)*(?:,\s*[A-Z]\w+)?)"
)


# "a site superintendent for Gulf Coast Builders": before a named employer, a noun that names a doer
# is a job title even when the lexicon does not list it (which no closed list of jobs can).
_AT_ORG = re.compile(r"\s(?:at|for|with)\s+(?:the\s+)?[A-Z]")
_AGENT_SUFFIX = re.compile(r"(?:ist|er|or|ian|ant|ent|eer|ier|man|woman|ess|ee|tech|lead|head)$")
_NOT_AGENTS = frozenset(
    """mother father brother sister daughter member fan lover supporter customer user client patient
    partner owner volunteer regular beginner winner loser believer follower subscriber player""".split()
)


def _agent_noun(title: str) -> bool:
    words = title.lower().split()
    return (0 < len(words) <= 4 and all(re.fullmatch(r"[a-z][a-z-]*", w) for w in words)
            and bool(_AGENT_SUFFIX.search(words[-1])) and words[-1] not in _NOT_AGENTS
            and words[-1] not in RELATIONS)


def _job_noun(lowered: str) -> bool:
    title = cut(re.split(r"\s+(?:at|for|with|in|from|of)\s+", lowered, maxsplit=1)[0])
    return job_head(title) and not re.search(r"\b(?:student|students)$", title)


_YEARS = re.compile(
    r"\b(?:\d+|a|one|two|three|four|five|six|seven|eight|nine|ten|a few|a couple of)\s+(?:years?|months?)\b"
)
_ORG_ENDS = re.compile(
    r"(?:the\s+)?[A-Z][\w&.'-]*(?:\s+[A-Z][\w&.'-]*){0,3}\s*(?:$|,|\s+(?:now|these days|nowadays|as\s+an?)\b)"
)


def _be_with(m: re.Match[str], ctx: Context) -> list[Draft]:
    """'I've been at Google for three years', 'I'm with Telstra' when the message is about work."""
    lasting = (ctx.aspect.perfect or m["v"] == "been") and (
        ctx.has_time("duration", "since") or bool(_YEARS.search(m["o"]))
    )  # "been at Shopify three years"
    lasting = lasting or (ctx.aspect.still and m["p"] == "at" and ctx.work_talk)  # "still at Bumble"
    if ctx.aspect.negated or (ctx.aspect.past and not (ctx.aspect.perfect or ctx.aspect.ended)):
        return []  # "I was at Google for the day"
    if not lasting:
        # Without a duration only a message about work, and an object that ends the clause, will do;
        # "with" also says who one is with, so it needs the job to have ended ("no longer with Vodafone").
        if not ctx.work_talk or not _ORG_ENDS.match(m["o"]) or (m["p"] == "with" and not ctx.aspect.ended):
            return []
    value = clean(m["o"], "organization")
    if not value or is_place(value) or not value[:1].isupper() or value in ctx.people:
        return []
    return org_drafts(value, 0.7)


def _promoted(m: re.Match[str], ctx: Context) -> list[Draft]:
    if ctx.aspect.negated or ctx.aspect.modal:
        return []
    said = re.split(r"\s+(?:at|for|with|in|on|from|after)\s+", m["o"], maxsplit=1)[0]
    title = strip_leading(tidy(cut(said)))
    if not title or len(title.split()) > 5 or not (job_head(title) or _SENIOR_TITLE.search(title)):
        return []
    text = f"{ctx.subject.name} is {article(title)}"
    return [Draft("job_title", title, 0.8, kind="none", timing="start", text=text)]


_SENIOR_TITLE = re.compile(
    r"\b(?:lead|head|director|partner|chief|principal|captain|chair|vp|senior|manager)\b", re.I
)
