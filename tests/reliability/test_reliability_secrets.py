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


def test_the_api_key_stays_out_of_the_pipelines_runs_metadata_and_storage(tmp_path, monkeypatch, user):
    """The Editor job as deployed (resources from the environment through ``EnvVar``), with the
    LLM judge on: no event, metadata entry, run config or file of the Dagster instance has the key."""
    from dagster import DagsterInstance, instance_for_test

    from dualmem_pipeline.definitions import build_definitions

    server = FlakyModel([VERDICTS], accept_key=KEY)
    url = f"sqlite:///{tmp_path / 'store' / 'memory.db'}"
    store = open_store(url, dimension=384)
    try:
        Writer(store).remember([{"role": "user", "content": t, "source_id": f"m{i}",
                                 "at": T0 + timedelta(days=i)} for i, t in enumerate(GREY)], user_id=user)
    finally:
        store.close()
    for name, value in {"DUALMEM_STORE": url, "DUALMEM_LLM_MODEL": "hand-written-model",
                        "DUALMEM_LLM_BASE_URL": server.base_url, "DUALMEM_LLM_API_KEY": KEY,
                        "DUALMEM_LLM_MAX_RETRIES": "0", "DUALMEM_CACHE": str(tmp_path / "cache.db"),
                        "DUALMEM_SNAPSHOT_DIR": str(tmp_path / "snapshots")}.items():
        monkeypatch.setenv(name, value)
    try:
        (tmp_path / "dagster").mkdir()
        with instance_for_test(temp_dir=str(tmp_path / "dagster")) as instance:
            instance: DagsterInstance
            instance.add_dynamic_partitions("users", [user])
            job = build_definitions().resolve_job_def("editor_job")
            result = job.execute_in_process(partition_key=user, instance=instance)
            assert result.success
            records = instance.all_logs(result.run_id)
            run = instance.get_run_by_id(result.run_id)
            texts = [repr(r) for r in records] + [repr(run.run_config), repr(run.tags)]
            assert any("materialization" in t.lower() for t in texts)
            assert not [t for t in texts if KEY in t], "the API key is in a Dagster event or the run"
    finally:
        server.close()
    assert server.auth_headers and all(h == f"Bearer {KEY}" for h in server.auth_headers)
    files = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert any("dagster" in p.parts for p in files)
    assert not [str(p) for p in files if KEY.encode() in p.read_bytes()], "the API key is in a file"
