"""The HTTP API through a real client: uvicorn on 127.0.0.1 (a free port, a background thread), httpx,
a temporary SQLite store and the hashing embedder. Covers every endpoint, the error mapping, the
body limit, the OpenAPI document and a clean shutdown."""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace

import httpx
import pytest
import uvicorn
from fastapi import FastAPI

from dualmem_core import errors
from dualmem_core.rest import MAX_BODY_BYTES, create_app
from dualmem_core.rest.app import _redact

WHERE = "Where does the user live?"
PATHS = {
    "/v1/users/{user_id}/memories",
    "/v1/users/{user_id}/recall",
    "/v1/users/{user_id}/memories/{memory_id}/history",
    "/v1/users/{user_id}/memories/{memory_id}",
    "/v1/users/{user_id}",
    "/v1/users/{user_id}/profile",
    "/v1/users/{user_id}/upcoming",
    "/v1/users/{user_id}/editor/runs",
    "/v1/users/{user_id}/editor/runs/{run_id}/rollback",
    "/healthz",
}


class LiveServer:
    """A uvicorn server in a thread on a port the OS picks; ``stop`` waits for it to finish."""

    def __init__(self, app: FastAPI):
        self.server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning"))
        self.thread = threading.Thread(target=self.server.run, name="rest-test-server", daemon=True)
        self.url = ""

    def start(self) -> LiveServer:
        self.thread.start()
        deadline = time.monotonic() + 30
        while not self.server.started:
            if not self.thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("the test server did not start")
            time.sleep(0.01)
        host, port = self.server.servers[0].sockets[0].getsockname()[:2]
        self.url = f"http://{host}:{port}"
        return self

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=30)
        assert not self.thread.is_alive(), "the server thread did not stop"


@pytest.fixture(scope="module")
def env() -> Iterator[None]:
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("DUALMEM_EMBEDDER", "hashing")
        for name in ("DUALMEM_LLM_MODEL", "DUALMEM_LLM_BASE_URL", "DUALMEM_LLM_API_KEY", "DUALMEM_STORE"):
            mp.delenv(name, raising=False)
        yield


def _raising_route(app: FastAPI) -> None:
    """A test-only endpoint that raises the named error, to check every mapping over HTTP."""

    @app.get("/test/raise/{name}")
    def raise_error(name: str) -> None:
        if name == "RuntimeError":
            raise RuntimeError("secret internals /etc/passwd")
        raise getattr(errors, name)(f"a {name} for the test")


@pytest.fixture(scope="module")
def client(env: None, tmp_path_factory: pytest.TempPathFactory) -> Iterator[httpx.Client]:
    app = create_app(f"sqlite:///{tmp_path_factory.mktemp('rest') / 'memory.db'}")
    _raising_route(app)
    server = LiveServer(app).start()
    with httpx.Client(base_url=server.url, timeout=30) as http:
        yield http
    server.stop()


def _user() -> str:
    return f"u-{uuid.uuid4().hex[:8]}"


def _move(client: httpx.Client, user: str) -> tuple[str, str]:
    """The user lived in Seattle, then moved to Portland; returns the two facts' memory ids."""
    said = [("I live in Seattle.", "2024-01-10T09:00:00Z", "m1"),
            ("I moved to Portland last week.", "2025-06-10T09:00:00Z", "m2")]
    ids = []
    for text, at, source in said:
        r = client.post(f"/v1/users/{user}/memories",
                        json={"content": text, "at": at, "source_id": source, "session_id": "s1"})
        assert r.status_code == 201, r.text
        body = r.json()
        assert len(body["episode_ids"]) == 1 and len(body["fact_ids"]) == 1
        assert body["facts"][0]["predicate"] == "lives_in"
        ids.append(body["fact_ids"][0])
    return ids[0], ids[1]


def _recall(client: httpx.Client, user: str, **params: object) -> list[dict]:
    r = client.get(f"/v1/users/{user}/recall", params={"q": WHERE, **params})
    assert r.status_code == 200, r.text
    return r.json()["hits"]


# -- the operations ---------------------------------------------------------------------------


def test_remember_then_recall_now_and_as_of(client: httpx.Client) -> None:
    user = _user()
    seattle, portland = _move(client, user)
    now = _recall(client, user, k=5)
    by_id = {h["memory_id"]: h for h in now}
    assert {seattle, portland} <= set(by_id)
    hit = by_id[portland]
    assert hit["text"] == "user lives in Portland" and hit["kind"] == "fact" and hit["current"]
    assert hit["sources"] == ["m2"] and hit["valid_to"] is None
    assert hit["valid_from"] == "2025-06-02T00:00:00Z"  # "last week", resolved against the message time
    assert hit["score"] > 0 and set(hit["why"]) >= {"vector", "text"}

    then = _recall(client, user, as_of="2024-06-01T00:00:00Z")
    assert seattle in {h["memory_id"] for h in then}
    assert not any("Portland" in h["text"] for h in then)


def test_remember_a_list_of_messages(client: httpx.Client) -> None:
    user = _user()
    r = client.post(f"/v1/users/{user}/memories", json={"content": [
        {"role": "user", "content": "My sister Lena lives in Seattle.", "source_id": "a"},
        {"role": "assistant", "content": "Noted, Lena is in Seattle.", "source_id": "b"},
    ], "agent_id": "bot", "at": "2026-03-02T18:00:00+00:00"})
    assert r.status_code == 201, r.text
    assert len(r.json()["episode_ids"]) == 2
    hits = _recall(client, user, agent_id="bot")
    assert {s for h in hits for s in h["sources"]} >= {"a"}


def test_history_and_profile(client: httpx.Client) -> None:
    user = _user()
    seattle, _ = _move(client, user)
    r = client.get(f"/v1/users/{user}/memories/{seattle}/history")
    assert r.status_code == 200, r.text
    history = r.json()
    assert history["memory_id"] == seattle and history["sources"] == ["m1"]
    [version] = history["versions"]
    assert version["text"] == "user lives in Seattle" and version["status"] == "active"
    assert version["valid_to"] is None and version["tx_to"] is None

    r = client.get(f"/v1/users/{user}/profile")
    assert r.status_code == 200, r.text
    lives = r.json()["entries"]["lives_in"]
    assert lives["value"] == "Portland" and lives["sources"] == ["m2"]


def test_forget_by_source_ids(client: httpx.Client) -> None:
    user = _user()
    seattle, portland = _move(client, user)
    client.post(f"/v1/users/{user}/memories", json={"content": "I like hiking.", "source_id": "m3"})
    r = client.delete(f"/v1/users/{user}/memories", params=[("source_id", "m2"), ("source_id", "m3")])
    assert r.status_code == 200, r.text
    receipt = r.json()
    assert receipt["source_ids"] == ["m2", "m3"] and len(receipt["episode_ids"]) == 2
    assert portland in receipt["memory_ids"] and seattle not in receipt["memory_ids"]
    hits = _recall(client, user)
    assert seattle in {h["memory_id"] for h in hits}
    assert not any("Portland" in h["text"] or "hiking" in h["text"] for h in hits)
    assert client.get(f"/v1/users/{user}/memories/{portland}/history").status_code == 404


def test_forget_one_memory_and_a_whole_user(client: httpx.Client) -> None:
    user = _user()
    seattle, portland = _move(client, user)
    r = client.delete(f"/v1/users/{user}/memories/{portland}")
    assert r.status_code == 200 and r.json()["memory_ids"] == [portland]
    again = client.delete(f"/v1/users/{user}/memories/{portland}")
    assert again.status_code == 404 and again.json()["error"] == "NotFound"

    r = client.delete(f"/v1/users/{user}")
    assert r.status_code == 200, r.text
    assert r.json()["user_id"] == user and r.json()["deleted"]["episodes"] == 2
    assert _recall(client, user) == []
    assert client.get(f"/v1/users/{user}/memories/{seattle}/history").status_code == 404


def test_editor_run_list_and_rollback(client: httpx.Client) -> None:
    user = _user()
    seattle, portland = _move(client, user)
    r = client.post(f"/v1/users/{user}/editor/runs", params={"dry_run": "true"})
    assert r.status_code == 200, r.text
    assert r.json()["counts"]["supersede"] == {"supersede": 1} and r.json()["applied_at"] is None
    assert client.get(f"/v1/users/{user}/editor/runs").json()["runs"] == []

    r = client.post(f"/v1/users/{user}/editor/runs")
    assert r.status_code == 200, r.text
    run = r.json()
    assert run["kind"] == "edit" and run["counts"]["supersede"] == {"supersede": 1}
    assert run["operations"] > 0 and run["applied_at"] and run["skipped"] == [] and run["llm_calls"] == 0
    assert "stages" not in run and "snapshot" not in run

    superseded = client.get(f"/v1/users/{user}/memories/{seattle}/history").json()
    assert superseded["superseded_by"] == [portland]
    assert [v["status"] for v in superseded["versions"]] == ["active", "superseded"]
    assert superseded["versions"][1]["valid_to"] == "2025-06-02T00:00:00Z"
    assert {h["memory_id"]: h["current"] for h in _recall(client, user)}[seattle] is False

    runs = client.get(f"/v1/users/{user}/editor/runs").json()["runs"]
    assert [(r["run_id"], r["kind"]) for r in runs] == [(run["run_id"], "edit")]

    r = client.post(f"/v1/users/{user}/editor/runs/{run['run_id']}/rollback")
    assert r.status_code == 200, r.text
    undo = r.json()
    assert undo["kind"] == "rollback" and undo["rollback_of"] == run["run_id"] and undo["operations"] > 0
    assert {h["memory_id"]: h["current"] for h in _recall(client, user)}[seattle] is True
    twice = client.post(f"/v1/users/{user}/editor/runs/{run['run_id']}/rollback")
    assert twice.status_code == 200 and twice.json()["run_id"] == undo["run_id"]
    assert undo["already_rolled_back"] is False and twice.json()["already_rolled_back"] is True
    kinds = [r["kind"] for r in client.get(f"/v1/users/{user}/editor/runs").json()["runs"]]
    assert kinds == ["edit", "rollback"]

    # A rollback is not undone by rolling it back: 422, as for any input the core refuses.
    r = client.post(f"/v1/users/{user}/editor/runs/{undo['run_id']}/rollback")
    assert r.status_code == 422 and r.json()["error"] == "InvalidInput"


def test_rollback_under_a_later_overlapping_run_conflicts_unless_cascade(client: httpx.Client) -> None:
    user = _user()
    _move(client, user)
    first = client.post(f"/v1/users/{user}/editor/runs").json()
    client.post(f"/v1/users/{user}/memories",
                json={"content": "I moved to Denver yesterday.", "at": "2025-09-10T09:00:00Z"})
    second = client.post(f"/v1/users/{user}/editor/runs").json()
    assert second["counts"]["supersede"] == {"supersede": 1}
    rollback = f"/v1/users/{user}/editor/runs/{first['run_id']}/rollback"
    r = client.post(rollback)
    assert r.status_code == 409 and r.json()["error"] == "ConflictError"
    assert second["run_id"] in r.json()["detail"]
    r = client.post(rollback, params={"cascade": "true"})
    assert r.status_code == 200 and r.json()["rollback_of"] == first["run_id"]


# -- errors -----------------------------------------------------------------------------------


def test_unknown_memory_and_run_are_404(client: httpx.Client) -> None:
    user = _user()
    _move(client, user)
    r = client.get(f"/v1/users/{user}/memories/mem_nope/history")
    assert r.status_code == 404
    assert r.json() == {"error": "NotFound",
                        "detail": f"user {user!r} has no memory 'mem_nope'; take ids from recall or remember"}
    r = client.post(f"/v1/users/{user}/editor/runs/run-nope/rollback")
    assert r.status_code == 404 and r.json()["error"] == "NotFound"


def test_a_server_says_when_it_created_its_store(env: None, tmp_path: Path, caplog) -> None:
    from fastapi.testclient import TestClient

    where = tmp_path / "new.db"
    for expected in ([f"created a new store at {where}"], []):  # the second start finds it
        caplog.clear()
        with caplog.at_level("WARNING"), TestClient(create_app(f"sqlite:///{where}"),
                                                       base_url="http://localhost") as http:
            assert http.get("/healthz").status_code == 200
        assert [r.getMessage() for r in caplog.records if "created" in r.getMessage()] == expected


def test_user_ids_outside_the_one_rule_are_422(client: httpx.Client) -> None:
    for bad in ("%20u1", "u1%20", "u%0A1", "a...b"):
        r = client.post(f"/v1/users/{bad}/memories", json={"content": "I live in Lisbon."})
        assert r.status_code == 422 and "is not allowed: a user id is" in r.json()["detail"], bad


def test_bad_times_are_422(client: httpx.Client) -> None:
    user = _user()
    r = client.get(f"/v1/users/{user}/recall", params={"q": WHERE, "as_of": "last tuesday"})
    assert r.status_code == 422 and r.json()["error"] == "InvalidInput"
    assert r.json()["detail"].startswith("query.as_of: is not an ISO 8601 date")  # the field, in our words
    r = client.post(f"/v1/users/{user}/memories", json={"content": "hi", "at": "2025-13-01"})
    assert r.status_code == 422 and r.json()["detail"].startswith("body.at: is not an ISO 8601 date")


def test_times_without_an_offset_are_utc(client: httpx.Client) -> None:
    user = _user()
    r = client.post(f"/v1/users/{user}/memories", json={"content": [
        {"content": "I live in Oslo.", "at": "2024-01-10T09:00:00", "source_id": "a"},
        {"content": "I moved to Bergen.", "at": "2025-06-10T10:00:00+01:00", "source_id": "b"}]})
    assert r.status_code == 201, r.text
    hits = {h["text"]: h for h in _recall(client, user, as_of="2025-06-10")}
    assert hits["I live in Oslo."]["valid_from"] == "2024-01-10T09:00:00Z"
    assert "I moved to Bergen." not in hits  # said at 09:00 UTC, after midnight
    at_nine = {h["text"] for h in _recall(client, user, as_of="2025-06-10T09:00:00")}
    assert "I moved to Bergen." in at_nine


def test_bad_requests_are_422(client: httpx.Client) -> None:
    user = _user()
    r = client.post(f"/v1/users/{user}/memories", json={"content": "   "})
    assert r.status_code == 422 and r.json()["error"] == "InvalidInput"
    r = client.post(f"/v1/users/{user}/memories", json={"content": "hi", "colour": "blue"})
    assert r.status_code == 422 and r.json()["detail"].startswith("body.colour: is not a field")
    r = client.get(f"/v1/users/{user}/recall", params={"q": WHERE, "k": 0})
    assert r.status_code == 422
    r = client.delete(f"/v1/users/{user}/memories")
    assert r.status_code == 422 and r.json()["detail"] == "query.source_id: is required"


def test_another_user_cannot_see_or_touch_a_memory(client: httpx.Client) -> None:
    alice, bob = _user(), _user()
    seattle, _ = _move(client, alice)
    run = client.post(f"/v1/users/{alice}/editor/runs").json()
    assert client.get(f"/v1/users/{bob}/memories/{seattle}/history").status_code == 404
    assert client.delete(f"/v1/users/{bob}/memories/{seattle}").status_code == 404
    assert client.post(f"/v1/users/{bob}/editor/runs/{run['run_id']}/rollback").status_code == 404
    assert _recall(client, bob) == []
    assert client.get(f"/v1/users/{alice}/memories/{seattle}/history").status_code == 200


@pytest.mark.parametrize(
    ("name", "status"),
    [("InvalidInput", 422), ("DimensionMismatch", 422), ("NotFound", 404), ("ConflictError", 409),
     ("TenantViolation", 403), ("StoreUnavailable", 503), ("ProviderError", 502),
     ("ProviderConfigError", 500), ("CacheMiss", 500), ("StoreConfigError", 500), ("DualmemError", 500)],
)
def test_error_types_map_to_status_codes(client: httpx.Client, name: str, status: int) -> None:
    r = client.get(f"/test/raise/{name}")
    assert r.status_code == status
    assert r.json() == {"error": name, "detail": f"a {name} for the test"}


def test_an_unexpected_error_is_500_without_a_trace(client: httpx.Client) -> None:
    r = client.get("/test/raise/RuntimeError")
    assert r.status_code == 500 and r.json()["error"] == "InternalError"
    assert "Traceback" not in r.text and "/etc/passwd" not in r.text and "RuntimeError" not in r.text
    assert client.get("/healthz").status_code == 200  # and the connection is still usable


def test_error_details_leave_out_store_credentials() -> None:
    store = SimpleNamespace(url="bolt://neo4j:s3cret@db.internal:7687?password=s3cret")
    detail = _redact(f"Neo4j at {store.url} became unreachable", store)
    assert detail == "Neo4j at bolt://db.internal:7687 became unreachable"
    sqlite = SimpleNamespace(url="sqlite:////tmp/memory.db")
    assert _redact(f"{sqlite.url} is busy", sqlite) == "sqlite:////tmp/memory.db is busy"


def test_a_body_over_the_limit_is_413(client: httpx.Client) -> None:
    path = f"/v1/users/{_user()}/memories"
    big = {"content": "x" * (MAX_BODY_BYTES + 1)}
    r = client.post(path, json=big)
    assert r.status_code == 413 and r.json()["error"] == "PayloadTooLarge"

    def chunked() -> Iterator[bytes]:  # no Content-Length: the limit is counted while reading
        yield b'{"content": "'
        for _ in range(3):
            yield b"y" * (MAX_BODY_BYTES // 2)
        yield b'"}'

    r = client.post(path, content=chunked(), headers={"Content-Type": "application/json"})
    assert r.status_code == 413 and r.json()["error"] == "PayloadTooLarge"
    fine = {"content": "still fine " * 9_000}  # 99,000 characters: under max_message_chars
    assert client.post(path, json=fine).status_code == 201


# -- the service --------------------------------------------------------------------------------


def test_openapi_lists_every_path_with_descriptions(client: httpx.Client) -> None:
    r = client.get("/openapi.json")
    assert r.status_code == 200
    doc = r.json()
    assert set(doc["paths"]) - {"/test/raise/{name}"} == PATHS
    for path in PATHS:
        for method, operation in doc["paths"][path].items():
            assert operation.get("description"), f"{method.upper()} {path} has no description"
    remember = doc["components"]["schemas"]["RememberIn"]
    assert remember["examples"] and remember["properties"]["source_id"]["description"]
    assert client.get("/docs").status_code == 200


def test_healthz(client: httpx.Client) -> None:
    r = client.get("/healthz")
    assert r.status_code == 200 and r.json() == {"status": "ok", "backend": "sqlite"}


def test_the_server_stops_cleanly(env: None, tmp_path: Path) -> None:
    before = set(threading.enumerate())
    app = create_app(f"sqlite:///{tmp_path / 'memory.db'}")
    server = LiveServer(app).start()
    with httpx.Client(base_url=server.url, timeout=30) as http:
        assert http.post("/v1/users/u1/memories", json={"content": "I live in Oslo."}).status_code == 201
        assert http.get("/v1/users/u1/recall", params={"q": "Oslo"}).json()["hits"]
    services, closed = app.state.services, []
    close = services.close
    services.close = lambda: (closed.append(True), close())[1]
    server.stop()
    deadline = time.monotonic() + 10
    while set(threading.enumerate()) - before and time.monotonic() < deadline:
        time.sleep(0.05)
    assert set(threading.enumerate()) - before == set()
    with pytest.raises(httpx.ConnectError):
        httpx.get(f"{server.url}/healthz", timeout=2)
    assert closed == [True]  # the lifespan closed the store and caches once


EDGES = ("0001-01-01T00:00:00+14:00", "9999-12-31T23:59:59-14:00")  # no such moment in UTC


@pytest.mark.parametrize("when", EDGES)
def test_times_off_the_ends_of_the_calendar_are_422_with_a_reason(client: httpx.Client, when: str) -> None:
    """Issue 36: these were a 500 (OverflowError converting to UTC); nothing is written."""
    user = _user()
    for name in ("as_of", "known_at"):
        r = client.get(f"/v1/users/{user}/recall", params={"q": WHERE, name: when})
        assert r.status_code == 422, r.text
        assert r.json()["detail"].startswith(f"query.{name}: ") and "outside the calendar" in r.text
    for body in ({"content": "I live in Oslo.", "at": when},
                 {"content": [{"content": "I live in Oslo.", "at": when}]}):
        r = client.post(f"/v1/users/{user}/memories", json=body)
        assert r.status_code == 422 and "outside the calendar" in r.text, r.text
    assert client.get(f"/v1/users/{user}/recall", params={"q": "Oslo"}).json()["hits"] == []
    inside = client.get(f"/v1/users/{user}/recall", params={"q": WHERE, "as_of": "9999-12-31T23:59:59Z"})
    assert inside.status_code == 200, inside.text


@pytest.mark.parametrize("body", [
    {"content": "I live in Oslo.", "source_id": "m\ud800"},
    {"content": "I live in Oslo.", "session_id": "s\ud800"},
    {"content": "I live in Oslo.", "agent_id": "a\ud800"},
    {"content": "I live in Oslo.", "speaker": "Ann\ud800"},
    {"content": [{"content": "I live in Oslo.", "source_id": "ok"},
                 {"content": "I work at Acme.", "source_id": "m\ud800"}]},
], ids=["source_id", "session_id", "agent_id", "speaker", "a message's source_id"])
def test_a_lone_surrogate_in_any_text_field_is_422_and_nothing_is_written(client: httpx.Client,
                                                                          body: dict) -> None:
    """Issue 36: in ``content`` it was a 422, in an id a 500 (UnicodeEncodeError from SQLite)."""
    import json

    user = _user()
    r = client.post(f"/v1/users/{user}/memories", content=json.dumps(body),  # the \\ud800 escape
                    headers={"Content-Type": "application/json"})
    assert r.status_code == 422, r.text
    detail = r.json()["detail"]
    assert "is not valid Unicode: a lone surrogate" in detail and "send valid UTF-8" in detail
    assert detail.split(" ")[0] in {"source_id", "session_id", "agent_id", "speaker", "content[1].source_id"}
    assert client.get(f"/v1/users/{user}/recall", params={"q": "Oslo"}).json()["hits"] == []
