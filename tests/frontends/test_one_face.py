"""Issue 36, "one face": the frontends agree on names, shapes, errors and limits. Through the real
frontends: a uvicorn server and httpx, the MCP SDK's own client, ``dualmem`` subprocesses."""

from __future__ import annotations

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
