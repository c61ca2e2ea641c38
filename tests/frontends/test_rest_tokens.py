"""API tokens on the REST API (issue 36, "no authentication"), through a real uvicorn server and
httpx: no token, a wrong one, another user's, the right one, an all-users one; the 401's
WWW-Authenticate; loopback without tokens as before; the rate limit on wrong tokens; and a real
``dualmem serve`` process that refuses 0.0.0.0 without tokens and demands one with them."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from test_rest import LiveServer

from dualmem_core.rest import create_app
from dualmem_core.service.http_auth import FailureLimit
from dualmem_core.service.tokens import TokenFile, tokens_path

ROOT = Path(__file__).resolve().parents[2]
RECALL = "/v1/users/{}/recall?q=where"


@pytest.fixture
def env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DUALMEM_EMBEDDER", "hashing")
    for name in ("DUALMEM_LLM_MODEL", "DUALMEM_LLM_BASE_URL", "DUALMEM_LLM_API_KEY", "DUALMEM_STORE"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def store_url(tmp_path: Path, env: None) -> str:
    return f"sqlite:///{tmp_path / 'memory.db'}"


@pytest.fixture
def served(store_url: str) -> Iterator[tuple[str, TokenFile]]:
    tokens = TokenFile(tokens_path(store_url))
    live = LiveServer(create_app(store_url, failure_limit=FailureLimit(failures=3, window=60))).start()
    yield live.url, tokens
    live.stop()


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def test_the_token_file_sits_beside_the_sqlite_store(tmp_path: Path) -> None:
    assert tokens_path(f"sqlite:////{tmp_path}/m.db") == tmp_path / "m.db.tokens.json"
    assert tokens_path("bolt://127.0.0.1:7687").name == "tokens.json"


def test_loopback_without_tokens_answers_as_before(served: tuple[str, TokenFile]) -> None:
    url, _ = served
    assert httpx.get(url + RECALL.format("u1")).status_code == 200


def test_the_token_matrix(served: tuple[str, TokenFile]) -> None:
    url, tokens = served
    _, u1 = tokens.create(["u1"], label="u1 only")
    _, admin = tokens.create([], all_users=True)
    assert u1.startswith("dm_") and u1 not in tokens.path.read_text()  # stored hashed only
    body = {"content": "I live in Oslo.", "source_id": "m1"}

    missing = httpx.post(url + "/v1/users/u1/memories", json=body)
    assert missing.status_code == 401, missing.text
    assert missing.headers["www-authenticate"] == 'Bearer realm="dualmem"'
    assert "dualmem token create" in missing.json()["detail"]
    wrong = httpx.get(url + RECALL.format("u1"), headers=bearer("dm_not-a-token"))
    assert wrong.status_code == 401 and "invalid_token" in wrong.headers["www-authenticate"]
    assert httpx.get(url + RECALL.format("u1"), headers={"Authorization": f"Basic {u1}"}).status_code == 401

    assert httpx.post(url + "/v1/users/u1/memories", json=body, headers=bearer(u1)).status_code == 201
    hits = httpx.get(url + RECALL.format("u1"), headers=bearer(u1)).json()["hits"]
    assert hits and hits[0]["sources"] == ["m1"]
    other = httpx.get(url + RECALL.format("u2"), headers=bearer(u1))
    assert other.status_code == 403, other.text
    assert other.json()["error"] == "TenantViolation" and "reaches only u1" in other.json()["detail"]
    assert httpx.delete(url + "/v1/users/u2", headers=bearer(u1)).status_code == 403
    assert httpx.get(url + RECALL.format("u1"), headers=bearer(admin)).json()["hits"]
    assert httpx.get(url + RECALL.format("u2"), headers=bearer(admin)).status_code == 200
    # liveness and the API's description stay open; they hold no memories
    assert httpx.get(url + "/healthz").status_code == 200
    document = httpx.get(url + "/openapi.json")
    assert document.status_code == 200
    assert document.json()["components"]["securitySchemes"]["token"]["scheme"] == "bearer"


def test_a_revoked_token_is_refused_at_once(served: tuple[str, TokenFile]) -> None:
    url, tokens = served
    kept, _ = tokens.create(["u1"])
    gone, secret = tokens.create(["u1"])
    assert httpx.get(url + RECALL.format("u1"), headers=bearer(secret)).status_code == 200
    TokenFile(tokens.path).revoke(gone.id)  # another process's view of the file, as the CLI's
    assert httpx.get(url + RECALL.format("u1"), headers=bearer(secret)).status_code == 401
    TokenFile(tokens.path).revoke(kept.id)  # no tokens left: loopback answers without one again
    assert httpx.get(url + RECALL.format("u1")).status_code == 200


def test_wrong_tokens_are_rate_limited_per_client(served: tuple[str, TokenFile]) -> None:
    url, tokens = served
    _, good = tokens.create(["u1"])
    for _ in range(3):  # the fixture's limit: 3 wrong tokens a minute
        assert httpx.get(url + RECALL.format("u1"), headers=bearer("dm_guess")).status_code == 401
    limited = httpx.get(url + RECALL.format("u1"), headers=bearer("dm_guess"))
    assert limited.status_code == 429, limited.text
    assert 0 < int(limited.headers["retry-after"]) <= 60
    # the address is shut out for the window, even with a good token: guessing must not pay off
    assert httpx.get(url + RECALL.format("u1"), headers=bearer(good)).status_code == 429


def test_the_limit_forgets_failures_after_the_window() -> None:
    now = [0.0]
    limit = FailureLimit(failures=2, window=60, clock=lambda: now[0])
    limit.failed("a")
    limit.failed("a")
    assert limit.retry_after("a") == 60 and limit.retry_after("b") == 0
    now[0] = 30.5
    assert limit.retry_after("a") == 30
    now[0] = 60.0
    assert limit.retry_after("a") == 0


def test_beyond_loopback_a_token_is_needed_even_after_the_last_is_revoked(store_url: str) -> None:
    tokens = TokenFile(tokens_path(store_url))
    live = LiveServer(create_app(store_url, require_token=True)).start()
    try:
        assert httpx.get(live.url + RECALL.format("u1")).status_code == 401
        token, secret = tokens.create(["u1"])
        assert httpx.get(live.url + RECALL.format("u1"), headers=bearer(secret)).status_code == 200
        tokens.revoke(token.id)
        assert httpx.get(live.url + RECALL.format("u1")).status_code == 401
    finally:
        live.stop()


def dualmem(*args: str, tmp_path: Path) -> subprocess.Popen:
    env = {**os.environ, "DUALMEM_EMBEDDER": "hashing", "DUALMEM_STORE": f"sqlite:///{tmp_path / 'm.db'}",
           "PYTHONPATH": str(ROOT)}
    return subprocess.Popen([sys.executable, "-m", "dualmem_core.cli", *args], cwd=ROOT, env=env,
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)


def test_serve_refuses_0_0_0_0_without_tokens_and_serves_it_with_one(tmp_path: Path) -> None:
    started = time.monotonic()
    refused = dualmem("serve", "--host", "0.0.0.0", "--port", "1", tmp_path=tmp_path)
    out, err = refused.communicate(timeout=60)
    assert refused.returncode == 1, err
    assert "refusing to serve the REST API on 0.0.0.0" in err and "dualmem token create" in err, err
    assert time.monotonic() - started < 30 and not (tmp_path / "m.db").exists()  # nothing was opened

    made = dualmem("token", "create", "--user", "u1", tmp_path=tmp_path)
    secret, _ = made.communicate(timeout=60)
    assert made.returncode == 0 and secret.strip().startswith("dm_")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = dualmem("serve", "--host", "0.0.0.0", "--port", str(port), tmp_path=tmp_path)
    try:
        url, deadline = f"http://127.0.0.1:{port}", time.monotonic() + 60
        while True:
            assert server.poll() is None, server.communicate()[1]
            try:
                answer = httpx.get(url + RECALL.format("u1"), timeout=5)
                break
            except httpx.TransportError:
                assert time.monotonic() < deadline, "dualmem serve did not start within 60 s"
                time.sleep(0.2)
        assert answer.status_code == 401
        allowed = httpx.get(url + RECALL.format("u1"), headers=bearer(secret.strip()), timeout=5)
        assert allowed.status_code == 200
    finally:
        server.terminate()
        server.communicate(timeout=30)
