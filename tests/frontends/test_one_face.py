"""Issue 36, "one face": the frontends agree on names, shapes, errors and limits. Through the real
frontends: a uvicorn server and httpx, the MCP SDK's own client, ``dualmem`` subprocesses."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from mcp import Client
from mcp.types import CallToolResult
from test_rest import LiveServer

from dualmem_core.mcp_server import build_server
from dualmem_core.rest import create_app
from dualmem_core.service import MemoryService

ROOT = Path(__file__).resolve().parents[2]
SHARED = ("RememberOut", "RecallOut", "HistoryOut", "ForgetOut")  # what both servers return


@pytest.fixture(scope="module")
def env() -> Iterator[None]:
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("DUALMEM_EMBEDDER", "hashing")
        mp.setenv("DUALMEM_CACHE_MODE", "off")
        for name in ("DUALMEM_LLM_MODEL", "DUALMEM_LLM_BASE_URL", "DUALMEM_LLM_API_KEY", "DUALMEM_STORE"):
            mp.delenv(name, raising=False)
        yield


@pytest.fixture(scope="module")
def rest(env: None, tmp_path_factory: pytest.TempPathFactory) -> Iterator[httpx.Client]:
    server = LiveServer(create_app(f"sqlite:///{tmp_path_factory.mktemp('rest') / 'memory.db'}")).start()
    with httpx.Client(base_url=server.url, timeout=60) as http:
        yield http
    server.stop()


def mcp_calls(store: Path, *calls: tuple[str, dict[str, Any]]) -> tuple[list[CallToolResult], dict]:
    """Each call's result through the SDK's client, and the tools' output schemas by tool name."""
    results: list[CallToolResult] = []
    schemas: dict[str, Any] = {}

    async def run() -> None:
        with MemoryService.open(f"sqlite:///{store}") as memory:
            async with Client(build_server(memory)) as client:
                schemas.update({t.name: t.output_schema for t in (await client.list_tools()).tools})
                for tool, arguments in calls:
                    results.append(await client.call_tool(tool, arguments))

    anyio.run(run)
    return results, schemas


def text_of(result: CallToolResult) -> str:
    return "".join(c.text for c in result.content if c.type == "text")


# -- 1. one set of names ----------------------------------------------------------------------------


def test_mcp_remember_takes_content_and_text_is_a_deprecated_alias(env: None, tmp_path: Path) -> None:
    (new, old, both, neither), _ = mcp_calls(
        tmp_path / "memory.db",
        ("remember", {"user_id": "u1", "content": "I live in Oslo.", "source_id": "m1"}),
        ("remember", {"user_id": "u1", "text": "I work at Acme.", "source_id": "m2"}),
        ("remember", {"user_id": "u1", "content": "I live in Rome.", "text": "I live in Rome."}),
        ("remember", {"user_id": "u1"}),
    )
    assert not new.is_error, text_of(new)
    assert [f["text"] for f in new.structured_content["facts"]] == ["user lives in Oslo"]
    assert not old.is_error and old.structured_content["episode_ids"], text_of(old)
    assert both.is_error and "both content and text" in text_of(both)
    assert neither.is_error and "needs content" in text_of(neither)


def test_rest_and_mcp_return_one_set_of_models(rest: httpx.Client, tmp_path: Path) -> None:
    """The tools' output schemas are the REST API's response schemas, field for field."""
    components = rest.get("/openapi.json").json()["components"]["schemas"]
    _, schemas = mcp_calls(tmp_path / "memory.db")
    for tool, model in zip(("remember", "recall", "history", "forget"), SHARED, strict=True):
        assert schemas[tool]["title"] == model
        assert set(schemas[tool]["properties"]) == set(components[model]["properties"]), model
        assert set(schemas[tool].get("required", ())) == set(components[model].get("required", ())), model


def test_a_remember_through_both_servers_answers_the_same_fields(rest: httpx.Client, tmp_path: Path) -> None:
    body = {"content": "I live in Oslo.", "source_id": "m1", "at": "2026-01-10T09:00:00Z"}
    over_rest = rest.post("/v1/users/u-same/memories", json=body)
    assert over_rest.status_code == 201, over_rest.text
    (over_mcp, recalled, forgot), _ = mcp_calls(
        tmp_path / "memory.db", ("remember", {"user_id": "u1", **body}),
        ("recall", {"user_id": "u1", "query": "Oslo"}), ("forget", {"user_id": "u1", "source_ids": ["m1"]}))
    assert set(over_mcp.structured_content) == set(over_rest.json())
    assert over_mcp.structured_content["facts"] == over_rest.json()["facts"]
    hits = rest.get("/v1/users/u-same/recall", params={"q": "Oslo"}).json()
    assert set(recalled.structured_content) == set(hits) == {"query", "hits"}
    assert set(recalled.structured_content["hits"][0]) == set(hits["hits"][0])
    receipt = rest.request("DELETE", "/v1/users/u-same/memories", params={"source_id": "m1"}).json()
    assert set(forgot.structured_content) == set(receipt)
    assert forgot.structured_content["deleted"] == receipt["deleted"] and receipt["deleted"]["episodes"] == 1


# -- 2. REST validation errors in the one error shape -------------------------------------------


@pytest.mark.parametrize(("method", "path", "kwargs", "detail"), [
    ("GET", "/recall", {"params": {"q": "where", "as_of": "yesterday"}},
     "query.as_of: is not an ISO 8601 date or date-time; write e.g. 2026-02-01 or 2026-02-01T18:00:00Z"),
    ("GET", "/recall", {"params": {"q": "where", "k": "many"}}, "query.k: must be a whole number"),
    ("GET", "/recall", {"params": {"q": "where", "k": 1000}}, "query.k: must be at most 100"),
    ("GET", "/recall", {}, "query.q: is required"),
    ("POST", "/memories", {"json": {"content": "hi", "colour": "blue"}},
     "body.colour: is not a field this request takes; check its name"),
    ("POST", "/memories", {"json": {"text": "hi"}},
     "body.content: is required; body.text: is not a field this request takes; check its name"),
    ("POST", "/memories", {"json": {"content": 5}}, "body.content: must be text (a string) or a list"),
    ("POST", "/memories", {"json": {"content": [{"content": "hi", "role": "boss"}]}},
     "body.content[0].role: must be one of 'user', 'assistant', 'system' or 'tool'"),
    ("POST", "/memories", {"content": b"{not json", "headers": {"Content-Type": "application/json"}},
     "body: is not valid JSON (at character 1); send one JSON object"),
], ids=["time", "k-type", "k-range", "missing-q", "extra", "text-not-content", "union", "nested", "json"])
def test_rest_validation_errors_have_the_error_shape_and_our_words(rest: httpx.Client, method: str, path: str,
                                                                   kwargs: dict, detail: str) -> None:
    r = rest.request(method, f"/v1/users/u-bad{path}", **kwargs)
    assert r.status_code == 422, r.text
    assert r.json() == {"error": "InvalidInput", "detail": detail}
    assert "pydantic" not in r.text


def test_the_openapi_document_declares_the_one_422_shape(rest: httpx.Client) -> None:
    doc = rest.get("/openapi.json").json()
    recall = doc["paths"]["/v1/users/{user_id}/recall"]["get"]["responses"]["422"]
    assert recall["content"]["application/json"]["schema"] == {"$ref": "#/components/schemas/ErrorOut"}
    assert "HTTPValidationError" not in doc["components"]["schemas"]


# -- 3. MCP argument errors in our words ----------------------------------------------------------


def test_mcp_argument_errors_name_the_field_and_the_problem_without_a_link(env: None, tmp_path: Path) -> None:
    results, _ = mcp_calls(
        tmp_path / "memory.db",
        ("recall", {"query": "where"}),
        ("recall", {"user_id": "u1", "query": "where", "k": "many"}),
        ("recall", {"user_id": "u1", "query": "where", "k": 1000}),
        ("remember", {"user_id": "u1", "content": "I live in Oslo.", "role": "boss"}),
        ("forget", {"user_id": "u1", "source_ids": "m1"}),
    )
    said = [text_of(r) for r in results]
    assert all(r.is_error for r in results), said
    assert said == [
        "recall was called with arguments it cannot take: user_id: is required",
        "recall was called with arguments it cannot take: k: must be a whole number",
        "recall was called with arguments it cannot take: k: must be at most 100",
        "remember was called with arguments it cannot take: role: must be one of 'user', 'assistant', "
        "'system' or 'tool'",
        "forget was called with arguments it cannot take: source_ids: must be a list",
    ]
    assert not any("pydantic" in s or "http" in s for s in said)


# -- 4. docs/rest.md names what the server serves ---------------------------------------------------


def test_every_server_path_docs_rest_md_names_is_served(rest: httpx.Client) -> None:
    """docs/rest.md listed /redoc (a 404) and called /docs a Swagger UI (a static page)."""
    text = (ROOT / "docs" / "rest.md").read_text()
    named = {part for part in text.split("`")[1::2]
             if part.startswith("/") and "{" not in part and " " not in part and "…" not in part}
    assert {"/docs", "/openapi.json", "/healthz"} <= named
    answers = {path: rest.get(path).status_code for path in named}
    assert all(code != 404 for code in answers.values()), answers
    for line in text.splitlines():
        if "`/docs`" in line:
            assert "Swagger" not in line, line  # the page is static: no Swagger UI is served


# -- 5. one message size limit for every frontend ------------------------------------------------------

LIMIT_WORDS = ("characters; one message may have at most", "max_message_chars", "DUALMEM_MAX_MESSAGE_CHARS",
               "A long document is yours to split")


def dualmem(*argv: str, env: dict[str, str], stdin: str | None = None) -> subprocess.CompletedProcess:
    """The installed ``dualmem`` entry point, on this checkout's code."""
    exe = Path(sys.executable).with_name("dualmem")
    return subprocess.run([str(exe), *argv], capture_output=True, text=True, timeout=120, input=stdin,
                          env={**os.environ, "PYTHONPATH": str(ROOT), **env})


def test_the_cli_refuses_a_message_over_the_default_limit(env: None, tmp_path: Path) -> None:
    """Issue 36: `dualmem remember` took a 1 MB message (10.7 s of extraction); now 100,000 characters."""
    store = f"sqlite:///{tmp_path / 'memory.db'}"
    long = "I live in Oslo. " * 6251  # 100,016 characters, 100,015 once the CLI strips it
    done = dualmem("remember", "--store", store, "--user", "u1", "-", env={}, stdin=long)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "content has 100,015 characters; one message may have at most 100,000" in done.stderr
    assert all(words in done.stderr for words in LIMIT_WORDS) and "Traceback" not in done.stderr
    assert not (tmp_path / "memory.db").exists()  # refused before the store was opened


def test_one_limit_for_the_cli_rest_and_mcp(env: None, tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DUALMEM_MAX_MESSAGE_CHARS", "40")
    fits, over = "I live in Oslo.", "I live in Oslo and I work at Acme in Bergen."  # 15 and 44 characters
    store = f"sqlite:///{tmp_path / 'cli.db'}"
    cli = [dualmem("remember", "--store", store, "--user", "u1", text, env={}) for text in (fits, over)]
    assert cli[0].returncode == 0, cli[0].stderr
    assert cli[1].returncode == 1
    assert "content has 44 characters; one message may have at most 40" in cli[1].stderr

    server = LiveServer(create_app(f"sqlite:///{tmp_path / 'rest.db'}")).start()
    try:
        with httpx.Client(base_url=server.url, timeout=60) as http:
            ok = http.post("/v1/users/u1/memories", json={"content": fits})
            one = http.post("/v1/users/u1/memories", json={"content": over})
            listed = http.post("/v1/users/u1/memories",
                               json={"content": [{"content": fits}, {"content": over}]})
    finally:
        server.stop()
    assert ok.status_code == 201, ok.text
    assert one.status_code == 422 and one.json()["error"] == "InvalidInput"
    assert one.json()["detail"].startswith("content has 44 characters; one message may have at most 40")
    assert listed.status_code == 422 and listed.json()["detail"].startswith("content[1] has 44 characters")
    assert all(words in one.json()["detail"] for words in LIMIT_WORDS)

    (small, big), _ = mcp_calls(tmp_path / "mcp.db", ("remember", {"user_id": "u1", "content": fits}),
                                ("remember", {"user_id": "u1", "content": over}))
    assert not small.is_error and big.is_error
    assert text_of(big).endswith(one.json()["detail"])  # the same words on every frontend


def test_a_bad_limit_setting_is_refused_naming_it(env: None, tmp_path: Path) -> None:
    done = dualmem("recall", "--store", f"sqlite:///{tmp_path / 'm.db'}", "--user", "u1", "x",
                   env={"DUALMEM_MAX_MESSAGE_CHARS": "lots"})
    assert done.returncode == 1 and "DUALMEM_MAX_MESSAGE_CHARS='lots' should be a whole number" in done.stderr


# -- 6. CLI times at the ends of the calendar -------------------------------------------------------


@pytest.mark.parametrize("when", ["0001-01-01T00:00:00+14:00", "9999-12-31T23:59:59-14:00"])
def test_cli_times_off_the_ends_of_the_calendar_are_usage_errors_with_the_reason(env: None, tmp_path: Path,
                                                                                 when: str) -> None:
    """Issue 36: `dualmem recall --as-of 0001-01-01T00:00:00+14:00` said "unexpected error: OverflowError"."""
    store = f"sqlite:///{tmp_path / 'memory.db'}"
    made = dualmem("remember", "--store", store, "--user", "u1", "I live in Oslo.", env={})
    assert made.returncode == 0, made.stderr
    for argv in (["recall", "--as-of", when, "where"], ["recall", "--known-at", when, "where"],
                 ["remember", "--at", when, "I live in Rome."]):
        done = dualmem(argv[0], "--store", store, "--user", "u1", *argv[1:], env={})
        assert done.returncode == 2, (argv, done.stderr)
        assert f"{when} falls outside the calendar once converted to UTC" in done.stderr, done.stderr
        assert "give a time between 0001-01-02 and 9999-12-30" in done.stderr
        assert "unexpected error" not in done.stderr and "Traceback" not in done.stderr
    inside = dualmem("recall", "--store", store, "--user", "u1", "--as-of", "9999-12-31T23:59:59Z", "where",
                     env={})
    assert inside.returncode == 0, inside.stderr


# -- 7. REST marks a second rollback of the same run ------------------------------------------------


def test_rest_marks_a_second_rollback_as_already_rolled_back(rest: httpx.Client) -> None:
    """Issue 36: the second rollback answered the first one again, counts and all, unmarked (the CLI's
    --json says already_rolled_back)."""
    user = "u-twice"
    for text, at, source in (("I live in Seattle.", "2024-01-10T09:00:00Z", "m1"),
                             ("I moved to Portland last week.", "2025-06-10T09:00:00Z", "m2")):
        made = rest.post(f"/v1/users/{user}/memories", json={"content": text, "at": at, "source_id": source})
        assert made.status_code == 201, made.text
    run = rest.post(f"/v1/users/{user}/editor/runs").json()
    assert run["operations"] > 0, run
    first = rest.post(f"/v1/users/{user}/editor/runs/{run['run_id']}/rollback")
    assert first.status_code == 200 and first.json()["already_rolled_back"] is False, first.text
    second = rest.post(f"/v1/users/{user}/editor/runs/{run['run_id']}/rollback")
    assert second.status_code == 200, second.text
    same = ("run_id", "kind", "rollback_of", "operations", "counts", "applied_at")
    assert {k: second.json()[k] for k in same} == {k: first.json()[k] for k in same}
    assert second.json()["already_rolled_back"] is True
    kinds = [r["kind"] for r in rest.get(f"/v1/users/{user}/editor/runs").json()["runs"]]
    assert kinds == ["edit", "rollback"]  # nothing new was recorded
    assert rest.post(f"/v1/users/{user}/editor/runs/run-nope/rollback").status_code == 404
