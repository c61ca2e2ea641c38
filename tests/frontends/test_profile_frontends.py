"""``profile`` through every frontend (the CLI, REST ``GET /v1/users/{user}/profile``, the MCP tool)
on both stores: identity as before, and the lasting part (``writer/profile.py``) as a new field."""

from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import pytest
from mcp import ClientSession
from test_mcp import call, over_stdio, server_env
from test_rest import LiveServer

from dualmem_core import Writer
from dualmem_core.cli import main
from dualmem_core.rest import create_app
from dualmem_core.store import open_store

T = datetime(2026, 1, 5, tzinfo=UTC)
FIRST = ["I live in Lisbon.", "I love hiking.", "I play chess every weekend."]  # session s1
LATER = ["Went hiking again, I really love hiking."]  # session s2: hiking told twice, chess once


@pytest.fixture
def told(store_url: str, monkeypatch: pytest.MonkeyPatch) -> tuple[str, str]:
    """The store's URL and a user who said FIRST in one session and LATER in another."""
    monkeypatch.setenv("DUALMEM_EMBEDDER", "hashing")
    monkeypatch.delenv("DUALMEM_STORE", raising=False)
    user = f"u-{uuid.uuid4().hex[:8]}"
    with open_store(store_url) as store:
        writer = Writer(store)
        for session, texts, at in (("s1", FIRST, T), ("s2", LATER, T + timedelta(days=8))):
            writer.remember([{"role": "user", "content": t, "source_id": f"{session}-{i}"}
                             for i, t in enumerate(texts)], user_id=user, session_id=session, at=at)
        writer.close()
    return store_url, user


def check(body: dict) -> None:
    assert body["entries"]["lives_in"]["value"] == "Lisbon"
    [hiking] = body["lasting"]
    assert (hiking["predicate"], hiking["value"], hiking["occasions"]) == ("likes", "hiking", 2)
    assert hiking["sources"] == ["s1-1", "s2-0"] and hiking["since"].startswith("2026-01-05")


def test_rest(told: tuple[str, str]) -> None:
    url, user = told
    server = LiveServer(create_app(url)).start()
    try:
        with httpx.Client(base_url=server.url, timeout=30) as http:
            r = http.get(f"/v1/users/{user}/profile")
            assert r.status_code == 200, r.text
            check(r.json())
    finally:
        server.stop()


def test_cli(told: tuple[str, str], capsys: pytest.CaptureFixture) -> None:
    url, user = told
    assert main(["profile", "--store", url, "--user", user, "--json"]) == 0
    body = json.loads(capsys.readouterr().out)
    assert body["entries"]["lives_in"]["value"] == "Lisbon" and body["user_id"] == user
    assert [(e["value"], e["occasions"]) for e in body["lasting"]] == [("hiking", 2)]
    assert main(["profile", "--store", url, "--user", user]) == 0
    out = capsys.readouterr().out
    assert "LASTING" in out and "hiking" in out and "chess" not in out


def test_mcp(told: tuple[str, str], tmp_path: Path) -> None:
    url, user = told

    async def body(session: ClientSession) -> None:
        check(await call(session, "profile", user_id=user))

    over_stdio(tmp_path, body, env={**server_env(tmp_path), "DUALMEM_STORE": url})
