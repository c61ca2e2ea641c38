"""Secrets audit: an API key set in the environment reaches the model endpoint's Authorization
header and nowhere else: not the logs (every logger at DEBUG, the HTTP libraries' included),
not an error, a repr, a RememberResult, an EditorRun, a run record, the provider cache, the store
file or a snapshot. Once against an endpoint that accepts the key, once against one that
rejects it (its error is what a careless message would quote). Also: the HTTP servers bind
loopback unless told otherwise.
"""

from __future__ import annotations

import argparse
import dataclasses
import inspect
import json
import logging
from datetime import UTC, datetime, timedelta

import pytest
from test_reliability_llm import FlakyModel

from dualmem_core import Editor, Writer, open_store
from dualmem_core.editor import EditorConfig
from dualmem_core.providers.config import ProviderConfig, make_embedder, make_llm, open_cache

KEY = "sk-test-SECRET-5f1c9a7e2b44d0"  # not a real key: a marker to search for
T0 = datetime(2025, 6, 1, tzinfo=UTC)
# HAND-WRITTEN replies: facts for the Writer, verdicts for the Editor's judge.
FACTS = {"facts": [{"message_index": 0, "text": "The user lives in Boston.", "subject": "user",
                    "predicate": "lives_in", "object": "Boston", "valid_from": None, "valid_to": None,
                    "negated": False, "confidence": 0.9}]}
VERDICTS = {"verdicts": [{"index": i, "same": False} for i in range(40)]}
GREY = ["My grandmother taught me to bake bread.", "Grandma is the one who showed me how to bake bread.",
        "I live in Boston.", "My sister Sarah called.", "Sarah Chen is my manager."]


@pytest.mark.parametrize("accepted", [True, False], ids=["key-accepted", "key-rejected"])
def test_the_api_key_appears_only_in_the_authorization_header(tmp_path, monkeypatch, caplog, user, accepted):
    server = FlakyModel([FACTS, *([VERDICTS] * 30)], accept_key=KEY if accepted else "sk-some-other-key")
    monkeypatch.setenv("DUALMEM_LLM_MODEL", "hand-written-model")
    monkeypatch.setenv("DUALMEM_LLM_BASE_URL", server.base_url)
    monkeypatch.setenv("DUALMEM_LLM_API_KEY", KEY)
    monkeypatch.setenv("DUALMEM_LLM_TIMEOUT", "5")
    monkeypatch.setenv("DUALMEM_LLM_MAX_RETRIES", "0")
    monkeypatch.setenv("DUALMEM_CACHE", str(tmp_path / "cache" / "providers.db"))
    monkeypatch.setenv("DUALMEM_SNAPSHOT_DIR", str(tmp_path / "snapshots"))
    caplog.set_level(logging.DEBUG)  # the root: openai's, httpx's and httpcore's debug logs too

    config = ProviderConfig.from_env()
    cache = open_cache(config)
    llm = make_llm(config, cache)
    store = open_store(f"sqlite:///{tmp_path / 'store' / 'memory.db'}", dimension=384)
    # The config object holds the key (it must, to send it); what it shows must not.
    seen: list[object] = [repr(config), repr(llm), repr(cache), str(config)]
    try:
        writer = Writer(store, embedder=make_embedder(config, cache), llm=llm)
        results = [writer.remember([{"role": "user", "content": t, "source_id": f"m{i}",
                                     "at": T0 + timedelta(days=i)}], user_id=user)
                   for i, t in enumerate(GREY)]
        seen += results
        seen.append(writer.extractor.stats)
        assert (results[0].extractor == "llm") is accepted
        editor = Editor(store, llm=llm, config=EditorConfig(candidate_cosine=0.0, near_cosine=0.99,
                                                            grey_cosine=0.0))
        run = editor.run(user)
        seen += [run, editor.runs(user), store.list_runs(user)]
        assert (run.llm_failures == 0) is accepted
        if not accepted:
            seen.append(writer.extractor.stats.last_error)
            assert "401" in writer.extractor.stats.last_error  # the failure is there, the key is not
    finally:
        store.close()
        cache.close()
        server.close()

    assert server.auth_headers and all(h == f"Bearer {KEY}" for h in server.auth_headers), \
        "the key should have been sent, as the bearer token"
    everything = [caplog.text, *(r.getMessage() for r in caplog.records),
                  *(json.dumps(_plain(o), default=repr) for o in seen)]
    assert not [t for t in everything if KEY in t], "the API key leaked into logs or results"
    files = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert any(p.suffix == ".parquet" for p in files) and any("cache" in p.parts for p in files)
    assert not [str(p) for p in files if KEY.encode() in p.read_bytes()], "the API key is in a file"


def _plain(value: object) -> object:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


def test_servers_bind_loopback_unless_told_otherwise():
    from dualmem_core.commands import servers
    from dualmem_core.mcp_server import run_server

    assert inspect.signature(run_server).parameters["host"].default == "127.0.0.1"
    parser = argparse.ArgumentParser()
    commands = parser.add_subparsers(dest="command")
    servers.register(commands, argparse.ArgumentParser(add_help=False))
    for argv in (["mcp", "--http"], ["serve"]):
        assert parser.parse_args(argv).host == "127.0.0.1", argv
