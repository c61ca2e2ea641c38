"""What every extractor is to the Writer: one batch of messages in, facts per message out.

The Writer calls ``extract_batch(messages, context)`` to extract, so an extractor (the rules, an
LLM, a test's script) plugs in by implementing this one method; a forget also asks it for its
``caches()``. ``reads_context`` says whether it also wants the assistant's turns (their
questions) and the session's ``Discourse`` (``writer/sessions.py``); ``Extraction.report``, when
set, is what ``RememberResult.extractor`` says of the call (the LLM extractor's "llm" or "rules
(LLM timeout)").
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from ..facts import Fact, Message

if TYPE_CHECKING:
    from ...providers import ProviderCache
    from ..sessions import Discourse


@dataclass(slots=True)
class Extraction:
    """One call's facts per message, and why it fell back to the rules (None: it did not)."""

    facts: list[list[Fact]]
    fallback: str | None = None  # a failure kind: timeout, unreachable, error, bad_reply
    report: str | None = None  # what the Writer's result says answered; None keeps its default


class Extractor(ABC):
    """Finds candidate facts in a batch of messages."""

    reads_context: bool = False  # hears assistant turns and the session's ``Discourse``

    @abstractmethod
    def extract_batch(self, messages: list[Message], context: Discourse | None = None) -> Extraction:
        """Facts per message, in order; ``context`` is the session's discourse (None without one)."""

    def caches(self) -> list[ProviderCache]:
        """The provider caches holding what this extractor derived from message texts, which
        ``Writer.forget`` purges of the forgotten texts; none unless it calls a cached model."""
        return []


class MessageExtractor(Protocol):
    """Reads one message alone: what the LLM extractor falls back to on a failed call."""

    def extract(self, message: Message) -> list[Fact]: ...
