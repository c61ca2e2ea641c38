"""Shared fixtures: a real Neo4j for the whole session, and one store per backend.

Neo4j comes from ``NEO4J_URI`` (with ``NEO4J_USER``/``NEO4J_PASSWORD``) when set, otherwise
from the embedded launcher built from Maven Central artifacts. Under ``CI=true`` a Neo4j that
cannot start fails the run; elsewhere its tests are skipped with the reason.
"""

from __future__ import annotations

import os
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from dualmem_core import open_store
from dualmem_core.store import DEFAULT_DIMENSION, Store

DIM = DEFAULT_DIMENSION
IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")
# Nothing a test runs writes into the real user data directory (the default store, the pipeline's
# default snapshot folder): it is a fresh folder for each session, for child processes too.
os.environ["XDG_DATA_HOME"] = tempfile.mkdtemp(prefix="dualmem-tests-data-")


def unavailable(message: str) -> None:
    """A service or library a test needs is missing: under CI=true the test fails (a test must not
    vanish from CI silently); elsewhere it is skipped with the reason."""
    if IN_CI:
        pytest.fail(message, pytrace=False)
    pytest.skip(message)


@pytest.fixture(scope="session")
def neo4j_uri(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The Bolt URI of a real Neo4j, started for this test session unless NEO4J_URI is set."""
    if os.environ.get("NEO4J_URI"):
        yield os.environ["NEO4J_URI"]
        return
    from dualmem_core.local_neo4j import LocalNeo4j, Neo4jUnavailable, ensure_built

    server = LocalNeo4j(tmp_path_factory.mktemp("neo4j") / "data")
    try:
        ensure_built()
        uri = server.start()
    except Neo4jUnavailable as exc:
        server.stop()
        unavailable(f"Neo4j could not start: {exc}")
    try:
        yield uri
    finally:
        server.stop()


@pytest.fixture(scope="session")
def neo4j_store(neo4j_uri: str) -> Iterator[Store]:
    store = open_store(neo4j_uri, dimension=DIM)
    yield store
    store.close()


@pytest.fixture
def two_stores(neo4j_uri: str) -> Iterator[tuple[Store, Store]]:
    """Two independent store objects on one server (each with its own per-process caches)."""
    first, second = open_store(neo4j_uri, dimension=DIM), open_store(neo4j_uri, dimension=DIM)
    yield first, second
    first.close()
    second.close()


@pytest.fixture(params=["sqlite", pytest.param("neo4j", marks=pytest.mark.neo4j)])
def backend(request: pytest.FixtureRequest) -> str:
    return request.param


@pytest.fixture
def store_url(backend: str, tmp_path: Path, request: pytest.FixtureRequest) -> str:
    """A URL for a store of the parametrized backend (a fresh file for SQLite)."""
    if backend == "sqlite":
        return f"sqlite:///{tmp_path / 'memory.db'}"
    return request.getfixturevalue("neo4j_uri")


@pytest.fixture
def store(backend: str, store_url: str, request: pytest.FixtureRequest) -> Iterator[Store]:
    """An open store of each backend. Neo4j is shared, so tests use fresh user ids."""
    if backend == "neo4j":
        yield request.getfixturevalue("neo4j_store")
        return
    opened = open_store(store_url, dimension=DIM)
    yield opened
    opened.close()


@pytest.fixture
def user() -> str:
    return f"user-{uuid.uuid4().hex[:10]}"


@pytest.fixture
def other_user() -> str:
    return f"other-{uuid.uuid4().hex[:10]}"


def vec(*hot: float, seed: int | None = None) -> np.ndarray:
    """A test vector: the given leading components, or a seeded random unit vector."""
    if seed is not None:
        v = np.random.default_rng(seed).standard_normal(DIM).astype(np.float32)
        return v / np.linalg.norm(v)
    v = np.zeros(DIM, dtype=np.float32)
    v[: len(hot)] = hot
    return v
