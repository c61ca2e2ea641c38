"""The gold-labelled evaluation fixture (``fixtures/eval/``) as Python values.

Two files, described in ``fixtures/README.md``:

* ``conversations.jsonl``: one message a line (part, user, session, source id, time, role, text);
* ``gold.json``: the facts every message states, duplicate clusters, update chains, entities with
  their mentions, and questions with the facts that answer them.

This module holds where they are, the parts and the other closed vocabularies, and the records
read from them: ``Message``, ``GoldFact``, ``DuplicateCluster``, ``UpdateChain``, ``GoldEntity``
with its ``Mention``s, ``Question``, and the ``Fixture`` that holds them all with its lookups.
Reading and validating the files is in ``fixture_loading.py`` (``load_fixture``), kept apart so
that the code scoring against the fixture reads the records without the checks of its files.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime
from pathlib import Path

DEFAULT_FOLDER = Path(__file__).resolve().parents[2] / "fixtures" / "eval"
CONVERSATIONS = "conversations.jsonl"
GOLD = "gold.json"

# tune: rules and thresholds are written against it; dev: written blind to the rules, used only to
# choose between variants by their aggregate numbers; heldout: measured, never used to choose.
PARTS = ("tune", "dev", "heldout")
READ_PARTS = ("tune",)  # the only part whose questions and misses anyone working on rules reads
ROLES = ("user", "assistant")
ENTITY_TYPES = ("person", "place", "organization", "pet", "thing")
QUESTION_KINDS = ("present", "past", "as_of", "multi")


@dataclass(frozen=True, slots=True)
class Message:
    part: str
    user_id: str
    session_id: str
    source_id: str
    at: datetime
    role: str
    content: str


@dataclass(frozen=True, slots=True)
class GoldFact:
    id: str
    user_id: str
    sources: tuple[str, ...]
    statement: str
    subject: str
    predicate: str
    object: str
    valid_from: date | None
    valid_to: date | None
    current: bool
    negated: bool = False


@dataclass(frozen=True, slots=True)
class DuplicateCluster:
    user_id: str
    sources: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class UpdateChain:
    user_id: str
    chain: tuple[str, ...]  # fact ids, oldest first in the world


@dataclass(frozen=True, slots=True)
class Mention:
    source_id: str
    name: str


@dataclass(frozen=True, slots=True)
class GoldEntity:
    id: str
    user_id: str
    type: str
    names: tuple[str, ...]
    mentions: tuple[Mention, ...]


@dataclass(frozen=True, slots=True)
class Question:
    id: str
    part: str
    user_id: str
    question: str
    asked_at: datetime
    as_of: date | None
    kind: str
    answers: tuple[str, ...]
    stale: tuple[str, ...]


@dataclass(slots=True)
class Fixture:
    messages: list[Message]
    facts: list[GoldFact]
    duplicates: list[DuplicateCluster]
    updates: list[UpdateChain]
    entities: list[GoldEntity]
    questions: list[Question]
    folder: Path | None = None
    _facts_by_id: dict[str, GoldFact] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        self._facts_by_id = {f.id: f for f in self.facts}

    def users(self, part: str | None = None) -> list[str]:
        """User ids in order of first message, optionally of one part."""
        seen: dict[str, None] = {}
        for m in self.messages:
            if part is None or m.part == part:
                seen.setdefault(m.user_id)
        return list(seen)

    def part_of(self, user_id: str) -> str:
        for m in self.messages:
            if m.user_id == user_id:
                return m.part
        raise KeyError(user_id)

    def messages_of(self, user_id: str) -> list[Message]:
        return [m for m in self.messages if m.user_id == user_id]

    def sessions(self, user_id: str | None = None) -> list[str]:
        seen: dict[str, None] = {}
        for m in self.messages:
            if user_id is None or m.user_id == user_id:
                seen.setdefault(m.session_id)
        return list(seen)

    def fact(self, fact_id: str) -> GoldFact:
        return self._facts_by_id[fact_id]

    def facts_of(self, user_id: str) -> list[GoldFact]:
        return [f for f in self.facts if f.user_id == user_id]

    def questions_of(self, user_id: str) -> list[Question]:
        return [q for q in self.questions if q.user_id == user_id]
