"""The LLM extraction protocol: one call per remember, parsing, replay, and fallback to rules.

Replies come from ``fixtures/llm/extract_facts_handwritten.json``: hand-written by us to test
the protocol, never a model's output.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from dualmem_core.errors import CacheMiss, ProviderError
from dualmem_core.providers.cache import ProviderCache
from dualmem_core.providers.llm import CachedLLM, LLMReply
from dualmem_core.writer.extractors.llm import LLMExtractor
from dualmem_core.writer.facts import Fact, Message
from dualmem_core.writer.writer import Writer

FIXTURE = Path(__file__).parents[3] / "fixtures" / "llm" / "extract_facts_handwritten.json"
REPLIES = json.loads(FIXTURE.read_text())
T = datetime(2026, 3, 2, 18, tzinfo=UTC)
MESSAGES = [Message("I moved to Portland last week.", T), Message("My sister Lena never eats meat.", T)]


class HandWrittenLLM:
    """Answers every request with one named hand-written reply, or raises the given error."""

    name = model = "hand-written"

    def __init__(self, reply: str | None = None, error: Exception | None = None):
        self.reply, self.error, self.requests = reply, error, []

    def complete_json(self, messages, schema, *, name, temperature=0, sources=()):
        self.requests.append(messages)
        if self.error is not None:
            raise self.error
        return LLMReply(REPLIES[self.reply], json.dumps(REPLIES[self.reply]), self.model, 120, 40)


class RecordingRules:
    """A fallback extractor that records what it was asked."""

    def __init__(self):
        self.seen = []

    def extract(self, message: Message) -> list[Fact]:
        self.seen.append(message.text)
        return [Fact(f"rules saw: {message.text}", "user", "event", message.text, rule="fallback")]


def test_one_call_per_batch_parses_every_field():
    llm = HandWrittenLLM("good")
    extractor = LLMExtractor(llm, fallback=RecordingRules())
    first, second = extractor.extract_many(MESSAGES)
    assert len(llm.requests) == 1 and "[1]" in llm.requests[0][1]["content"]
    assert [(f.subject, f.predicate, f.object) for f in first] == [("user", "lives_in", "Portland")]
    assert first[0].valid_from == datetime(2026, 2, 23, tzinfo=UTC)
    assert first[0].entities == [("Portland", "place")] and first[0].rule == "llm"
    assert [(f.predicate, f.negated) for f in second] == [("sibling", False), ("eats", True)]
    assert extractor.stats.usage.tokens == 160 and extractor.stats.fallbacks == 0


@pytest.mark.parametrize("reply, error", [
    ("unknown_predicate", None), ("bad_message_index", None), ("bad_date", None),
    (None, ProviderError("the model returned invalid JSON"))])
def test_bad_replies_fall_back_to_rules_and_are_counted(reply, error):
    rules = RecordingRules()
    extractor = LLMExtractor(HandWrittenLLM(reply, error), fallback=rules)
    facts = extractor.extract_many(MESSAGES)
    assert rules.seen == [m.text for m in MESSAGES]
    assert [f[0].rule for f in facts] == ["fallback", "fallback"]
    assert extractor.stats.fallbacks == 1 and extractor.stats.last_error


def test_recorded_replies_replay_without_the_model(tmp_path):
    recording = ProviderCache(tmp_path / "cache.sqlite", mode="record")
    LLMExtractor(CachedLLM(HandWrittenLLM("good"), recording), RecordingRules()).extract_many(MESSAGES)
    recording.close()
    replay = ProviderCache(tmp_path / "cache.sqlite", mode="replay")
    offline = HandWrittenLLM(error=AssertionError("the model must not be called in replay"))
    extractor = LLMExtractor(CachedLLM(offline, replay), RecordingRules())
    assert [f.object for f in extractor.extract_many(MESSAGES)[0]] == ["Portland"]
    with pytest.raises(CacheMiss):
        extractor.extract_many([Message("Something never recorded.", T)])


def test_writer_uses_one_llm_call_per_remember(store, user):
    llm = HandWrittenLLM("good")
    writer = Writer(store, llm=llm)
    result = writer.remember([{"role": "user", "content": m.text, "at": T} for m in MESSAGES], user_id=user)
    assert len(llm.requests) == 1
    assert sorted(f.predicate for f in result.facts) == ["eats", "lives_in", "sibling"]
    assert len(result.fact_ids) == 3
