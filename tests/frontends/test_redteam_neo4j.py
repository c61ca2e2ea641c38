"""The red-team pass (issue 36) on a ``dualmem serve`` over the session's real Neo4j: long ids, NUL
and control characters in a message and Cypher-looking text answer as on SQLite, never a 500.
Before the fix a 30,000-character source id was a 500 (Neo4j's index keys hold at most 8 KB)."""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from pathlib import Path

import httpx
from serving import free_port, wait_until_listening

ROOT = Path(__file__).resolve().parents[2]


def test_long_ids_and_odd_texts_over_neo4j(neo4j_uri: str, tmp_path: Path) -> None:
    port, log = free_port(), tmp_path / "server.log"
    env = {**os.environ, "DUALMEM_EMBEDDER": "hashing", "DUALMEM_CACHE_MODE": "off"}
    user = f"red-{uuid.uuid4().hex[:8]}"  # the session's Neo4j is shared with other tests
    with log.open("w") as out:
        server = subprocess.Popen(
            [sys.executable, "-m", "dualmem_core.cli", "serve", "--port", str(port), "--store", neo4j_uri],
            cwd=ROOT, env=env, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT)
        try:
            wait_until_listening(server, port, log)
            with httpx.Client(base_url=f"http://127.0.0.1:{port}/v1/users/{user}", timeout=120) as http:
                for too_long in ({"source_id": "x" * 30_000}, {"session_id": "s" * 100_000}):
                    r = http.post("/memories", json={"content": "I live in Oslo.", **too_long})
                    assert r.status_code == 422 and "at most 1,024" in r.json()["detail"], r.text[:300]
                bodies = [
                    {"content": "I live in Oslo.", "source_id": "x" * 1024},
                    {"content": "A long session.", "session_id": "s" * 1024, "agent_id": "a" * 1024},
                    {"content": "a\x00b \x1b[31m zero\u200bwidth", "source_id": "odd"},
                    {"content": "'); MATCH (n) DETACH DELETE n //", "source_id": "cypher"},
                    {"content": "x " * 50_000, "source_id": "big"},
                ]
                for body in bodies:
                    r = http.post("/memories", json=body)
                    assert r.status_code == 201, (str(body)[:80], r.status_code, r.text[:300])
                assert http.get("/recall", params={"q": "Oslo", "session_id": "s" * 1024}).status_code == 200
                hits = http.get("/recall", params={"q": "Oslo", "k": 100}).json()["hits"]
                assert any(h["text"] == "I live in Oslo." for h in hits)
                gone = http.delete("/memories", params=[("source_id", "x" * 1024), ("source_id", "odd")])
                assert gone.status_code == 200 and len(gone.json()["episode_ids"]) == 2, gone.text[:300]
                whole = httpx.delete(f"http://127.0.0.1:{port}/v1/users/{user}", timeout=120)
                assert whole.status_code == 200, whole.text
        finally:
            server.terminate()
            server.wait(timeout=30)
