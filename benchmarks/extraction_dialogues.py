"""Score the rule extractor on the hand-written dialogues ``fixtures/extraction/dialogues.jsonl``.

Each line is a short exchange of one session (user turns, and assistant turns whose questions the user
answers) with every fact the user's turns state, read together: "I adopted a puppy." / "His name is
Biscuit." states one fact, a pet named Biscuit. Scoring is the corpus's (``extraction_corpus.py``):
recall of the expected facts over everything extracted from the dialogue's turns, precision over the
extracted facts except acceptable ones (``ok``) and ``plans`` / ``event`` facts.

``score(with_context=False)`` reads every turn alone, as the extractor did before it kept a discourse
context: the difference is what the previous messages bring.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from benchmarks.extraction_corpus import SAID_AT, Expected, Score, _expected
from dualmem_core.writer.extractors.rules.extractor import RuleExtractor
from dualmem_core.writer.facts import Fact, Message

DIALOGUES = Path(__file__).resolve().parent.parent / "fixtures" / "extraction" / "dialogues.jsonl"


@dataclass(slots=True)
class Dialogue:
    id: str
    turns: list[tuple[str, str]]  # (role, text) in the order said
    facts: list[Expected]
    ok: list[Expected]

    @property
    def text(self) -> str:
        return " / ".join(f"{'A: ' if role == 'assistant' else ''}{text}" for role, text in self.turns)


def load(path: Path = DIALOGUES) -> list[Dialogue]:
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            row = json.loads(line)
            out.append(
                Dialogue(
                    row["id"],
                    [(role, text) for role, text in row["turns"]],
                    [_expected(f) for f in row["facts"]],
                    [_expected(f) for f in row.get("ok", [])],
                )
            )
    return out


def extract(dialogue: Dialogue, extractor: RuleExtractor, with_context: bool = True) -> list[Fact]:
    """Every fact the dialogue's turns yield, read in order as one session (or each turn alone)."""
    messages = [Message(text, SAID_AT, role, role) for role, text in dialogue.turns]
    if with_context:
        return [f for facts in extractor.extract_many(messages) for f in facts]
    return [f for m in messages for f in extractor.extract(m)]


def score(
    dialogues: list[Dialogue] | None = None, extractor: RuleExtractor | None = None, with_context: bool = True
) -> Score:
    extractor = extractor or RuleExtractor()
    result = Score()
    for d in dialogues if dialogues is not None else load():
        result.judge(d.id, d.text, d.facts, d.ok, extract(d, extractor, with_context))
    return result
