"""What an extractor reads (a message) and what it returns (candidate facts).

Facts are candidates, not truths: the Writer stores them with their confidence and the Editor later
dedupes, supersedes and scores them. So a fact carries enough to be judged later: the rule that made
it, its polarity, and the valid-time interval the message implied.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime


@dataclass(slots=True)
class Message:
    """One utterance as an extractor sees it."""

    text: str
    at: datetime  # aware UTC datetime when it was said; relative dates resolve against it
    speaker: str = "user"  # who said it: "user", "assistant", or a person's name
    role: str = "user"  # "user" | "assistant" | "system" | other


@dataclass(slots=True)
class Fact:
    """A candidate (subject, predicate, object) statement with its valid-time interval."""

    text: str  # short standalone third-person statement, e.g. "Maya lives in Portland"
    subject: str  # resolved: first person becomes the speaker ("user", "Maya"), relatives "user's mom"
    predicate: str  # a name from ``vocab/predicates.py``
    object: str  # the cleaned value: "Portland", "Acme Corp", a pet's name
    valid_from: datetime | None = None  # None: unknown, the caller uses the message time
    valid_to: datetime | None = None  # set when the message says or implies it ended
    negated: bool = False  # "I don't eat meat": the statement holds with this polarity
    confidence: float = 0.7  # specific patterns high, loose ones lower
    entities: list[tuple[str, str]] = field(default_factory=list)  # (name, type) mentioned
    rule: str = ""  # the rule that produced it, for explainability


NAME_PREDICATES = ("name", "nickname")


def mentioned_entities(fact: Fact) -> list[tuple[str, str]]:
    """The entities a fact mentions; a stated name or nickname is one more (the subject's type).

    "Robert goes by Bob" then mentions Bob too, and "user's name is Jonathan" Jonathan: the
    Editor joins the names of one person from the statement (``editor/entities.py``), so later
    messages saying only "Bob" reach Robert's entity."""
    found = list(fact.entities)
    name = fact.object.strip()
    if fact.predicate in NAME_PREDICATES and not fact.negated and name[:1].isupper():
        kind = next((k for n, k in found if n == fact.subject), "person")
        if all(n != name for n, _ in found):
            found.append((name, kind))
    return found

