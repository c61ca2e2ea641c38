"""Session summaries written by a model: one call per session, replayed from the cache, and the
extractive summary when a reply is unusable.

Replies come from ``fixtures/llm/editor_summary_handwritten.json``: hand-written by us to test
the protocol, never a model's output.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from dualmem_core import Editor, Writer
from dualmem_core.editor import EditorConfig
from dualmem_core.errors import CacheMiss, ProviderError
from dualmem_core.providers.cache import ProviderCache
from dualmem_core.providers.llm import CachedLLM, LLMReply

FIXTURE = Path(__file__).parents[2] / "fixtures" / "llm" / "editor_summary_handwritten.json"
REPLIES = json.loads(FIXTURE.read_text())
T = datetime(2026, 1, 5, 12, tzinfo=UTC)
SHORT = EditorConfig(summaries=True, summary_min_turns=3)  # the sessions here are short
VET = ["Took Biscuit the puppy to the vet for his checkup.", "The vet checkup was quick.",
       "Then coffee with Lena downtown.", "She showed me photos of her new flat.",
       "Anyway, all good, nothing to worry about."]


class HandWrittenLLM:
    """Answers every summary request with one named hand-written reply (or raises); any other
    request (the grey band's) gets an empty verdict list."""

    name = model = "hand-written"

    def __init__(self, reply: str | None = None, error: Exception | None = None):
        self.reply, self.error, self.requests = reply, error, []

    def complete_json(self, messages, schema, *, name, temperature=0, sources=()):
        if name != "session_summary":
            return LLMReply({"verdicts": []}, "{}", self.model)
        self.requests.append(messages)
        if self.error is not None:
            raise self.error
        return LLMReply(REPLIES[self.reply], json.dumps(REPLIES[self.reply]), self.model, 200, 30)


def tell(store, user, turns=VET):
    Writer(store).remember([{"role": "user", "content": t, "speaker": "Ana", "source_id": f"a{i}", "at": T}
                            for i, t in enumerate(turns)], user_id=user, session_id="s1")


def summary_of(store, user):
    [memory] = [m for m in store.export_graph(user).memories if m.kind == "summary"]
    [version] = store.get_versions(user, [memory.id])
    return version.text, store.sources_of(user, [memory.id])[memory.id]


def test_one_call_per_session_and_its_cited_turns_are_the_sources(store, user):
    tell(store, user)
    llm = HandWrittenLLM("good")
    run = Editor(store, config=SHORT, llm=llm).run(user)
    assert len(llm.requests) == 1 and "[4] Ana: Anyway" in llm.requests[0][1]["content"]
    assert summary_of(store, user) == (REPLIES["good"]["summary"], ["a0", "a1", "a4"])
    assert run.counts["summaries"] == {"summarise": 1} and run.llm_by_stage["summaries"]["tokens"] == 230
    [decision] = run.stages[4].decisions
    assert decision.reason == "llm"


@pytest.mark.parametrize("reply, error", [("no_turns", None), ("empty", None),
                                          (None, ProviderError("the model returned invalid JSON"))])
def test_an_unusable_reply_falls_back_to_the_extractive_summary(store, user, reply, error):
    tell(store, user)
    run = Editor(store, config=SHORT, llm=HandWrittenLLM(reply, error)).run(user)
    text, sources = summary_of(store, user)
    assert text.startswith("Ana: ") and set(sources) <= {f"a{i}" for i in range(5)}
    assert run.llm_failures == 1 and run.stages[4].decisions[0].reason == "extractive"


def test_a_recorded_run_replays_without_the_model(tmp_path, store, user):
    tell(store, user)
    recording = ProviderCache(tmp_path / "cache.sqlite", mode="record")
    recorded = CachedLLM(HandWrittenLLM("good"), recording)
    view_run = Editor(store, config=SHORT, llm=recorded).run(user, dry_run=True)
    recording.close()
    replay = ProviderCache(tmp_path / "cache.sqlite", mode="replay")
    offline = HandWrittenLLM(error=AssertionError("the model must not be called in replay"))
    again = Editor(store, config=SHORT, llm=CachedLLM(offline, replay)).run(user, dry_run=True)
    texts = [[op.version.text for op in d.ops if hasattr(op, "version")] for d in again.stages[4].decisions]
    assert texts == [[REPLIES["good"]["summary"]]] and view_run.stages[4].decisions[0].reason == "llm"
    tell(store, "someone-else", VET[::-1])  # a session never recorded
    with pytest.raises(CacheMiss):
        Editor(store, config=SHORT, llm=CachedLLM(offline, replay)).run("someone-else", dry_run=True)
