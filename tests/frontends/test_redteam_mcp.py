"""The red-team pass on MCP (issue 36): one table of bad tool calls, sent with the ``mcp`` package's
own client to a real ``python -m dualmem_core.mcp_server`` over stdio and over streamable HTTP.
Every bad call is a tool error saying what was wrong, the session stays up, and nothing is written.
The rows marked "fixed" failed before the pass."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from serving import free_port, wait_until_listening
from test_mcp import server_env

ROOT = Path(__file__).resolve().parents[2]

CALENDAR_EDGE = "0001-01-01T00:00:00+14:00"  # year 0 in UTC
REFUSED: list[tuple[str, dict[str, Any], str]] = [  # (tool, arguments, words the error holds)
    ("remember", {"user_id": "u1", "content": ""}, "empty"),
    ("remember", {"user_id": "u1", "content": " \n"}, "empty"),
    ("remember", {"user_id": "u1", "content": 5}, "content: must be text"),
    ("remember", {"user_id": "u1", "content": ["a", "b"]}, "content: must be text"),
    ("remember", {"user_id": "u1", "content": {"x": 1}}, "content: must be text"),
    ("remember", {"user_id": "u1"}, "needs content"),
    ("remember", {"user_id": "u1", "content": "x", "text": "y"}, "both content and text"),
    ("remember", {"user_id": "u1", "content": "x", "source_ids": ["s"]}, "source_ids: is not a"),  # fixed
    ("remember", {"user_id": "u1", "content": "x", "sesion_id": "s"}, "sesion_id: is not a field"),  # fixed
    ("remember", {"user_id": 5, "content": "x"}, "user_id: must be text"),
    ("remember", {"user_id": None, "content": "x"}, "user_id: must be text"),
    ("remember", {"user_id": "../x", "content": "x"}, "is not allowed"),
    ("remember", {"user_id": " u", "content": "x"}, "is not allowed"),
    ("remember", {"user_id": "u" * 600, "content": "x"}, "at most 512"),
    ("remember", {"user_id": "u1", "content": "x", "source_id": "a\x00b"}, "source_id holds a NUL"),  # fixed
    ("remember", {"user_id": "u1", "content": "x", "at": 17}, "at: must be text"),
    ("remember", {"user_id": "u1", "content": "x", "at": "2024-02-30"}, "not an ISO 8601"),
    ("remember", {"user_id": "u1", "content": "x", "at": CALENDAR_EDGE}, "outside the calendar"),
    ("remember", {"user_id": "u1", "content": "x", "role": "god"}, "role: must be one of"),
    ("remember", {"user_id": "u1", "content": "x " * 50_001}, "at most 100,000"),
    ("recall", {"user_id": "u1", "query": "x", "k": 10**30}, "k: must be at most 100"),
    ("recall", {"user_id": "u1", "query": "x", "k": -5}, "k: must be at least 1"),
    ("recall", {"user_id": "u1", "query": "x", "k": 2.5}, "k: must be a whole number"),
    ("recall", {"user_id": "u1", "query": "x", "as_of": {"y": 1}}, "as_of: must be text"),
    ("recall", {"user_id": "u1", "query": "x", "as_of": CALENDAR_EDGE}, "outside the calendar"),
    ("recall", {"user_id": "u1", "query": ""}, "query: must not be empty"),
    ("recall", {"user_id": "u1", "query": "x", "session_id": "\x00"}, "session_id holds a NUL"),  # fixed
    ("recall", {"user_id": "u1", "query": "x", "limit": 3}, "limit: is not a field"),  # fixed
    ("history", {"user_id": "u1", "memory_id": ""}, "memory_id: must not be empty"),
    ("history", {"user_id": "u1", "memory_id": "../../x"}, "no memory '../../x'"),
    ("forget", {"user_id": "u1", "source_ids": "s1"}, "source_ids: must be a list"),
    ("forget", {"user_id": "u1", "source_ids": [None]}, "source_ids[0]: must be text"),
    ("forget", {"user_id": "u1", "source_ids": ["a\x00b"]}, "source_ids[0] holds a NUL"),  # fixed
    ("forget", {"user_id": "u1", "everything": False}, "needs source_ids="),
    ("forget", {"user_id": "u1", "everything": "yes"}, "everything: must be true or false"),  # fixed
    ("forget", {"user_id": "u1", "everything": "true"}, "everything: must be true or false"),  # fixed
    ("forget", {"user_id": "u1", "everything": 1}, "everything: must be true or false"),  # fixed
    ("forget", {"user_id": "u1", "memory_id": ""}, "the memory id is empty"),  # fixed
    ("remember", {"user_id": "u1", "content": "x", "source_id": " s1"}, "starts or ends with whitespace"),
    ("forget", {"user_id": "u1", "source_id": "s1"}, "source_id: is not a field"),  # fixed: it was ignored
    ("nosuchtool", {"user_id": "u1"}, "Unknown tool"),
]

ANSWERED: list[tuple[str, dict[str, Any]]] = [  # held: odd but harmless calls work
    ("remember", {"user_id": "u1", "content": "a\x00b \x1b[31m zero\u200bwidth", "source_id": "odd"}),
    ("recall", {"user_id": "u1", "query": "x", "as_of": "3000-01-01"}),
    ("recall", {"user_id": "u1", "query": "x" * 200_000}),
    ("recall", {"user_id": "nobody", "query": "x"}),
    ("forget", {"user_id": "u1", "source_ids": []}),
]


def episodes(db: Path) -> int:
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
        return conn.execute("SELECT count(*) FROM episodes").fetchone()[0]


async def _table(session: ClientSession, db: Path) -> None:
    seed = await session.call_tool("remember", {"user_id": "u1", "content": "I live in Oslo.",
                                                "source_id": "s1"})
    assert not seed.is_error
    stored = episodes(db)
    for tool, arguments, words in REFUSED:
        result = await session.call_tool(tool, arguments)
        text = "".join(c.text for c in result.content if c.type == "text")
        assert result.is_error and words in text, (tool, str(arguments)[:80], text)
        assert "pydantic" not in text and "Traceback" not in text, text
    assert episodes(db) == stored  # nothing refused was written
    for tool, arguments in ANSWERED:
        result = await session.call_tool(tool, arguments)
        assert not result.is_error, (tool, str(arguments)[:80], result.content)
    assert episodes(db) == stored + 1


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_every_bad_tool_call_is_a_tool_error_that_says_why(tmp_path: Path, transport: str) -> None:
    env = server_env(tmp_path)
    db = tmp_path / "memory.db"
    log = tmp_path / "server.log"

    async def over_stdio() -> None:
        params = StdioServerParameters(command=sys.executable, args=["-m", "dualmem_core.mcp_server"],
                                       env=env, cwd=str(ROOT))
        with log.open("w") as errlog:
            async with AsyncExitStack() as stack:
                read, write = await stack.enter_async_context(stdio_client(params, errlog=errlog))
                session = await stack.enter_async_context(ClientSession(read, write, read_timeout_seconds=60))
                await session.initialize()
                await _table(session, db)

    async def over_http(url: str) -> None:
        async with AsyncExitStack() as stack:
            read, write = await stack.enter_async_context(streamable_http_client(url))
            session = await stack.enter_async_context(ClientSession(read, write, read_timeout_seconds=60))
            await session.initialize()
            await _table(session, db)

    if transport == "stdio":
        anyio.run(over_stdio)
        return
    port = free_port()
    with log.open("w") as errlog:
        command = [sys.executable, "-m", "dualmem_core.mcp_server", "--http", "--port", str(port)]
        server = subprocess.Popen(command, cwd=ROOT, env={**os.environ, **env}, stdin=subprocess.DEVNULL,
                                  stdout=subprocess.DEVNULL, stderr=errlog)
        try:
            wait_until_listening(server, port, log)
            anyio.run(over_http, f"http://127.0.0.1:{port}/mcp")
        finally:
            server.terminate()
            server.wait(timeout=30)
