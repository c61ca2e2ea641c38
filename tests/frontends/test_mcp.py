"""The MCP server, through a real MCP client: the SDK's client starts ``python -m
dualmem_core.mcp_server`` over stdio (and, once, over streamable HTTP on loopback) against a
temporary SQLite store, lists the tools and calls each of them."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Awaitable, Callable
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from mcp import Client, ClientSession, StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.types import CallToolResult
from serving import free_port, wait_until_listening

from dualmem_core.app import open_services
from dualmem_core.errors import InvalidInput
from dualmem_core.mcp_server import build_server, is_loopback, parse_time, run_server

ROOT = Path(__file__).resolve().parents[2]
TOOLS = {"remember", "recall", "forget", "history", "upcoming", "profile"}
Session = Callable[[ClientSession], Awaitable[None]]


def server_env(tmp_path: Path) -> dict[str, str]:
    return {"DUALMEM_STORE": f"sqlite:///{tmp_path / 'memory.db'}", "DUALMEM_EMBEDDER": "hashing",
            "DUALMEM_CACHE_MODE": "off"}


def over_stdio(tmp_path: Path, body: Session, env: dict[str, str] | None = None) -> None:
    """Run ``body`` in a client session with a server subprocess (its environment ``env``, by
    default ``server_env``); the SDK stops the process on exit. The server's stderr is kept in
    ``tmp_path / "server.log"``."""
    params = StdioServerParameters(command=sys.executable, args=["-m", "dualmem_core.mcp_server"],
                                   env=env or server_env(tmp_path), cwd=str(ROOT))
    log = tmp_path / "server.log"

    async def run() -> None:
        with log.open("w") as errlog:
            async with AsyncExitStack() as stack:
                read, write = await stack.enter_async_context(stdio_client(params, errlog=errlog))
                session = await stack.enter_async_context(ClientSession(read, write, read_timeout_seconds=60))
                await session.initialize()
                await body(session)

    try:
        anyio.run(run)
    except BaseException:
        print("server stderr:\n" + log.read_text(), file=sys.stderr)
        raise


async def call(session: ClientSession, tool: str, **arguments: Any) -> dict:
    result = await session.call_tool(tool, arguments)
    assert isinstance(result, CallToolResult)
    text = "".join(c.text for c in result.content if c.type == "text")
    assert not result.is_error, text
    assert text  # the short rendering for the model
    return result.structured_content or {}


def test_tools_are_listed_with_typed_schemas_that_require_user_id(tmp_path: Path) -> None:
    async def body(session: ClientSession) -> None:
        tools = {t.name: t for t in (await session.list_tools()).tools}
        assert set(tools) == TOOLS
        for tool in tools.values():
            assert "user_id" in tool.input_schema["required"], tool.name
            assert tool.description and "Call it" in tool.description, tool.name
            assert tool.output_schema is not None, tool.name
        recall = tools["recall"].input_schema["properties"]
        assert {"query", "k", "as_of", "known_at", "session_id"} <= set(recall)
        assert recall["k"]["type"] == "integer"
        assert tools["recall"].annotations.read_only_hint
        assert tools["forget"].annotations.destructive_hint

    over_stdio(tmp_path, body)


def test_remember_recall_history_forget_over_stdio(tmp_path: Path) -> None:
    async def body(session: ClientSession) -> None:
        first = await call(session, "remember", user_id="u1", content="I live in Seattle.", session_id="s1",
                           source_id="m1", at="2026-01-10T09:00:00Z")
        assert [f["text"] for f in first["facts"]] == ["user lives in Seattle"]
        moved = await call(session, "remember", user_id="u1", content="I moved to Portland last week.",
                           session_id="s1", source_id="m2", at="2026-03-02T18:00:00+00:00")
        assert moved["facts"][0]["valid_from"].startswith("2026-02-23")

        now = (await call(session, "recall", user_id="u1", query="Where does the user live?"))["hits"]
        texts = [h["text"] for h in now]
        assert "user lives in Portland" in texts and "user lives in Seattle" in texts
        portland = next(h for h in now if h["text"] == "user lives in Portland")
        assert portland["sources"] == ["m2"] and portland["current"] is True
        assert portland["valid_to"] is None and set(portland["why"])

        february = await call(session, "recall", user_id="u1", query="Where did the user live?",
                              as_of="2026-02-01")
        assert not any("Portland" in h["text"] for h in february["hits"])
        assert any(h["text"] == "user lives in Seattle" for h in february["hits"])

        story = await call(session, "history", user_id="u1", memory_id=portland["memory_id"])
        assert story["sources"] == ["m2"]
        assert [v["text"] for v in story["versions"]] == ["user lives in Portland"]

        receipt = await call(session, "forget", user_id="u1", source_ids=["m2"])
        assert portland["memory_id"] in receipt["memory_ids"]
        after = (await call(session, "recall", user_id="u1", query="Where does the user live?"))["hits"]
        assert after and not any("Portland" in h["text"] for h in after)
        assert all(h["sources"] == ["m1"] for h in after)

    over_stdio(tmp_path, body)


def test_bad_input_is_a_tool_error_and_the_server_stays_up(tmp_path: Path) -> None:
    async def body(session: ClientSession) -> None:
        bad = await session.call_tool("recall", {"user_id": "u1", "query": "home", "as_of": "last Tuesday"})
        assert bad.is_error
        message = bad.content[0].text
        assert "as_of" in message and "ISO 8601" in message

        unknown = await session.call_tool("history", {"user_id": "u1", "memory_id": "mem_nope"})
        assert unknown.is_error and "mem_nope" in unknown.content[0].text

        nothing = await session.call_tool("forget", {"user_id": "u1"})
        assert nothing.is_error and "source_ids" in nothing.content[0].text

        missing = await session.call_tool("recall", {"query": "home"})  # no user_id: schema refuses
        assert missing.is_error and "user_id" in missing.content[0].text

        await call(session, "remember", user_id="u1", content="I live in Lisbon.", source_id="m1")
        hits = (await call(session, "recall", user_id="u1", query="Lisbon"))["hits"]
        assert hits[0]["sources"] == ["m1"]

    over_stdio(tmp_path, body)


def test_an_unreadable_line_gets_a_json_rpc_error_not_silence(tmp_path: Path) -> None:
    import json
    import queue
    import threading

    server = subprocess.Popen([sys.executable, "-m", "dualmem_core.mcp_server"], cwd=ROOT,
                              env={**os.environ, **server_env(tmp_path)}, stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    replies: queue.Queue = queue.Queue()
    threading.Thread(target=lambda: [replies.put(json.loads(line)) for line in server.stdout],
                     daemon=True).start()

    def ask(line: str) -> dict:
        server.stdin.write(line.encode() + b"\n")
        server.stdin.flush()
        return replies.get(timeout=60)  # before the fix: no answer ever came

    try:
        assert ask("this is not JSON")["error"]["code"] == -32700
        call = {"jsonrpc": "2.0", "id": 5, "method": "tools/call",
                "params": {"name": "recall", "arguments": {"user_id": "u1", "query": "a \ud800 b"}}}
        reply = ask(json.dumps(call))  # json.dumps writes the lone surrogate as the escape \\ud800
        assert reply["id"] == 5 and reply["error"]["code"] == -32600
        assert "surrogate" in reply["error"]["message"]
        assert ask('{"id": 7, "nothing": "else"}') == {
            "jsonrpc": "2.0", "id": 7, "error": {"code": -32600, "message": (
                "Invalid request: not a JSON-RPC 2.0 message (jsonrpc, id, method, params)")}}
        hello = {"jsonrpc": "2.0", "id": 8, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}
        assert ask(json.dumps(hello))["result"]["serverInfo"]["name"] == "dualmem"  # still serving
    finally:
        server.kill()
        server.wait(timeout=30)


def test_forget_everything_in_process(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DUALMEM_EMBEDDER", "hashing")
    monkeypatch.delenv("DUALMEM_LLM_MODEL", raising=False)

    async def run() -> None:
        with open_services(f"sqlite:///{tmp_path / 'memory.db'}") as services:
            async with Client(build_server(services.writer)) as client:
                for n, text in enumerate(["I live in Oslo.", "My sister Ada lives in Bergen."]):
                    await client.call_tool("remember", {"user_id": "u1", "content": text,
                                                        "source_id": f"m{n}"})
                await client.call_tool("remember", {"user_id": "u2", "content": "I live in Rome."})
                gone = await client.call_tool("forget", {"user_id": "u1", "everything": True})
                assert not gone.is_error and gone.structured_content["deleted"]["episodes"] == 2
                left = await client.call_tool("recall", {"user_id": "u1", "query": "Oslo"})
                assert left.structured_content == {"query": "Oslo", "hits": []}
                assert left.content[0].text == "No memories match."
                other = await client.call_tool("recall", {"user_id": "u2", "query": "Rome"})
                assert other.structured_content["hits"]

    anyio.run(run)


def test_streamable_http_on_loopback(tmp_path: Path) -> None:
    port = free_port()
    log, out = (tmp_path / "server.log").open("w"), (tmp_path / "server.out").open("w")
    process = subprocess.Popen(
        [sys.executable, "-m", "dualmem_core.mcp_server", "--http", "--port", str(port)],
        cwd=ROOT, env={**os.environ, **server_env(tmp_path)},
        stdin=subprocess.DEVNULL, stdout=out, stderr=log,
    )
    try:
        wait_until_listening(process, port, tmp_path / "server.log")

        async def run() -> None:
            async with AsyncExitStack() as stack:
                read, write = await stack.enter_async_context(
                    streamable_http_client(f"http://127.0.0.1:{port}/mcp"))
                session = await stack.enter_async_context(ClientSession(read, write, read_timeout_seconds=60))
                await session.initialize()
                assert {t.name for t in (await session.list_tools()).tools} == TOOLS
                await call(session, "remember", user_id="u1", content="I work at Acme.", source_id="h1")
                hits = (await call(session, "recall", user_id="u1", query="Acme"))["hits"]
                assert hits and hits[0]["sources"] == ["h1"]

        anyio.run(run)
        rebound = httpx.post(f"http://127.0.0.1:{port}/mcp", json={}, timeout=10,
                             headers={"Host": "attacker.example", "Accept": "application/json"})
        assert rebound.status_code == 421  # DNS rebinding: a foreign Host header is refused
    finally:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        log.close()
        out.close()
    assert f"http://127.0.0.1:{port}" in (tmp_path / "server.log").read_text()
    assert (tmp_path / "server.out").read_text() == ""  # every log line went to stderr


def test_http_refuses_a_non_loopback_host_without_tokens(tmp_path: Path) -> None:
    # allow_remote no longer opens the door: beyond loopback only API tokens do (test_mcp_tokens.py)
    for allow_remote in (False, True):
        with pytest.raises(InvalidInput, match="dualmem token create"):
            run_server("http", host="0.0.0.0", port=8765, store_url=f"sqlite:///{tmp_path / 'unused.db'}",
                       allow_remote=allow_remote)
    assert not (tmp_path / "unused.db").exists()
    with pytest.raises(InvalidInput, match="unknown MCP transport"):
        run_server("sse")
    assert is_loopback("127.0.0.1") and is_loopback("localhost") and is_loopback("::1")
    assert not is_loopback("0.0.0.0") and not is_loopback("192.168.1.5") and not is_loopback("example.com")


def test_parse_time_reads_iso_dates_and_says_what_is_wrong() -> None:
    assert parse_time("2026-02-01", "as_of").isoformat() == "2026-02-01T00:00:00+00:00"
    assert parse_time("2026-02-01T18:00:00Z", "as_of").isoformat() == "2026-02-01T18:00:00+00:00"
    assert parse_time("2026-02-01T18:00:00+02:00", "as_of").hour == 16
    assert parse_time("2026-02-01T18:00", "as_of").tzinfo is not None  # no zone: UTC
    assert parse_time(None, "as_of") is None
    with pytest.raises(InvalidInput, match="known_at='yesterday' is not an ISO 8601"):
        parse_time("yesterday", "known_at")


def test_a_stdio_session_ends_cleanly_through_the_sdk_client(tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 36: every stdio session ended with an ExceptionGroup and exit code 1 once the host
    closed stdin. A shell records the server's exit code; the client's grace period is raised so a
    slow machine is not mistaken for a hung server."""
    import mcp.client.stdio

    monkeypatch.setattr(mcp.client.stdio, "PROCESS_TERMINATION_TIMEOUT", 60.0)
    rc_file, log = tmp_path / "rc", tmp_path / "server.log"
    params = StdioServerParameters(
        command="sh", args=["-c", '"$0" -m dualmem_core.mcp_server; echo $? > "$1"', sys.executable,
                            str(rc_file)],
        env=server_env(tmp_path), cwd=str(ROOT))

    async def run() -> None:
        with log.open("w") as errlog:
            async with AsyncExitStack() as stack:
                read, write = await stack.enter_async_context(stdio_client(params, errlog=errlog))
                session = await stack.enter_async_context(ClientSession(read, write, read_timeout_seconds=60))
                await session.initialize()
                assert {t.name for t in (await session.list_tools()).tools} == TOOLS
                await call(session, "remember", user_id="u1", content="I live in Oslo.", source_id="m1")
                hits = (await call(session, "recall", user_id="u1", query="Oslo"))["hits"]
                assert hits and hits[0]["sources"] == ["m1"]
                receipt = await call(session, "forget", user_id="u1", source_ids=["m1"])
                assert receipt["deleted"]["episodes"] == 1

    anyio.run(run)
    assert rc_file.read_text().strip() == "0", log.read_text()
    assert "Traceback" not in log.read_text()


def test_requests_piped_before_stdin_closes_are_all_answered(tmp_path: Path) -> None:
    """Issue 36: a client that writes its requests and closes stdin at once lost every reply still
    being worked on when input ended (the SDK cancels those handlers), and the server exited 1."""
    import json

    def tool(n: int, name: str, **arguments: Any) -> dict:
        return {"jsonrpc": "2.0", "id": n, "method": "tools/call",
                "params": {"name": name, "arguments": arguments}}

    requests = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
         },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
        tool(3, "remember", user_id="u1", content="I live in Oslo.", source_id="m1"),
        tool(4, "recall", user_id="u1", query="Oslo"),
        tool(5, "remember", user_id="u1", content="I work at Acme.", source_id="m2"),
    ]
    done = subprocess.run([sys.executable, "-m", "dualmem_core.mcp_server"], cwd=ROOT,
                          env={**os.environ, **server_env(tmp_path)}, timeout=120, capture_output=True,
                          input="".join(json.dumps(r) + "\n" for r in requests).encode())
    replies = {r["id"]: r for r in map(json.loads, done.stdout.decode().splitlines())}
    assert sorted(replies) == [1, 2, 3, 4, 5], done.stderr.decode()
    assert all("result" in r and not r["result"].get("isError") for r in replies.values()), replies
    assert done.returncode == 0, done.stderr.decode()


def test_times_off_the_ends_of_the_calendar_are_tool_errors_that_say_why(tmp_path: Path) -> None:
    """Issue 36: the tool error said only "Error executing tool recall" (an OverflowError)."""
    async def body(session: ClientSession) -> None:
        for when in ("0001-01-01T00:00:00+14:00", "9999-12-31T23:59:59-14:00"):
            for tool, name, arguments in (("recall", "as_of", {"query": "home"}),
                                          ("recall", "known_at", {"query": "home"}),
                                          ("remember", "at", {"content": "I live in Oslo."})):
                result = await session.call_tool(tool, {"user_id": "u1", name: when, **arguments})
                assert result.is_error, (tool, name)
                message = result.content[0].text
                assert f"{name}={when}" in message and "outside the calendar" in message, message
        assert (await call(session, "recall", user_id="u1", query="Oslo"))["hits"] == []

    over_stdio(tmp_path, body)


def test_a_lone_surrogate_in_an_id_is_a_tool_error_that_says_why(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 36. Over stdio the JSON-RPC layer already refuses a lone surrogate (-32600, above); a
    host that runs the server in process hands the string to the tool, which reached the store."""
    monkeypatch.setenv("DUALMEM_EMBEDDER", "hashing")
    monkeypatch.delenv("DUALMEM_LLM_MODEL", raising=False)

    async def run() -> None:
        with open_services(f"sqlite:///{tmp_path / 'memory.db'}") as services:
            async with Client(build_server(services.writer)) as client:
                for name in ("source_id", "session_id", "agent_id"):
                    bad = await client.call_tool("remember", {"user_id": "u1", "content": "I live in Oslo.",
                                                              name: "x\ud800"})
                    assert bad.is_error and f"{name} is not valid Unicode" in bad.content[0].text, name
                left = await client.call_tool("recall", {"user_id": "u1", "query": "Oslo"})
                assert left.structured_content == {"query": "Oslo", "hits": []}

    anyio.run(run)
