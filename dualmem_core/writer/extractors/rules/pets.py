"""Rules for pets: the pets someone has, had, got or adopted, named or not, and "he's a border
terrier" said of a named one.

Separate from ``people`` because pets have their own vocabulary (kinds, counts, lists of several
pets with their names) and their own contiguous slice of the table, which ``patterns`` places
right after the people rules.
"""

from __future__ import annotations

import re

from ....vocab.relation_words import PETS
from .base import Context, Draft, Rule, rule
from .clauses import NAME
from .common import BE, NAMES, PET, article, names_in, subject_text

_V_HAVE_PET = (
    r"(?P<v>have|has|had|got|get|adopted|adopt|rescued|bought|own|owns|owned|brought home|took in|fostered|"
    r"foster|fostering|adopting)"
)


_MORE_PETS = re.compile(
    rf"^\s*(?:,\s*(?:and\s+)?|\s+and\s+)(?P<n>a|an|one|two|three|four|five|\d+|another)\s+"
    rf"(?P<mods>(?:[a-z-]+\s+){{0,3}}?)(?P<pet>{PET})\b(?:\s*[,(]?\s*(?:named|called)\s+(?P<names>{NAMES}))?"
)


def _named_is_a_pet(m: re.Match[str], ctx: Context) -> list[Draft]:
    """"Bracken came with us, he's a border terrier": a named one (said by name or "he"/"she")
    who is a dog is the speaker's pet, as "Bracken is my dog" says (``noun_phrases._PET_IS``)."""
    name = ctx.subject.name
    if ctx.subject.kind != "person" or ctx.aspect.negated or "'s" in name or not re.match(NAME + "$", name):
        return []
    kind = " ".join([*m["mods"].split(), m["pet"]]).lower()
    return [Draft("pet", name, 0.7, subject=ctx.speaker, timing="none",
                  text=f"{ctx.speaker} has a {kind} named {name}")]


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
        return [Draft("pet", "pets", 0.7, negated=True, kind="none", text=f"{subject_text(ctx)} has no pets")]
    pet = m["pet"].lower()
    pet = pet[:-1] if pet.endswith("s") and pet[:-1] in PETS else pet
    kind = " ".join(w for w in [*(m["mods"] or "").split(), pet] if w).lower()
    verb = (verb or m["v"]).lower()
    timing = (
        "start"
        if verb in ("got", "get", "adopted", "adopt", "rescued", "bought", "brought home", "took in")
        else "state"
    )
    count = m["n"].lower()
    ended = verb in ("had", "owned") and not ctx.aspect.perfect  # "I've had my cat for years": still has it
    names = names_in(m["names"])
    if names:
        return [
            Draft(
                "pet",
                n,
                0.9,
                timing=timing,
                ended=ended,
                text=f"{subject_text(ctx)} has {article(kind)} named {n}",
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
            text=f"{subject_text(ctx)} has "
            + (article(kind) if count in ("a", "an", "one") else f"{count} {m['pet']}"),
        )
    ]


RULES: tuple[Rule, ...] = (
    # pets
    rule(
        "pet.have",
        rf"{_V_HAVE_PET}\s+(?P<n>a|an|one|two|three|four|five|\d+|another|some|no|any|my|our)\s+"
        rf"(?P<mods>(?:[a-z-]+\s+){{0,3}}?)(?P<pet>{PET})\b(?:(?:\s*[,:(]\s*(?:(?:named|called)\s+)?|"
        rf"\s+(?:named|called|whose names? (?:is|are))\s+)(?P<names>{NAMES}))?",
        _pets,
    ),
    rule(
        "pet.is_a",
        rf"{BE}\s+(?:my|our|a|an)\s+(?P<mods>(?:(?:little|big|old|young|wee|rescue|black|white|brown|golden|"
        rf"ginger|grey|gray|tabby|mixed|sweet|miniature|mini|standard|toy)\s+){{0,2}})(?P<pet>{PET})"
        r"\s*(?:$|,|\s+(?:and|who|that)\b)",
        _named_is_a_pet,
    ),
)
