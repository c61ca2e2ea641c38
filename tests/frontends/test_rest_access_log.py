"""The access log of a real ``dualmem serve`` (issue 36): it kept each recall's question in the
query string, after the user was forgotten. Paths only, by default."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import httpx
from serving import free_port

ROOT = Path(__file__).resolve().parents[2]


def test_the_access_log_holds_paths_without_query_strings(tmp_path: Path) -> None:
    port, output = free_port(), tmp_path / "server.out"
    env = {**os.environ, "DUALMEM_EMBEDDER": "hashing", "DUALMEM_CACHE_MODE": "off"}
    with output.open("w") as out:
        server = subprocess.Popen(
            [sys.executable, "-m", "dualmem_core.cli", "serve", "--port", str(port),
             "--store", f"sqlite:///{tmp_path / 'memory.db'}"],
            cwd=ROOT, env=env, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT)
        try:
            base, deadline = f"http://127.0.0.1:{port}", time.monotonic() + 60
            while True:
                assert server.poll() is None, output.read_text()
                try:
                    if httpx.get(f"{base}/healthz", timeout=5).status_code == 200:
                        break
                except httpx.TransportError:
                    pass
                assert time.monotonic() < deadline, "the server did not start within 60 s"
                time.sleep(0.2)
            with httpx.Client(base_url=base, timeout=30) as http:
                http.post("/v1/users/dana/memories", json={"content": "I live in Oslo."}).raise_for_status()
                http.get("/v1/users/dana/recall", params={"q": "the spare key", "k": 3}).raise_for_status()
                http.delete("/v1/users/dana").raise_for_status()
        finally:
            server.terminate()
            server.wait(timeout=30)
    log = output.read_text()
    assert '"GET /v1/users/dana/recall HTTP/1.1" 200' in log, log  # the request is still logged
    assert "spare" not in log and "?q=" not in log and "k=3" not in log, log
