"""A model endpoint that hangs, fails or answers garbage, end to end: ``remember`` with the LLM
extractor falls back to the rules and stores everything, an Editor run with the LLM judge
completes, and every such event is counted by kind where the caller sees it.

The endpoint is a local OpenAI-shaped HTTP server on loopback; every reply it sends is
HAND-WRITTEN here (no model output), chosen per request from a script of behaviours.
"""

from __future__ import annotations

import json
import threading
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from loopback_json import LoopbackJSON

from dualmem_core import Editor, Writer
from dualmem_core.editor import EditorConfig
from dualmem_core.providers.llm import OpenAILLM
from dualmem_core.writer.extractors.rules.extractor import RuleExtractor
from dualmem_core.writer.facts import Message

T0 = datetime(2025, 3, 1, tzinfo=UTC)
# HAND-WRITTEN replies.
FACTS_OK = {"facts": [{"message_index": 0, "text": "The user lives in Boston.", "subject": "user",
                       "predicate": "lives_in", "object": "Boston", "valid_from": None, "valid_to": None,
                       "negated": False, "confidence": 0.9}]}
GARBAGE = "Sure! Here are the facts you asked for: lives_in Boston (probably)"
WRONG_SHAPE = json.dumps({"facts": [{"message_index": 0, "text": "lives in Boston"}]})
UNKNOWN_PREDICATE = json.dumps({"facts": [{**FACTS_OK["facts"][0], "predicate": "teleports_to"}]})


class FlakyModel:
    """Serves chat completions; ``script`` says what each request gets, in order, and the
    last entry repeats: "hang" (no answer until closed), "500", "garbage", "wrong_shape",
    "unknown_predicate", "401" (unless the request carries ``accept_key``), or a dict to send
    as the reply's JSON."""

    def __init__(self, script: list[Any], accept_key: str | None = None) -> None:
        self.script, self.accept_key = list(script), accept_key
        self.requests: list[dict[str, Any]] = []
        self.auth_headers: list[str] = []
        self.lock, self.released = threading.Lock(), threading.Event()
        self._http = LoopbackJSON(self._respond)
        self.base_url = self._http.base_url

    def _respond(self, path: str, body: dict[str, Any], headers: Any) -> tuple[int, dict[str, Any]] | None:
        with self.lock:
            self.requests.append(body)
            self.auth_headers.append(headers.get("Authorization", ""))
            step = self.script.pop(0) if len(self.script) > 1 else self.script[0]
        if step == "hang":
            self.released.wait(60)
            return None
        if self.accept_key and headers.get("Authorization") != f"Bearer {self.accept_key}":
            step = "401"
        if step == "500":
            return 500, {"error": {"message": "internal error (hand-written)"}}
        if step == "401":
            return 401, {"error": {"message": "Incorrect API key provided (hand-written)",
                                   "code": "invalid_api_key"}}
        canned = {"garbage": GARBAGE, "wrong_shape": WRONG_SHAPE, "unknown_predicate": UNKNOWN_PREDICATE}
        content = canned.get(step) if isinstance(step, str) else json.dumps(step)
        return 200, {"id": "chatcmpl-handwritten", "object": "chat.completion", "created": 0,
                     "model": body["model"],
                     "choices": [{"index": 0, "finish_reason": "stop",
                                  "message": {"role": "assistant", "content": content}}],
                     "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}}

    def close(self) -> None:
        self.released.set()
        self._http.close()


@pytest.fixture
def model_server():
    servers: list[FlakyModel] = []

    def start(script: list[Any], accept_key: str | None = None) -> FlakyModel:
        servers.append(FlakyModel(script, accept_key))
        return servers[-1]

    yield start
    for s in servers:
        s.close()


def llm_at(server: FlakyModel, *, timeout: float = 0.5, max_retries: int = 0,
           key: str = "sk-test") -> OpenAILLM:
    return OpenAILLM("hand-written-model", base_url=server.base_url, api_key=key, timeout=timeout,
                     max_retries=max_retries)


def message(text: str, i: int) -> dict:
    return {"role": "user", "content": text, "source_id": f"m{i}", "at": T0 + timedelta(days=i)}


CASES = [("hang", "timeout"), ("500", "error"), ("garbage", "bad_reply"), ("wrong_shape", "bad_reply"),
         ("unknown_predicate", "bad_reply")]


def test_remember_falls_back_to_the_rules_on_every_kind_of_failure_and_counts_them(
    store, user, model_server
):
    server = model_server([step for step, _ in CASES] + [FACTS_OK])
    writer = Writer(store, llm=llm_at(server))
    rules = RuleExtractor()
    for i, (step, kind) in enumerate(CASES):
        text = f"I live in Boston. I love ramen number {i}."
        result = writer.remember([message(text, i)], user_id=user)
        assert result.extractor == f"rules (LLM {kind})", step
        expected = rules.extract(Message(text, T0 + timedelta(days=i), None, "user"))
        assert [(f.predicate, f.object) for f in result.facts] == [(f.predicate, f.object) for f in expected]
        assert [e.text for e in store.episodes_by_source(user, [f"m{i}"])] == [text]
        assert len(store.get_memories(user, result.memory_ids)) == len(result.memory_ids) > 1
    answered = writer.remember([message("I live in Boston.", 99)], user_id=user)
    assert answered.extractor == "llm" and [f.rule for f in answered.facts] == ["llm"]

    stats = writer.extractor.stats
    assert stats.calls == len(CASES) + 1 and stats.fallbacks == len(CASES)
    assert dict(stats.fallbacks_by_kind) == dict(Counter(kind for _, kind in CASES))
    assert store.counts(user)["episodes"] == len(CASES) + 1


def test_a_transient_server_error_is_retried_by_the_client_and_then_answers(sqlite_store, user, model_server):
    server = model_server(["500", "hang", FACTS_OK])
    writer = Writer(sqlite_store, llm=llm_at(server, timeout=1.0, max_retries=2))
    result = writer.remember([message("I live in Boston.", 0)], user_id=user)
    assert result.extractor == "llm"
    assert len(server.requests) == 3  # a 500 and a timeout, each retried with backoff
    assert writer.extractor.stats.fallbacks == 0


def test_many_threads_remembering_through_a_flaky_model_lose_nothing_and_count_every_fallback(
    sqlite_store, user, model_server
):
    server = model_server(["hang", "500", "garbage", FACTS_OK] * 6 + [FACTS_OK])
    writer = Writer(sqlite_store, llm=llm_at(server))
    texts = [f"I live in Boston. Note {i}." for i in range(24)]
    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(lambda i: writer.remember([message(texts[i], i)], user_id=user),
                                range(len(texts))))
    episodes = sqlite_store.episodes_by_source(user, [f"m{i}" for i in range(24)])
    stored = {e.source_id: e.text for e in episodes}
    assert stored == {f"m{i}": t for i, t in enumerate(texts)}
    fell_back = Counter(r.extractor for r in results if r.extractor != "llm")
    stats = writer.extractor.stats
    assert stats.calls == 24 and stats.fallbacks == sum(fell_back.values()) == 18
    assert dict(stats.fallbacks_by_kind) == {"timeout": 6, "error": 6, "bad_reply": 6}


GREY = ["My grandmother taught me to bake bread.", "Grandma is the one who showed me how to bake bread.",
        "My sister Sarah called.", "Sarah Chen is my manager.", "I used to play the violin as a kid.",
        "As a child I played violin."]


@pytest.mark.parametrize("steps", [["hang"], ["500"], ["garbage"], ["wrong_shape"], ["hang", "500"]])
def test_an_editor_run_with_a_failing_judge_completes_and_reports_each_failure(
    sqlite_store, user, model_server, steps
):
    Writer(sqlite_store).remember([message(t, i) for i, t in enumerate(GREY)], user_id=user)
    server = model_server(steps)
    # Every candidate pair goes to the model: the grey band is everything below near-exact.
    config = EditorConfig(candidate_cosine=0.0, near_cosine=0.99, grey_cosine=0.0)
    editor = Editor(sqlite_store, llm=llm_at(server), config=config)
    run = editor.run(user)
    asked = len(server.requests)
    assert asked > 0, "the run should have consulted the model"
    assert run.llm_failures == asked and sum(run.llm_failure_kinds.values()) == asked
    served = [steps[min(i, len(steps) - 1)] for i in range(asked)]
    assert run.llm_failure_kinds == dict(Counter(dict(CASES)[step] for step in served))
    merged = [d for s in run.stages for d in s.decisions if d.reason.startswith("llm: same")]
    assert not merged, "a failed reply must never merge"
    if run.applied_at is not None:  # the counts are kept with the published run
        (stored,) = [r for r in editor.runs(user) if r.run_id == run.run_id]
        assert stored.llm_failures == asked and stored.llm_failure_kinds == run.llm_failure_kinds


@pytest.fixture
def sqlite_store(tmp_path):
    from dualmem_core import open_store

    opened = open_store(f"sqlite:///{tmp_path / 'memory.db'}", dimension=384)
    yield opened
    opened.close()
