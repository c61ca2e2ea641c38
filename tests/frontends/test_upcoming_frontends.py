"""``upcoming`` through every frontend: the CLI, REST (``GET /v1/users/{user}/upcoming``) and the MCP
tool, over one SQLite store where the Editor's intentions stage found a plan due within the week."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

import httpx
import pytest
from mcp import ClientSession
from test_mcp import call, over_stdio
from test_rest import LiveServer

from dualmem_core import Editor, Writer
from dualmem_core.cli import main
from dualmem_core.editor import EditorConfig
from dualmem_core.rest import create_app
from dualmem_core.store import open_store
from dualmem_core.timeutil import utcnow

PLAN = "I'm flying to Lisbon next Friday"  # a training text of the reader: this tests the plumbing


@pytest.fixture
def planned(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """The store's URL, holding one open intention due within 14 days of now and one without a date."""
    monkeypatch.setenv("DUALMEM_EMBEDDER", "hashing")
    monkeypatch.delenv("DUALMEM_STORE", raising=False)
    url = f"sqlite:///{tmp_path / 'memory.db'}"
    with open_store(url) as store:
        writer = Writer(store)
        writer.remember([{"role": "user", "content": PLAN, "source_id": "m1"},
                         {"role": "user", "content": "I want to write a novel", "source_id": "m2"}],
                        user_id="u1", at=utcnow() - timedelta(hours=1))
        writer.close()
        Editor(store, config=EditorConfig(intentions=True)).run("u1")
    return url


def test_cli(planned: str, capsys: pytest.CaptureFixture) -> None:
    assert main(["upcoming", "--store", planned, "--user", "u1", "--within", "14d", "--json"]) == 0
    [found] = json.loads(capsys.readouterr().out)
    assert found["text"] == PLAN and found["state"] == "open" and found["sources"] == ["m1"]
    assert main(["upcoming", "--store", planned, "--user", "u1", "--within", "14d"]) == 0
    assert PLAN in capsys.readouterr().out
    assert main(["upcoming", "--store", planned, "--user", "u1", "--within", "soon"]) != 0
    assert "not a duration" in capsys.readouterr().err


def test_rest(planned: str) -> None:
    server = LiveServer(create_app(planned)).start()
    try:
        with httpx.Client(base_url=server.url, timeout=30) as http:
            body = http.get("/v1/users/u1/upcoming", params={"within": "14d"}).json()
            assert [i["text"] for i in body["intentions"]] == [PLAN] and body["within"] == "14d"
            assert http.get("/v1/users/u1/upcoming", params={"within": "1h"}).json()["intentions"] == []
            assert http.get("/v1/users/u1/upcoming", params={"within": "7 days"}).status_code == 422
    finally:
        server.stop()


def test_mcp(planned: str, tmp_path: Path) -> None:
    async def body(session: ClientSession) -> None:
        found = await call(session, "upcoming", user_id="u1", within="14d")
        assert [i["text"] for i in found["intentions"]] == [PLAN]

    over_stdio(tmp_path, body)  # its store is tmp_path/memory.db, the one planned
