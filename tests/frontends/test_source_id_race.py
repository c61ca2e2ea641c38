"""Concurrent POSTs with one source id against a real server (issue 36, item 2): exactly one message
is stored; the others are told ``already_stored`` (same text) or refused with 422 (a different
text), as a later request is. Both stores, uvicorn on 127.0.0.1, the hashing embedder."""

from __future__ import annotations

import threading
import uuid
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest
from test_rest import LiveServer

from dualmem_core import open_store
from dualmem_core.rest import create_app

N = 8


@pytest.fixture
def server_url(store_url: str, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("DUALMEM_EMBEDDER", "hashing")
    for name in ("DUALMEM_LLM_MODEL", "DUALMEM_LLM_BASE_URL", "DUALMEM_LLM_API_KEY", "DUALMEM_STORE"):
        monkeypatch.delenv(name, raising=False)
    server = LiveServer(create_app(store_url)).start()
    yield server.url
    server.stop()


def _post_all(url: str, user: str, texts: list[str]) -> list[httpx.Response]:
    barrier = threading.Barrier(len(texts), timeout=30)

    def post(text: str) -> httpx.Response:
        with httpx.Client(base_url=url, timeout=60) as http:
            barrier.wait()
            return http.post(f"/v1/users/{user}/memories", json={
                "content": text, "source_id": "msg-1", "at": "2025-06-10T09:00:00Z"})

    with ThreadPoolExecutor(len(texts)) as pool:
        return list(pool.map(post, texts))


def _episodes(store_url: str, user: str) -> list:
    store = open_store(store_url)
    try:
        return store.export_graph(user).episodes
    finally:
        store.close()


@pytest.mark.parametrize("same_text", [True, False], ids=["same-text", "different-texts"])
def test_concurrent_posts_with_one_source_id_store_one(server_url, store_url, same_text):
    user = f"u-{uuid.uuid4().hex[:8]}"
    texts = [f"I live in Lisbon{'' if same_text else f' {i}'}." for i in range(N)]
    answers = _post_all(server_url, user, texts)
    created = [r for r in answers if r.status_code == 201 and r.json()["episode_ids"]]
    assert len(created) == 1, [(r.status_code, r.text) for r in answers]
    others = [r for r in answers if r not in created]
    if same_text:
        assert all(r.status_code == 201 and r.json()["already_stored"] == ["msg-1"] for r in others), \
            [(r.status_code, r.text) for r in others]
    else:
        assert all(r.status_code == 422 and "already names a different message" in r.text
                   for r in others), [(r.status_code, r.text) for r in others]
    (episode,) = _episodes(store_url, user)
    assert episode.id == created[0].json()["episode_ids"][0]
