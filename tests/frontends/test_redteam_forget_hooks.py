"""Forgetting a whole user over REST and MCP calls the ``dualmem.on_forget`` hooks once, as the CLI
did alone before (issue 36's red-team pass): a real ``dualmem serve`` and a real MCP server over
stdio, each with two hooks registered through an installed-looking distribution on PYTHONPATH, one
that records its call in a file and one that fails. The failing hook is reported and the forget
stands."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import httpx
from mcp import ClientSession
from serving import free_port, wait_until_listening
from test_mcp import over_stdio

from dualmem_core.integrations.forget_hooks import GROUP

ROOT = Path(__file__).resolve().parents[2]

HOOKS = '''
import os


def record(user_id, *, purge_runs=False):
    with open(os.environ["HOOK_RECORD"], "a") as out:
        out.write(user_id + "\\n")
    return "recorded " + user_id


def broken(user_id, *, purge_runs=False):
    raise RuntimeError("cannot reach the other system for " + user_id)
'''

SAID = ["recorder: recorded ana", "failed: broken: RuntimeError: cannot reach the other system for ana"]


def hooked_env(tmp_path: Path) -> dict[str, str]:
    """A server environment where ``dualmem.on_forget`` names the two hooks above."""
    site = tmp_path / "site"
    info = site / "redteam_hooks-0.1.dist-info"
    info.mkdir(parents=True)
    (site / "redteam_hooks.py").write_text(HOOKS)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: redteam-hooks\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(
        f"[{GROUP}]\nrecorder = redteam_hooks:record\nbroken = redteam_hooks:broken\n")
    env = {k: v for k, v in os.environ.items() if k != "DAGSTER_HOME"}  # the pipeline's hook: nothing to do
    return {**env, "PYTHONPATH": os.pathsep.join([str(site), str(ROOT), env.get("PYTHONPATH", "")]),
            "HOOK_RECORD": str(tmp_path / "record.txt"), "DUALMEM_EMBEDDER": "hashing",
            "DUALMEM_CACHE_MODE": "off", "DUALMEM_STORE": f"sqlite:///{tmp_path / 'memory.db'}"}


def episodes(db: Path, user: str) -> int:
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
        return conn.execute("SELECT count(*) FROM episodes WHERE user_id = ?", (user,)).fetchone()[0]


def test_rest_forget_user_calls_the_hooks_once(tmp_path: Path) -> None:
    env, port, log = hooked_env(tmp_path), free_port(), tmp_path / "server.log"
    with log.open("w") as out:
        server = subprocess.Popen([sys.executable, "-m", "dualmem_core.cli", "serve", "--port", str(port)],
                                  cwd=ROOT, env=env, stdin=subprocess.DEVNULL, stdout=out,
                                  stderr=subprocess.STDOUT)
        try:
            wait_until_listening(server, port, log)
            with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=60) as http:
                http.post("/v1/users/ana/memories", json={"content": "I live in Oslo."}).raise_for_status()
                r = http.delete("/v1/users/ana")
                assert r.status_code == 200, r.text
                assert r.json()["deleted"]["episodes"] == 1
                assert r.json()["hooks"] == SAID
                assert http.delete("/v1/users/ana/memories", params={"source_id": "x"}).json()["hooks"] == []
        finally:
            server.terminate()
            server.wait(timeout=30)
    assert (tmp_path / "record.txt").read_text() == "ana\n"  # once; a forget by source id calls none
    assert episodes(tmp_path / "memory.db", "ana") == 0
    assert "a forget hook failed: broken: RuntimeError" in log.read_text()


def test_mcp_forget_everything_calls_the_hooks_once(tmp_path: Path) -> None:
    async def body(session: ClientSession) -> None:
        said = await session.call_tool("remember", {"user_id": "ana", "content": "I live in Oslo."})
        assert not said.is_error
        gone = await session.call_tool("forget", {"user_id": "ana", "everything": True})
        assert not gone.is_error, gone.content
        assert gone.structured_content is not None
        assert gone.structured_content["hooks"] == SAID
        text = "".join(c.text for c in gone.content if c.type == "text")
        assert "recorder: recorded ana" in text and "failed: broken" in text

    over_stdio(tmp_path, body, env=hooked_env(tmp_path))
    log = tmp_path / "server.log"
    assert (tmp_path / "record.txt").read_text() == "ana\n"
    assert episodes(tmp_path / "memory.db", "ana") == 0
    assert "a forget hook failed: broken: RuntimeError" in log.read_text()


def test_cli_forget_everything_calls_the_hooks_once_and_warns_once(tmp_path: Path) -> None:
    env = hooked_env(tmp_path)
    command = [sys.executable, "-m", "dualmem_core.cli"]
    subprocess.run([*command, "remember", "--user", "ana", "I live in Oslo."], cwd=ROOT, env=env, check=True,
                   capture_output=True, timeout=120)
    done = subprocess.run([*command, "forget", "--user", "ana", "--everything", "--yes"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and "  recorder: recorded ana" in done.stdout, done.stderr
    assert done.stderr.count("a forget hook failed: broken: RuntimeError") == 1, done.stderr
    assert (tmp_path / "record.txt").read_text() == "ana\n"
