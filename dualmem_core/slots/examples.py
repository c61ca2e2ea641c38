"""Labelled examples for the slot reader, from the repository's fixtures.

Two sources: the evaluation fixture's ``tune`` part (each gold fact names the messages that told
it) and the hand-written messages of ``fixtures/slots/written/``. ``dev`` and ``heldout`` are read
only to measure (``part=``), never to train.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from .model import OTHER

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
# The fixture labels which slots a message tells, not what it does to them: its rows teach
# nothing about the change labels, which are left out of their loss.
_FIXTURE_UNLABELLED = ("+starts", "+ends", "+continues")


@dataclass(frozen=True, slots=True)
class Example:
    text: str
    labels: frozenset[str]
    unlabelled: tuple[str, ...] = ()  # labels this example says nothing about
    origin: str = ""


def slot_of(predicate: str) -> str:
    return "favourite" if predicate.startswith("favourite_") else predicate


def fixture_examples(part: str, folder: Path | None = None) -> list[Example]:
    """The user messages of one part of the evaluation fixture, labelled from ``gold.json``."""
    folder = folder or FIXTURES / "eval"
    gold = json.loads((folder / "gold.json").read_text())
    told: dict[str, set[str]] = {}
    for fact in gold["facts"]:
        label = slot_of(fact["predicate"]) + ("" if fact["subject"] == "user" else OTHER)
        for source in fact["sources"]:
            told.setdefault(source, set()).add(label)
    out = []
    with (folder / "conversations.jsonl").open() as lines:
        for line in lines:
            row = json.loads(line)
            if row["part"] == part and row["role"] == "user":
                out.append(Example(row["content"], frozenset(told.get(row["source_id"], ())),
                                   _FIXTURE_UNLABELLED, f"eval:{row['source_id']}"))
    return out


def written_examples(folder: Path | None = None) -> list[Example]:
    """Every ``written/*.jsonl`` line, files in name order."""
    folder = folder or FIXTURES / "slots" / "written"
    out = []
    for path in sorted(folder.glob("*.jsonl")):
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
                labels = set()
                for telling in row["tells"]:
                    labels.add(slot_of(telling["slot"]) + ("" if telling["about"] == "speaker" else OTHER))
                    labels.add("+" + telling["change"])
            except (ValueError, KeyError, TypeError) as exc:
                raise ValueError(f"{path.name} line {number}: not a labelled example ({exc}); "
                                 "see fixtures/slots/README.md for the format") from exc
            out.append(Example(row["text"], frozenset(labels), (), f"{path.stem}:{row['id']}"))
    return out


def training_examples() -> list[Example]:
    return fixture_examples("tune") + written_examples()
