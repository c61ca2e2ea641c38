"""Score the rule extractor on the hand-written development corpus ``fixtures/extraction/statements.jsonl``.

The corpus is independent of the evaluation fixture (see ``fixtures/extraction/README.md``). Each line
is one user message with every fact it states as ``[subject, predicate, object]`` (plus ``"negated"`` or
``"ended"``), and optionally ``ok``: facts that are acceptable but not required. Scoring:

* recall: expected facts some extracted fact matches (subject, predicate, polarity, ended-ness, object);
* precision: extracted facts matching an expected fact, over extracted facts except acceptable ones
  (``ok``) and ``plans`` / ``event`` facts, which no corpus line labels.

An object matches when it equals one of the ``|``-separated alternatives after lower-casing and
dropping a leading article or possessive; subjects compare the same way.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from dualmem_core.writer.extractors.rules.extractor import RuleExtractor
from dualmem_core.writer.facts import Fact, Message

CORPUS = Path(__file__).resolve().parent.parent / "fixtures" / "extraction" / "statements.jsonl"
# Every statement is said at the same moment; the corpus checks triples, not resolved dates.
SAID_AT = datetime(2025, 6, 15, 12, 0, tzinfo=UTC)
UNJUDGED = frozenset({"plans", "event"})
_LEADING = re.compile(r"^(?:a|an|the|my|our|their)\s+")
_PUNCT = re.compile(r"[^\w\s'&-]+")


@dataclass(frozen=True, slots=True)
class Expected:
    subject: str
    predicate: str
    objects: tuple[str, ...]  # alternatives
    negated: bool = False
    ended: bool = False

    def matches(self, fact: Fact) -> bool:
        return (
            fact.predicate == self.predicate
            and _norm(fact.subject) == _norm(self.subject)
            and fact.negated == self.negated
            and (fact.valid_to is not None) == self.ended
            and _norm(fact.object) in self.objects
        )


@dataclass(slots=True)
class Statement:
    id: str
    text: str
    facts: list[Expected]
    ok: list[Expected]


@dataclass(slots=True)
class Score:
    expected: int = 0
    found: int = 0
    extracted: int = 0  # judged extracted facts
    correct: int = 0
    misses: list[tuple[str, str, Expected, list[Fact]]] = field(default_factory=list)
    wrong: list[tuple[str, str, Fact]] = field(default_factory=list)

    @property
    def recall(self) -> float:
        return self.found / self.expected if self.expected else 1.0

    @property
    def precision(self) -> float:
        return self.correct / self.extracted if self.extracted else 1.0

    def judge(self, item_id: str, text: str, expected: list[Expected], ok: list[Expected], facts: list[Fact]):
        """Count one item: its expected facts found, and its extracted facts right or wrong
        (acceptable ones and ``UNJUDGED`` predicates are not counted)."""
        for exp in expected:
            self.expected += 1
            if any(exp.matches(f) for f in facts):
                self.found += 1
            else:
                self.misses.append((item_id, text, exp, facts))
        for fact in facts:
            if fact.predicate in UNJUDGED or any(e.matches(fact) for e in ok):
                continue
            self.extracted += 1
            if any(e.matches(fact) for e in expected):
                self.correct += 1
            else:
                self.wrong.append((item_id, text, fact))


def _norm(text: str) -> str:
    return _LEADING.sub("", _PUNCT.sub("", text.lower()).strip()).strip()


def _expected(raw: list[str]) -> Expected:
    subject, predicate, obj, *flags = raw
    return Expected(
        subject,
        predicate,
        tuple(_norm(o) for o in obj.split("|")),
        negated="negated" in flags,
        ended="ended" in flags,
    )


def load(path: Path = CORPUS) -> list[Statement]:
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            row = json.loads(line)
            out.append(
                Statement(
                    row["id"],
                    row["text"],
                    [_expected(f) for f in row["facts"]],
                    [_expected(f) for f in row.get("ok", [])],
                )
            )
    return out


def score(statements: list[Statement] | None = None, extractor: RuleExtractor | None = None) -> Score:
    extractor = extractor or RuleExtractor()
    result = Score()
    for st in statements if statements is not None else load():
        facts = extractor.extract(Message(st.text, SAID_AT, "user", "user"))
        result.judge(st.id, st.text, st.facts, st.ok, facts)
    return result


VARIANTS = ("as written", "lower case", "run together")


def variant(statements: list[Statement], name: str) -> list[Statement]:
    """The corpus as people also type it: all in lower case ("my sister lena lives in leeds"), or
    each statement run into the next with no stop between them ("...in Leeds I work at Aldi"),
    which then states the facts of both."""
    if name == "lower case":
        return [Statement(f"{s.id}/lower", s.text.lower(), s.facts, s.ok) for s in statements]
    if name == "run together":
        pairs = zip(statements[::2], statements[1::2], strict=False)
        return [Statement(f"{a.id}+{b.id}", f"{_STOP.sub('', a.text)} {b.text}", a.facts + b.facts,
                          a.ok + b.ok) for a, b in pairs]
    return statements


_STOP = re.compile(r"[.!?]+\s*$")


def describe(fact: Fact) -> str:
    flags = " NEG" if fact.negated else ""
    flags += " ENDED" if fact.valid_to is not None else ""
    return f"({fact.subject}, {fact.predicate}, {fact.object}){flags}"
