"""The red-team pass on REST (issue 36): bad input of every kind sent to one real ``dualmem serve``
subprocess, with API tokens in force. Every answer is a status with ``{"error", "detail"}``, never
a 500, and a refused request writes nothing. The rows marked "fixed" failed before the pass."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NamedTuple

import httpx
import pytest
from serving import free_port, wait_until_listening

from dualmem_core.service.tokens import TokenFile, tokens_path

ROOT = Path(__file__).resolve().parents[2]
U = "/v1/users/u1"


class Served(NamedTuple):
    http: httpx.Client  # holds an all-users token
    tokens: TokenFile
    db: Path


@pytest.fixture(scope="module")
def api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """A client holding an all-users token, on a served store that already has one message (s1)."""
    folder = tmp_path_factory.mktemp("redteam-rest")
    store = f"sqlite:///{folder / 'memory.db'}"
    tokens = TokenFile(tokens_path(store))
    _, secret = tokens.create([], all_users=True)
    port, log = free_port(), folder / "server.log"
    env = {**os.environ, "DUALMEM_EMBEDDER": "hashing", "DUALMEM_CACHE_MODE": "off"}
    with log.open("w") as out:
        server = subprocess.Popen(
            [sys.executable, "-m", "dualmem_core.cli", "serve", "--port", str(port), "--store", store],
            cwd=ROOT, env=env, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT)
        try:
            wait_until_listening(server, port, log)
            with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=60,
                              headers={"Authorization": f"Bearer {secret}"}) as http:
                http.post(f"{U}/memories", json={"content": "I live in Oslo.", "source_id": "s1"}
                          ).raise_for_status()
                yield Served(http, tokens, folder / "memory.db")
        finally:
            server.terminate()
            server.wait(timeout=30)


def episodes(served: Served) -> int:
    """Every stored message, read from the served SQLite file itself (read-only)."""
    with sqlite3.connect(f"file:{served.db}?mode=ro", uri=True) as db:
        return db.execute("SELECT count(*) FROM episodes").fetchone()[0]


BAD_BODIES: list[tuple[str, Any, str]] = [  # (what, JSON body, words the detail holds)
    ("empty content", {"content": ""}, "empty"),
    ("whitespace content", {"content": " \n\t"}, "empty"),
    ("number content", {"content": 5}, "body.content: must be text"),
    ("null content", {"content": None}, "body.content: must be text"),
    ("object content", {"content": {"a": 1}}, "body.content: must be text"),
    ("empty list", {"content": []}, "empty list"),
    ("list of numbers", {"content": [1, 2]}, "body.content[0]: must be an object"),
    ("unknown field", {"content": "hi", "bogus": 1}, "body.bogus: is not a field"),
    ("unknown field in a message", {"content": [{"content": "x", "zzz": 1}]}, "body.content[0].zzz"),
    ("number source id", {"content": "hi", "source_id": 7}, "body.source_id: must be text"),
    ("empty source id", {"content": "hi", "source_id": ""}, "non-empty"),
    ("source id with spaces at its ends (fixed: ' a ' and 'a' were two ids)",
     {"content": "hi", "source_id": " a "},
     "source_id ' a ' starts or ends with whitespace"),
    ("a message's source id ending in a newline (fixed)", {"content": [{"content": "x", "source_id": "b\n"}]},
     "content[0].source_id 'b\\n' starts or ends"),
    ("session id with a leading tab (fixed)", {"content": "hi", "session_id": "\ts"},
     "session_id '\\ts' starts"),
    ("NUL in source id (fixed)", {"content": "hi", "source_id": "a\x00b"}, "source_id holds a NUL"),
    ("NUL in a message's source id (fixed)", {"content": [{"content": "x", "source_id": "\x00"}]},
     "content[0].source_id holds a NUL"),
    ("NUL in session id (fixed)", {"content": "hi", "session_id": "s\x00"}, "session_id holds a NUL"),
    ("lone surrogate in source id", {"content": "hi", "source_id": "\ud800"}, "lone surrogate"),
    ("source id over 1,024 characters (fixed: a 500 on Neo4j)", {"content": "hi", "source_id": "x" * 1025},
     "at most 1,024"),
    ("dict speaker", {"content": "hi", "speaker": {"a": 1}}, "body.speaker: must be text"),
    ("unknown role", {"content": "hi", "role": "root"}, "body.role: must be one of"),
    ("words for a date", {"content": "hi", "at": "yesterday"}, "body.at: is not an ISO 8601"),
    ("offset past 24 h", {"content": "hi", "at": "2024-01-01T00:00:00+25:00"}, "body.at"),
    ("year 0", {"content": "hi", "at": "0000-01-01"}, "body.at"),
    ("off the calendar in UTC", {"content": "hi", "at": "0001-01-01T00:00:00+14:00"}, "outside the calendar"),
    ("same source id twice in a batch", {"content": [{"content": "a", "source_id": "d"},
                                                     {"content": "b", "source_id": "d"}]}, "source_id 'd'"),
    ("a list body", [1, 2], "body: must be an object"),
    ("a string body", "hello", "body: must be an object"),
    ("over the message limit", {"content": "x " * 50_001}, "at most 100,000"),
]


@pytest.mark.parametrize(("what", "body", "words"), BAD_BODIES, ids=[row[0] for row in BAD_BODIES])
def test_a_bad_remember_body_is_422_in_our_shape_and_writes_nothing(api: Served,
                                                                    what: str, body: Any, words: str) -> None:
    http = api.http
    before = episodes(api)
    r = http.post(f"{U}/memories", content=json.dumps(body),  # ASCII escapes, lone surrogates too
                  headers={"content-type": "application/json"})
    assert r.status_code == 422 and r.json()["error"] == "InvalidInput", r.text
    assert words in r.json()["detail"], r.text
    assert episodes(api) == before


RAW_BODIES = [  # (what, bytes, content type, status, error); the 400s were {"detail"} only (fixed)
    ("truncated JSON", b'{"content": ', "application/json", 422, "InvalidInput"),
    ("not UTF-8 (fixed)", b'{"content": "\xff\xfe"}', "application/json", 400, "BadRequest"),
    ("nested 100,000 deep (fixed)", b"[" * 100_000 + b"]" * 100_000, "application/json", 400, "BadRequest"),
    ("a 5,000-digit number (fixed)", b'{"content": "a", "at": 1' + b"0" * 5000 + b"}", "application/json",
     400, "BadRequest"),
    ("NaN", b'{"content": NaN}', "application/json", 422, "InvalidInput"),
    ("no body", b"", "application/json", 422, "InvalidInput"),
    ("text/plain", b'{"content": "hi"}', "text/plain", 422, "InvalidInput"),
    ("a form", b"content=hi", "application/x-www-form-urlencoded", 422, "InvalidInput"),
]


@pytest.mark.parametrize(("what", "raw", "kind", "code", "error"), RAW_BODIES, ids=[r[0] for r in RAW_BODIES])
def test_a_body_that_is_not_a_json_object_is_refused_in_our_shape(api: Served, what: str,
                                                                  raw: bytes, kind: str, code: int,
                                                                  error: str) -> None:
    http = api.http
    r = http.post(f"{U}/memories", content=raw, headers={"content-type": kind})
    assert (r.status_code, r.json()["error"]) == (code, error), r.text
    assert "body" in r.json()["detail"]


BAD_QUERIES: list[tuple[str, Any, str]] = [  # recall's query string
    ("k of 10^20", {"q": "hi", "k": 10**20}, "query.k: must be at most 100"),
    ("negative k", {"q": "hi", "k": -1}, "query.k: must be at least 1"),
    ("k not a number", {"q": "hi", "k": "abc"}, "query.k: must be a whole number"),
    ("fractional k", {"q": "hi", "k": 1.5}, "query.k: must be a whole number"),
    ("two k, the last too big", [("q", "a"), ("k", "1"), ("k", "200")], "query.k: must be at most 100"),
    ("empty query", {"q": ""}, "query.q: must not be empty"),
    ("no query", {}, "query.q: is required"),
    ("month 13", {"q": "hi", "as_of": "2024-13-45"}, "query.as_of: is not an ISO 8601"),
    ("a float for a date", {"q": "hi", "as_of": "1e10"}, "query.as_of: is not an ISO 8601"),
    ("offset of 99 h", {"q": "hi", "as_of": "2024-01-01T00:00:00+99:00"}, "query.as_of"),
    ("known_at off the calendar", {"q": "hi", "known_at": "0001-01-01T00:00:00+14:00"},
     "outside the calendar"),
    ("NUL in session id (fixed)", {"q": "hi", "session_id": "\x00"}, "session_id holds a NUL"),
    ("an unknown parameter (fixed: it was ignored)", {"q": "Oslo", "zzz": "1"},
     "query.zzz: is not a parameter of this endpoint (it takes agent_id, as_of, k, known_at, q, session_id)"),
    ("a misspelt parameter (fixed)", {"q": "Oslo", "asof": "2020-01-01"}, "query.asof: is not a parameter"),
]


@pytest.mark.parametrize(("what", "params", "words"), BAD_QUERIES, ids=[row[0] for row in BAD_QUERIES])
def test_a_bad_recall_query_is_422_in_our_shape(api: Served, what: str, params: Any,
                                                words: str) -> None:
    r = api.http.get(f"{U}/recall", params=params)
    assert r.status_code == 422 and r.json()["error"] == "InvalidInput", r.text
    assert words in r.json()["detail"], r.text


ANSWERED = [  # held: odd but harmless requests answer 200
    ("as_of in the future", {"q": "Oslo", "as_of": "2999-01-01T00:00:00Z"}),
    ("as_of at the last day", {"q": "Oslo", "as_of": "9999-12-31"}),
    ("duplicate q (the last counts)", [("q", "nothing"), ("q", "Oslo")]),
    ("a NUL in the question", {"q": "\x00"}),
    ("a 60,000-character question", {"q": "x" * 60_000}),
]


@pytest.mark.parametrize(("what", "params"), ANSWERED, ids=[row[0] for row in ANSWERED])
def test_odd_but_harmless_recalls_answer(api: Served, what: str, params: Any) -> None:
    r = api.http.get(f"{U}/recall", params=params)
    assert r.status_code == 200 and "hits" in r.json(), r.text


USERS = [  # the user in the path, as sent on the wire
    ("%2E%2E", 422, "InvalidInput"), ("%00", 422, "InvalidInput"), ("u%20", 422, "InvalidInput"),
    ("%20u", 422, "InvalidInput"), ("a%0Ab", 422, "InvalidInput"), ("x" * 600, 422, "InvalidInput"),
    ("..", 404, "NotFound"), ("a%2Fb", 404, "NotFound"),  # the path routes nowhere (fixed: our shape)
    ("%F0%9F%98%80", 200, None), ("Zo%C3%AB%20B", 200, None),  # unicode users are users
]


@pytest.mark.parametrize(("user", "code", "error"), USERS, ids=[row[0][:12] for row in USERS])
def test_user_ids_in_the_path(api: Served, user: str, code: int, error: str | None) -> None:
    r = api.http.get(f"/v1/users/{user}/recall?q=hi")
    assert r.status_code == code, r.text
    assert r.json().get("error") == error, r.text


def test_a_nul_source_id_used_to_be_stored_and_then_could_not_be_forgotten(
        api: Served) -> None:
    """Before the fix: 201, then DELETE ?source_id=a%00b answered 200 and deleted nothing."""
    http = api.http
    assert http.post(f"{U}/memories", json={"content": "nul sid", "source_id": "a\x00b"}).status_code == 422
    r = http.delete(f"{U}/memories", params={"source_id": "a\x00b"})
    assert r.status_code == 422 and "NUL" in r.json()["detail"], r.text
    assert http.get(f"{U}/memories/mem%00x/history").status_code == 422


METHODS = [("PUT", f"{U}/memories", 405), ("PATCH", f"{U}/recall", 405), ("TRACE", "/healthz", 405),
           ("OPTIONS", f"{U}/memories", 405), ("GET", "/", 404), ("GET", "/v1/users", 404),
           ("POST", "/healthz", 405)]


@pytest.mark.parametrize(("method", "path", "code"), METHODS, ids=[f"{m} {p}" for m, p, _ in METHODS])
def test_wrong_methods_and_paths_are_answered_in_our_shape(api: Served, method: str,
                                                           path: str, code: int) -> None:
    """Fixed: Starlette's {"detail": "Not Found"} / "Method Not Allowed" without an error name."""
    r = api.http.request(method, path)
    assert r.status_code == code, r.text
    body = r.json()
    assert body["error"] == ("NotFound" if code == 404 else "MethodNotAllowed"), body
    assert path in body["detail"], body
    if code == 405:
        assert "it takes" in body["detail"] and r.headers["allow"]


def test_head_healthz_answers_like_get_without_a_body(api: Served) -> None:
    """Fixed: a 405, so ``curl -I`` health checks failed."""
    r = api.http.head("/healthz")
    assert r.status_code == 200 and r.content == b"", r.text
    assert r.headers["content-type"] == "application/json"
    assert api.http.get("/healthz").json()["status"] == "ok"
    assert api.http.head(f"{U}/recall?q=x").status_code == 405  # only /healthz takes HEAD


FLAGS = [("POST", f"{U}/editor/runs", "dry_run"), ("POST", f"{U}/editor/runs/run_nope/rollback", "cascade")]


@pytest.mark.parametrize("value", ["yes", "1", "on", "True", ""])
@pytest.mark.parametrize(("method", "path", "flag"), FLAGS, ids=[f for _, _, f in FLAGS])
def test_a_flag_is_only_true_or_false(api: Served, method: str, path: str, flag: str, value: str) -> None:
    """Fixed: pydantic's lax mode read yes, 1, on and t as true."""
    r = api.http.request(method, path, params={flag: value})
    assert r.status_code == 422 and r.json()["error"] == "InvalidInput", r.text
    assert r.json()["detail"] == f"query.{flag}: must be true or false", r.text


def test_unknown_query_parameters_are_refused_on_every_endpoint(api: Served) -> None:
    """Fixed: ignored, so ``DELETE /memories?sourceid=s1`` or ``/healthz?x`` looked accepted."""
    before = episodes(api)
    for method, path in [("DELETE", f"{U}/memories?source_id=s1&sourceid=s1"), ("DELETE", f"{U}?force=1"),
                         ("GET", "/healthz?verbose=1"), ("POST", f"{U}/memories?source_id=s9")]:
        r = api.http.request(method, path, json={"content": "I live in Rome."})
        assert r.status_code == 422 and r.json()["error"] == "InvalidInput", (path, r.text)
        assert "is not a parameter of this endpoint" in r.json()["detail"], r.text
    assert episodes(api) == before


GARBLED = [None, "", "Bearer", "Basic dXNlcjpwYXNz", "Bearer dm_wrong", "bearer   dm_wrong",
           b"Bearer dm_\xff\xfe", "Token abc"]


@pytest.mark.parametrize("header", GARBLED, ids=[repr(h) for h in GARBLED])
def test_a_missing_or_garbled_authorization_header_is_401(api: Served, header: str | bytes | None) -> None:
    http = api.http
    headers = [(k.encode(), v.encode()) for k, v in http.headers.items() if k.lower() != "authorization"]
    if header is not None:
        headers.append((b"Authorization", header if isinstance(header, bytes) else header.encode()))
    r = httpx.delete(f"{http.base_url}{U}", headers=headers, timeout=30)
    assert r.status_code == 401 and r.json()["error"] == "Unauthorized", r.text
    assert r.headers["www-authenticate"].startswith("Bearer")
    assert episodes(api) >= 1  # nothing deleted


def test_a_revoked_token_is_401_at_once(api: Served) -> None:
    http, tokens = api.http, api.tokens
    token, secret = tokens.create(["u1"])
    bearer = {"Authorization": f"Bearer {secret}"}
    ok = httpx.get(f"{http.base_url}{U}/recall", params={"q": "Oslo"}, headers=bearer)
    assert ok.status_code == 200
    other = httpx.get(f"{http.base_url}/v1/users/u2/recall", params={"q": "Oslo"}, headers=bearer)
    assert other.status_code == 403 and other.json()["error"] == "TenantViolation"
    tokens.revoke(token.id)
    gone = httpx.get(f"{http.base_url}{U}/recall", params={"q": "Oslo"}, headers=bearer)
    assert gone.status_code == 401, gone.text
