"""API tokens on MCP over streamable HTTP (issue 36): a real ``python -m dualmem_core.mcp_server
--http`` process and the ``mcp`` package's own client with an ``Authorization`` header. No token and
a wrong one are refused at the HTTP door (401); another user's token gets a tool error naming the
user; the right token and an all-users one work."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.exceptions import MCPError
from mcp.types import CallToolResult
from serving import free_port, wait_until_listening
from test_mcp import server_env

from dualmem_core.service.tokens import TokenFile, tokens_path

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def mcp_http(tmp_path: Path) -> Iterator[tuple[str, TokenFile]]:
    """An MCP HTTP server on loopback over a store that already has tokens (so auth is in force)."""
    env = server_env(tmp_path)
    tokens = TokenFile(tokens_path(env["DUALMEM_STORE"]))
    tokens.create(["nobody"])  # any token puts auth in force; the tests make their own
    port = free_port()
    log = (tmp_path / "server.log").open("w")
    command = [sys.executable, "-m", "dualmem_core.mcp_server", "--http", "--port", str(port)]
    process = subprocess.Popen(command, cwd=ROOT, env={**os.environ, **env}, stdin=subprocess.DEVNULL,
                               stdout=subprocess.DEVNULL, stderr=log)
    try:
        wait_until_listening(process, port, tmp_path / "server.log")
        yield f"http://127.0.0.1:{port}/mcp", tokens
    finally:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        log.close()


async def _calls(url: str, token: str | None, *calls: tuple[str, dict[str, Any]]) -> list[CallToolResult]:
    headers = {"Authorization": f"Bearer {token}"} if token else None
    async with AsyncExitStack() as stack:
        client = await stack.enter_async_context(create_mcp_http_client(headers=headers))
        read, write = await stack.enter_async_context(streamable_http_client(url, http_client=client))
        session = await stack.enter_async_context(ClientSession(read, write, read_timeout_seconds=60))
        await session.initialize()
        return [await session.call_tool(name, arguments) for name, arguments in calls]


def calls(url: str, token: str | None, *each: tuple[str, dict[str, Any]]) -> list[CallToolResult]:
    return anyio.run(_calls, url, token, *each)


def text(result: CallToolResult) -> str:
    return "".join(c.text for c in result.content if c.type == "text")


def test_the_token_matrix_over_mcp_http(mcp_http: tuple[str, TokenFile]) -> None:
    url, tokens = mcp_http
    _, u1 = tokens.create(["u1"])
    _, admin = tokens.create([], all_users=True)

    for token in (None, "dm_wrong"):  # refused before any session exists
        answer = httpx.post(url, json={}, headers={"Accept": "application/json, text/event-stream",
                                                  **({"Authorization": f"Bearer {token}"} if token else {})})
        assert answer.status_code == 401, answer.text
        assert answer.headers["www-authenticate"].startswith('Bearer realm="dualmem"')
        with pytest.raises(ExceptionGroup) as refused:  # the SDK client's initialize fails
            calls(url, token, ("recall", {"user_id": "u1", "query": "Acme"}))
        assert refused.group_contains(MCPError, match="error response", depth=2)

    remembered, recalled, other = calls(
        url, u1, ("remember", {"user_id": "u1", "content": "I work at Acme.", "source_id": "h1"}),
        ("recall", {"user_id": "u1", "query": "Acme"}), ("recall", {"user_id": "u2", "query": "Acme"}))
    assert not remembered.is_error and not recalled.is_error, text(remembered) + text(recalled)
    assert (recalled.structured_content or {})["hits"][0]["sources"] == ["h1"]
    assert other.is_error and "reaches only u1" in text(other) and "'u2'" in text(other), text(other)
    forget = calls(url, u1, ("forget", {"user_id": "u2", "everything": True}))[0]
    assert forget.is_error  # nothing of u2's is touched with u1's token

    mine, theirs = calls(url, admin, ("recall", {"user_id": "u1", "query": "Acme"}),
                         ("recall", {"user_id": "u2", "query": "Acme"}))
    assert not mine.is_error and (mine.structured_content or {})["hits"]
    assert not theirs.is_error
    # wrong tokens from this address (a few were sent above) reach the limit of 10 a minute: 429
    wrong = [httpx.post(url, json={}, headers={"Authorization": "Bearer dm_guess"}) for _ in range(10)]
    assert [r.status_code for r in wrong][-1] == 429 and set(r.status_code for r in wrong) == {401, 429}
    assert 0 < int(wrong[-1].headers["retry-after"]) <= 60
