"""Fact extraction by an LLM: one call per ``remember``, JSON-schema output, rules as fallback.

A reply that is not valid JSON, breaks the schema, names an unknown predicate or a message that
does not exist loses nothing: the whole call falls back to the rule extractor, the reason is
logged and counted, and the episodes are stored either way.
"""

from __future__ import annotations

import logging
import threading
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from ...errors import CacheMiss, DualmemError
from ...prompts import extract_facts as prompt
from ...providers.llm import LLM, Usage, failure_kind
from ...vocab import predicates
from ..facts import Fact, Message
from .base import Extraction, Extractor, MessageExtractor

if TYPE_CHECKING:
    from ...providers import ProviderCache
    from ..sessions import Discourse

log = logging.getLogger(__name__)
_PREDICATE_NAMES = [*sorted(predicates.PREDICATES), "favourite_<category>"]


@dataclass(slots=True)
class ExtractionStats:
    calls: int = 0
    fallbacks: int = 0
    usage: Usage = field(default_factory=Usage)
    last_error: str = ""
    fallbacks_by_kind: Counter[str] = field(default_factory=Counter)  # see providers.llm.failure_kind


class LLMExtractor(Extractor):
    """Extracts facts from a batch of messages with one model call; falls back to ``fallback``."""

    def __init__(self, llm: LLM, fallback: MessageExtractor):
        self.llm = llm
        self.fallback = fallback
        self.stats = ExtractionStats()
        self._stats_lock = threading.Lock()  # one Writer serves many threads

    def caches(self) -> list[ProviderCache]:
        """The model's reply cache, when the model is a cached one (``CachedLLM``)."""
        cache = getattr(self.llm, "cache", None)
        return [cache] if cache is not None else []

    def extract_many(self, messages: list[Message]) -> list[list[Fact]]:
        return self.extract_batch(messages).facts

    def extract_batch(self, messages: list[Message], context: Discourse | None = None) -> Extraction:
        """Facts per message from one model call, or from the rules if that call failed; the
        call reads the batch alone (``context`` is not used)."""
        if not messages:
            return Extraction([])
        numbered = [(i, m.at.isoformat(), m.speaker, m.text) for i, m in enumerate(messages)]
        chat = [
            {"role": "system", "content": prompt.SYSTEM},
            {"role": "user", "content": prompt.user_prompt(numbered, _PREDICATE_NAMES)},
        ]
        with self._stats_lock:
            self.stats.calls += 1
        try:
            reply = self.llm.complete_json(
                chat, prompt.SCHEMA, name="facts", sources=[m.text for m in messages]
            )
            with self._stats_lock:
                self.stats.usage += reply.usage
            return Extraction(_facts_from(reply.parsed, messages), report="llm")
        except CacheMiss:
            raise  # replay mode: a missing recording is the caller's error, not a fallback case
        except (DualmemError, ValueError, KeyError, TypeError) as exc:
            kind = failure_kind(exc)
            with self._stats_lock:
                self.stats.fallbacks += 1
                self.stats.fallbacks_by_kind[kind] += 1
                self.stats.last_error = f"{type(exc).__name__}: {exc}"
            log.warning("LLM extraction failed (%s: %s: %s); using the rule extractor", kind,
                        type(exc).__name__, exc)
            return Extraction([self.fallback.extract(m) for m in messages], fallback=kind,
                              report=f"rules (LLM {kind})")


def _facts_from(parsed: dict, messages: list[Message]) -> list[list[Fact]]:
    """Turn a schema-valid reply into facts per message; raise ValueError on bad content."""
    out: list[list[Fact]] = [[] for _ in messages]
    for item in parsed["facts"]:
        index = item["message_index"]
        if not 0 <= index < len(messages):
            raise ValueError(f"fact refers to message {index}, but only {len(messages)} were sent")
        predicate = predicates.canonical(item["predicate"])
        if not predicates.is_known(predicate):
            raise ValueError(f"unknown predicate {item['predicate']!r}")
        obj = item["object"].strip()
        out[index].append(
            Fact(
                text=item["text"].strip(),
                subject=item["subject"].strip(),
                predicate=predicate,
                object=obj,
                valid_from=_date(item["valid_from"]),
                valid_to=_date(item["valid_to"]),
                negated=item["negated"],
                confidence=float(item["confidence"]),
                entities=_entities(item["subject"], predicate, obj),
                rule="llm",
            )
        )
    return out


def _date(value: str | None) -> datetime | None:
    if value is None or not value.strip():
        return None
    parsed = datetime.fromisoformat(value.strip())  # ValueError on garbage: falls back
    return parsed.replace(tzinfo=UTC) if parsed.tzinfo is None else parsed.astimezone(UTC)


def _entities(subject: str, predicate: str, obj: str) -> list[tuple[str, str]]:
    found = []
    if subject[:1].isupper() and not subject.startswith("user"):
        found.append((subject, "person"))
    kind = predicates.object_type(predicate)
    if kind != "value":
        found.append((obj, kind))
    return found
