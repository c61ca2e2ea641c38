"""Rules for work and study: employers, job titles, schools, fields and degrees.

The table and its simpler builders; reading a job title or an employer out of a phrase, and the
builders that need that reading most ("am a ...", "been at X", "promoted to ..."), are in ``jobs``.
"""

from __future__ import annotations

import re

from .base import Context, Draft, Rule, items, rule
from .common import BE, simple, subject_text
from .jobs import _be_with, _copula_a, _promoted, job_drafts, org_drafts
from .lexicon import is_place, is_school, job_head
from .objects import clean

_V_WORK = r"(?P<v>work|works|worked|working)"
_WORK_HOW = (
    r"(?:(?:full[- ]time|part[- ]time|remotely|nights|days|weekends|evenings|shifts|the night shift|"
    r"from home|"
    r"there|here|now)\s+)*"
)

_TITLES = (
    r"(?:[A-Za-z-]+\s+){0,3}?(?:CEO|CTO|CFO|COO|VP|head|director|manager|founder|co-founder|cofounder|owner|"
    r"president|chair|lead|principal|dean|editor|captain|coach|partner)"
)


def _work_as(m: re.Match[str], ctx: Context) -> list[Draft]:
    return job_drafts(m["o"], 0.85, ctx)


def _work_at(m: re.Match[str], ctx: Context) -> list[Draft]:
    if re.match(r"(?:myself|my own)\b", m["o"]):
        out = [Draft("job_title", "self-employed", 0.8, kind="none")]
        if after := _AS_TITLE.search(m["o"]):  # "I work for myself as a photographer"
            out += job_drafts(after["t"], 0.8, ctx)
        return out
    out = org_drafts(m["o"], 0.85)
    if out and (after := _AS_TITLE.search(m["o"])):  # "I work at Acme as a nurse"
        out += job_drafts(after["t"], 0.8, ctx)
    return out


def _work_in(m: re.Match[str], ctx: Context) -> list[Draft]:
    if re.match(r"(?:a|an)\s", m["o"]):  # "I work in a bakery": a workplace, as "at a bakery" is
        return org_drafts(m["o"], 0.6)
    value = clean(m["o"], "organization")
    if not value or is_place(value):
        return []
    if value[:1].isupper():
        return org_drafts(value, 0.6)
    if len(value.split()) <= 3:
        return [Draft("job_title", value, 0.5, kind="none", text=f"{subject_text(ctx)} works in {value}")]
    return []


def _job_at(m: re.Match[str], ctx: Context) -> list[Draft]:
    timing = "state" if m["v"] in ("have", "has") else "start"
    out = org_drafts(m["o"], 0.85, timing)
    title = m["title"]
    if not title and (after := _AS_TITLE.search(m["o"])):  # "a job at WHOI as a research technician"
        title = after["t"]
    if not title and (after := _COMMA_TITLE.search(m["o"])) and job_head(after["t"]):
        title = after["t"]  # "a job at Aerojet in Rancho Cordova, lab safety coordinator"
    if title:
        out += job_drafts(title, 0.8, ctx, timing)
    return out


_COMMA_TITLE = re.compile(r",\s*(?:as\s+)?(?:a\s+|an\s+)?(?P<t>[a-z][a-z -]{2,40}?)\s*(?:$|[,.])")
_AS_TITLE = re.compile(r"\s+as\s+(?:a|an|the|their|our)\s+(?P<t>[a-z][\w -]+)")


def _join(m: re.Match[str], ctx: Context) -> list[Draft]:
    value = clean(m["o"], "organization")
    if not value or not value[:1].isupper() or is_place(value):
        return []
    out = org_drafts(value, 0.7, "start")
    if out and (after := _AS_TITLE.search(m["o"])):  # "joined Atlassian as a senior engineer"
        out += job_drafts(after["t"], 0.75, ctx, "start")
    return out


def _leave(m: re.Match[str], ctx: Context) -> list[Draft]:
    raw = m["o"]
    job = re.match(r"(?:my|his|her|their)\s+(?:job|position|role|post)\s+(?:at|with)\s+(?P<o>.+)", raw)
    if job:
        return [
            Draft("works_at", d.object, 0.85, timing="end", ended=True) for d in org_drafts(job["o"], 0.85)
        ]
    value = clean(raw, "organization")
    if not value or not value[:1].isupper():
        return []
    if is_place(value):
        if m["v"] in ("left", "leave", "leaving"):
            return [Draft("lives_in", value, 0.6, timing="end", ended=True)]
        return []
    return [Draft("works_at", d.object, 0.75, timing="end", ended=True) for d in org_drafts(value, 0.75)]


def _fired(m: re.Match[str], ctx: Context) -> list[Draft]:
    return [Draft("works_at", d.object, 0.85, timing="end", ended=True) for d in org_drafts(m["o"], 0.85)]


def _teach(m: re.Match[str], ctx: Context) -> list[Draft]:
    out = org_drafts(m["o"], 0.75) if m["o"][:1].isupper() or m["o"].startswith("the ") else []
    if m["v"].startswith("lectur") and out:  # "I lecture at UCC"
        said = f"{subject_text(ctx)} is a lecturer"
        return [*out, Draft("job_title", "lecturer", 0.7, kind="none", text=said)]
    if out or re.match(r"(?:a|an|the)\s+(?:[a-z]+\s+){0,2}(?:school|college|university|academy)\b", m["o"]):
        out.append(Draft("job_title", "teacher", 0.7, kind="none", text=f"{subject_text(ctx)} is a teacher"))
    return out


def _title_of(m: re.Match[str], ctx: Context) -> list[Draft]:
    return job_drafts(f"{m['title']} at {m['o']}", 0.85, ctx)


_DEPARTMENTS = (
    r"sales|marketing|finance|HR|hr|IT|tech|ops|operations|accounts|admin|recruitment|engineering|product|"
    r"design|research|retail|hospitality|logistics|customer service|support|management|construction|"
    r"insurance|banking|"
    r"compliance|procurement|comms|communications|legal|R&D|QA|data|analytics|software|publishing|"
    r"the (?:kitchen|warehouse|office|lab|labs)"
)


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
            text=f"{subject_text(ctx)} graduated from {value}",
        )
    ]


def _degree(m: re.Match[str], ctx: Context) -> list[Draft]:
    out: list[Draft] = []
    if m["field"]:
        value = clean(m["field"], "thing")
        if value and value[:1].isupper() and (is_place(value.split(",")[0]) or is_school(value)):
            # "a masters in Glasgow": where, not what
            return out + (items("studies_at", value, "organization", 0.75) if is_school(value) else [])
        if value:
            out.append(Draft("studies", value, 0.8, kind="none"))
    if m["o"]:
        out += items("studies_at", m["o"], "organization", 0.8)
    return out


RULES: tuple[Rule, ...] = (
    # work
    rule(
        "job.work_as",
        rf"{_V_WORK}\s+{_WORK_HOW}as\s+(?:a\s+|an\s+|the\s+)?(?P<o>.+)",
        _work_as,
    ),
    rule(
        "works_at",
        rf"{_V_WORK}\s+{_WORK_HOW}(?:in\s+(?![A-Z][a-z])(?:[A-Za-z&-]+\s+){{1,2}}?)?(?:at|for)\s+(?P<o>.+)",
        _work_at,
    ),
    rule("works_at.in", rf"{_V_WORK}\s+in\s+(?P<o>.+)", _work_in),
    rule(
        "works_at.employed",
        rf"{BE}\s+(?:employed|hired)\s+(?:at|by|with)\s+(?P<o>.+)",
        simple("works_at", "organization", 0.85),
    ),
    rule(
        "works_at.hired",
        r"(?P<v>got|get|was|were|been)\s+(?:hired|recruited|headhunted|promoted)\s+(?:at|by|with)\s+"
        r"(?P<o>.+)",
        lambda m, c: org_drafts(m["o"], 0.8, "start"),
    ),
    rule(
        "job.promoted",  # "I got promoted to senior engineer", "I've been made engineering manager"
        r"(?P<v>got|get|was|were|been|am|is)\s+(?:promoted\s+to|made(?:\s+up)?(?:\s+to)?|appointed(?:\s+as)?)\s+"
        r"(?:a\s+|an\s+|the\s+)?(?P<o>.+)",
        lambda m, c: _promoted(m, c),
    ),
    rule(
        "job.role_as",  # "I started a new role as head of product"
        r"(?P<v>started|start|starting|got|landed|took|accepted|began)\s+(?:a|the|my|this)\s+(?:new\s+)?"
        r"(?:job|role|position|post)\s+as\s+(?:a\s+|an\s+|the\s+)?(?P<o>[a-z][\w -]+?)"
        r"(?:\s+(?:at|with|for)\s+(?P<org>.+))?$",
        lambda m, c: job_drafts(m["o"] + (f" at {m['org']}" if m["org"] else ""), 0.8, c, "start"),
    ),
    rule(
        "works_at.job",
        r"(?P<v>got|get|getting|landed|land|accepted|accept|took|take|started|start|starting|found|have|has|doing|"
        r"began|begin|secured|scored)\s+(?:a|an|the|my|this|that)\s+(?:(?:new|dream|first|full-time|"
        r"part-time|summer|great|good|big)\s+)*(?:job|position|role|internship|gig|post|contract|placement|"
        r"apprenticeship|traineeship)"
        r"(?:\s+as\s+(?:a\s+|an\s+)?(?P<title>.+?))?\s+(?:at|with|for|in)\s+(?P<o>.+)",
        _job_at,
    ),
    rule(
        "works_at.start",
        r"(?P<v>started|start|starting|began|begin|beginning|starts)\s+(?:working\s+|work\s+|"
        r"(?:a|my)\s+new\s+job\s+|a\s+job\s+|an\s+internship\s+)?(?:at|for|with)\s+(?P<o>.+)",
        lambda m, c: org_drafts(m["o"], 0.8, "start"),
    ),
    rule("works_at.join", r"(?P<v>joined|join|joining|joins)\s+(?P<o>(?:the\s+)?[A-Z].+)", _join),
    rule(
        "works_at.left",
        r"(?P<v>quit|left|leave|leaving|quitting|resigned|resign|resigning|retired|retire|retiring)\s+"
        r"(?:from\s+)?(?P<o>.+)",
        _leave,
    ),
    rule(
        "works_at.fired",
        rf"(?:{BE}|got|get)\s+(?:fired|laid off|let go|sacked|made redundant)\s+(?:from|by|at)\s+(?P<o>.+)",
        _fired,
    ),
    rule(
        "works_at.drive_for",  # "I drive for Uber", "I deliver for Deliveroo"
        r"(?P<v>drive|drives|deliver|delivers|ride|rides|cycle|cycles)\s+for\s+(?P<o>[A-Z].+)",
        lambda m, c: []
        if c.aspect.negated or c.past
        else org_drafts(m["o"], 0.75)
        + [Draft("job_title", "driver" if m["v"].startswith("dri") else "courier", 0.65, kind="none")],
    ),
    rule(
        "works_at.intern",
        r"(?P<v>intern|interns|interned|interning)\s+(?:at|for|with)\s+(?P<o>.+)",
        lambda m, c: org_drafts(m["o"], 0.8) + [Draft("job_title", "intern", 0.75, kind="none")],
    ),
    rule(
        "works_at.teach",
        r"(?P<v>teach|teaches|taught|teaching|lecture|lectures|lectured|lecturing)\s+(?:(?!(?:at|in)\b)[a-zA-Z]+\s+){0,3}?(?:at|in)\s+(?P<o>.+)",
        _teach,
    ),
    rule(
        "job.title_of",
        rf"{BE}\s+(?:the\s+|a\s+|an\s+)?(?P<title>{_TITLES})\s+(?:of|at|for)\s+(?P<o>[A-Z].+)",
        _title_of,
    ),
    rule(
        "job.head_of",  # "I'm head of marketing at Greggs"
        rf"{BE}\s+(?:the\s+)?(?P<title>(?:head|director|vp|VP|manager|lead)\s+of\s+[A-Za-z][A-Za-z &]+?)\s+"
        r"(?:at|for|with)\s+(?P<o>(?:the\s+)?[A-Z].+)",
        _title_of,
    ),
    rule(
        "job.copula",
        r"(?P<v>am|is|are|was|were|been|be|become|became|becoming)\s+(?:a|an)\s+(?P<o>.+)",
        _copula_a,
    ),
    rule(
        "job.both",  # "we're both teachers"
        rf"{BE}\s+(?:both\s+|all\s+)?(?P<o>[a-z]+s)\s*$",
        lambda m, c: [Draft("job_title", m["o"][:-1], 0.7, kind="none")] if job_head(m["o"][:-1]) else [],
    ),
    rule(
        "job.freelancing",  # "I'm freelancing now": the progressive peeled the copula off
        r"(?P<o>freelancing|contracting|job hunting|job-hunting|job searching)\b(?!\s+(?:for|at|with)\b)",
        lambda m, c: []
        if c.aspect.negated or c.past or not c.aspect.progressive
        else [Draft("job_title", "freelancing" if m["o"] == "freelancing" else m["o"], 0.7, kind="none")],
    ),
    rule(
        "job.state",
        rf"{BE}\s+(?P<o>retired|unemployed|self-employed|between jobs|out of work|freelancing|"
        r"a stay-at-home (?:mom|dad|parent)|on (?:maternity|paternity|parental) leave)\b"
        r"(?:\s+(?:from|at)\s+(?P<org>(?:the\s+)?[A-Z].+))?",
        lambda m, c: [Draft("job_title", re.sub(r"^a\s+", "", m["o"]), 0.8, kind="none")]
        + (org_drafts(m["org"], 0.75) if m["org"] and "leave" in m["o"] else []),  # on leave from Deloitte
    ),
    rule(
        "works_at.contracting",  # "I'm contracting for Shell", "freelancing for the BBC"
        r"(?P<o>contracting|freelancing|consulting)\s+(?:for|at|with)\s+(?P<org>(?:the\s+)?[A-Z].+)",
        lambda m, c: []
        if c.aspect.negated or c.past or not c.aspect.progressive
        else org_drafts(m["org"], 0.75),
    ),
    rule(
        "job.teach",  # "I teach year 6", "I teach English to adults"
        r"(?P<v>teach|teaches)"
        r"(?:\s+(?!(?:my|our|his|her|their|him|them|me|myself|people|kids how|you)\b)\S.*)?$",
        lambda m, c: []
        if c.aspect.negated or c.past or c.aspect.past or c.aspect.progressive or c.aspect.modal
        else [Draft("job_title", "teacher", 0.65, kind="none", text=f"{subject_text(c)} is a teacher")],
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
        rf"{BE}\s+(?:a\s+|an\s+)?(?:[a-z-]+\s+){{0,2}}?(?:student|freshman|sophomore|junior|senior|"
        r"grad student|graduate student|phd student|phd candidate|undergrad|undergraduate|postgrad|alum|"
        r"alumnus|alumna)\s+(?:at|of|in)\s+(?P<o>.+)",
        simple("studies_at", "organization", 0.85),
    ),
    rule(
        "studies_at.year",
        rf"{BE}\s+in\s+(?:my|his|her|their)\s+(?:first|second|third|fourth|final|last|1st|2nd|3rd|4th)\s+year\s+"
        r"(?:at|of)\s+(?P<o>[A-Z].+)",
        simple("studies_at", "organization", 0.8),
    ),
    rule(
        "works_at.department",  # "I'm in sales at Dell": a department names the job, the rest the employer
        rf"{BE}\s+in\s+(?:{_DEPARTMENTS})\s+(?:at|for|with)\s+(?P<o>(?:the\s+)?[A-Z].+)",
        lambda m, c: [] if c.aspect.negated else org_drafts(m["o"], 0.75),
    ),
    rule(
        "works_at.be_with",
        r"(?P<v>am|is|are|was|were|been)\s+(?P<p>at|with)\s+(?P<o>(?:the\s+)?[A-Z].+)",
        lambda m, c: _be_with(m, c),
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
        "works_at.own_company",  # "I started my own company, Rollins Remodeling", "our own bakery, Crumbs"
        r"(?P<v>started|start|starting|founded|found|set up|setting up|launched|launching|opened|opening|run|"
        r"runs|running|own|owns|have|has)\s+(?:my|our|his|her|their)\s+own\s+(?:[a-z]+\s+)?(?:company|business|"
        r"firm|practice|agency|studio|shop|consultancy|restaurant|café|cafe|bakery|clinic|salon|startup)"
        r"(?:\s*,\s*|\s+called\s+|\s+named\s+)(?P<o>[A-Z][\w&'.-]*(?:\s+[A-Z][\w&'.-]*){0,3})",
        lambda m, c: org_drafts(m["o"], 0.75, "start" if m["v"].startswith(("start", "found", "set", "launch",
                                                                             "open")) else "state"),
    ),
    rule(
        "studies.degree",
        r"(?P<v>doing|getting|pursuing|working on|finishing|completing|do|did|got|earned|completed|finished|"
        r"have|has|hold|holds|started|starting)\s+(?:a|an|my|his|her|their)\s+(?:(?:phd|ph\.d\.?|doctorate|"
        r"master's|masters|master|bachelor's|bachelors|bachelor|degree|mba|md|jd|ba|bs|bsc|ma|ms|msc|diploma|"
        r"certificate)\s*)+(?:degree\s+)?(?:(?:in|on)\s+(?P<field>.+?))?(?:\s*(?:at|from)\s+(?P<o>.+))?$",
        _degree,
        flags=re.I,
    ),
    # pets
    rule(
        "works_at.offer",
        r"(?P<v>accepted|accept|accepting|took|signed)\s+(?:a|an|the|their|his|her|my)\s+(?:job\s+)?"
        r"offer\s+(?:from|at|with)\s+(?P<o>.+)",
        lambda m, c: org_drafts(m["o"], 0.7, "start"),
    ),
)
