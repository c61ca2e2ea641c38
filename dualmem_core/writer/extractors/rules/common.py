"""Pieces shared by the verb-phrase rule modules: counts, name lists, articles, simple builders."""

from __future__ import annotations

import re

from ....vocab.relation_words import relation_pattern
from . import date_patterns
from .base import Builder, Context, Draft, items
from .clauses import NAME
from .lexicon import pet_pattern
from .objects import proper_run, split_items

NUMBER = (
    r"(?:\d{1,3}|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|"
    r"fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)"
    r"(?:[- ](?:one|two|three|four|five|six|seven|eight|nine))?"
)

BE = r"(?:am|is|are|was|were|been|be)"

REL = relation_pattern()

PET = pet_pattern()

NAMES = rf"{NAME}(?:\s+{NAME})?(?:\s*,\s*{NAME})*(?:\s*,?\s+(?:and|&)\s+{NAME})?"


def count_text(word: str) -> str:
    """A count as digits: 'thirty-two' -> '32'."""
    count, _ = date_patterns.parse_count(word.replace(" ", "-"))
    return str(count) if count is not None else word


def names_in(text: str | None) -> list[str]:
    if not text:
        return []
    return [n for n in (proper_run(p) for p in split_items(text, binomials=False)) if n]


def article(noun: str) -> str:
    return ("an " if noun[:1].lower() in "aeiou" else "a ") + noun


def subject_text(ctx: Context) -> str:
    return ctx.subject.name


def simple(predicate: str, kind: str, confidence: float, timing: str = "state", **options: object) -> Builder:
    def build(m: re.Match[str], ctx: Context) -> list[Draft]:
        return items(predicate, m["o"], kind, confidence, timing=timing, **options)  # type: ignore[arg-type]

    return build
