"""The REST server's /docs works offline: FastAPI's Swagger UI and ReDoc pages load their assets
from a CDN and are blank without internet; ours is one page with nothing to fetch elsewhere."""

from __future__ import annotations

import html
import re

import httpx
import pytest
from fastapi.testclient import TestClient

from dualmem_core.rest import create_app


@pytest.fixture
def client(tmp_path, monkeypatch):
    monkeypatch.setenv("DUALMEM_EMBEDDER", "hashing")
    for name in ("DUALMEM_LLM_MODEL", "DUALMEM_LLM_BASE_URL", "DUALMEM_LLM_API_KEY", "DUALMEM_STORE"):
        monkeypatch.delenv(name, raising=False)
    # base_url: the API answers only loopback names in Host (rest/hosts.py), not TestClient's "testserver"
    with TestClient(create_app(f"sqlite:///{tmp_path / 'memory.db'}"), base_url="http://localhost") as client:
        yield client


def test_docs_reference_nothing_outside_the_server(client) -> None:
    r = client.get("/docs")
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")
    page = r.text
    assert not re.search(r"""(src|href)\s*=\s*['"]?(https?:)?//""", page), "an asset from elsewhere"
    assert "<script" not in page and "@import" not in page and "url(" not in page
    links = re.findall(r"""(?:src|href)\s*=\s*['"]([^'"#]+)['"]""", page)
    assert links == ["openapi.json"]
    for link in links:  # everything it refers to is served by the server itself
        assert client.get(str(httpx.URL("http://localhost/docs").join(link))).status_code == 200


def test_docs_show_every_operation_and_schema(client) -> None:
    spec = client.get("/openapi.json").json()
    page = client.get("/docs").text
    for path, methods in spec["paths"].items():
        assert f"<code>{html.escape(path)}</code>" in page
        for op in methods.values():
            assert f"id='{op['operationId']}'" in page
    for name in spec["components"]["schemas"]:
        assert f"id='schema-{name}'" in page
    assert "href='#schema-RememberIn'" in page  # a body's schema links to its fields
    assert "source_id" in page and "Example:" in page  # RememberIn's example body


def test_no_cdn_page_is_left_behind(client) -> None:
    assert client.get("/redoc").status_code == 404
