"""DNS rebinding (issue 36): the REST API, served by a real uvicorn, answers only the names it was
told about in ``Host`` and ``Origin``, as the MCP HTTP server does; the rest get 421 and 403 and
nothing is read or deleted."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from test_rest import LiveServer

from dualmem_core.rest import create_app
from dualmem_core.rest.hosts import allowed_hosts, host_name
from dualmem_core.settings import ENV_ALLOWED_HOSTS, provider_environ, resolve_settings


@pytest.fixture
def server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    monkeypatch.setenv("DUALMEM_EMBEDDER", "hashing")
    monkeypatch.setenv(ENV_ALLOWED_HOSTS, "memory.internal, Other.Example")
    for name in ("DUALMEM_LLM_MODEL", "DUALMEM_LLM_BASE_URL", "DUALMEM_LLM_API_KEY", "DUALMEM_STORE"):
        monkeypatch.delenv(name, raising=False)
    live = LiveServer(create_app(f"sqlite:///{tmp_path / 'memory.db'}")).start()
    yield live.url
    live.stop()


def test_a_foreign_host_is_421_and_deletes_nothing(server: str) -> None:
    with httpx.Client(base_url=server, timeout=30) as http:
        assert http.post("/v1/users/x/memories", json={"content": "I live in Oslo."}).status_code == 201
        r = http.delete("/v1/users/x", headers={"Host": "rebind.attacker.example"})
        assert r.status_code == 421, r.text  # before the fix: 200, the user deleted
        assert r.json()["error"] == "MisdirectedRequest"
        assert "'rebind.attacker.example'" in r.json()["detail"] and ENV_ALLOWED_HOSTS in r.json()["detail"]
        assert http.get("/v1/users/x/recall", params={"q": "Oslo"}).json()["hits"]  # still there
        for host in ("localhost", "localhost:8000", "127.0.0.1:1", "[::1]:8000", "memory.internal",
                     "OTHER.example:443"):
            assert http.get("/healthz", headers={"Host": host}).status_code == 200, host


def test_a_foreign_origin_is_403(server: str) -> None:
    with httpx.Client(base_url=server, timeout=30) as http:
        r = http.delete("/v1/users/x", headers={"Origin": "https://attacker.example"})
        assert r.status_code == 403 and r.json()["error"] == "ForbiddenOrigin", r.text
        assert http.delete("/v1/users/x", headers={"Origin": "null"}).status_code == 403
        ok = http.get("/healthz", headers={"Origin": "http://localhost:3000"})
        assert ok.status_code == 200


def test_the_allowed_names_and_where_they_come_from(tmp_path: Path) -> None:
    assert allowed_hosts("10.0.0.5", "") == {"localhost", "127.0.0.1", "::1", "10.0.0.5"}
    assert allowed_hosts("[::1]", " a.example ,B.example,") == {"localhost", "127.0.0.1", "::1", "a.example",
                                                                 "b.example"}
    assert [host_name(h) for h in ("a.example:80", "[::1]:8000", "::1", "A.Example")] == [
        "a.example", "::1", "::1", "a.example"]
    config = tmp_path / "config.toml"
    config.write_text('allowed_hosts = "memory.internal"\n')
    settings = resolve_settings(config_path=config, environ={})
    assert provider_environ(settings)[ENV_ALLOWED_HOSTS] == "memory.internal"  # what serve passes on
