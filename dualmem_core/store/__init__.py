"""Stores: one bitemporal graph contract, chosen by URL like SQLAlchemy's ``create_engine``.

``sqlite:///path/to/memory.db`` is the embedded default (one file, no server);
``bolt://``, ``neo4j://``, ``neo4j+s://`` (and ``+ssc``) reach a Neo4j server, Aura or cluster.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from ..errors import StoreConfigError
from ..extras import require
from .base import DEFAULT_DIMENSION, Store
from .models import (
    WRITER,
    Edge,
    EdgeType,
    Entity,
    Episode,
    Memory,
    MemoryVersion,
    Neighbour,
    SearchFilter,
    SearchHit,
    UserGraph,
    WriteBatch,
)

ENV_STORE = "DUALMEM_STORE"
NEO4J_SCHEMES = ("bolt", "bolt+s", "bolt+ssc", "neo4j", "neo4j+s", "neo4j+ssc")


def default_store_url() -> str:
    """``DUALMEM_STORE`` if set, else an embedded file in the user's data directory."""
    url = os.environ.get(ENV_STORE, "").strip()
    if url:
        return url
    from platformdirs import user_data_dir

    return f"sqlite:///{Path(user_data_dir('dualmem')) / 'memory.db'}"


def _open_sqlite(url: str, dimension: int | None, create: bool, **options: object) -> Store:
    from .sqlite.store import SQLiteStore

    if options:
        raise StoreConfigError(f"unknown options for the embedded store: {sorted(options)}")
    parts = urlsplit(url)
    path = unquote(parts.netloc + parts.path) if parts.netloc else unquote(parts.path)
    # sqlite:///relative.db -> "/relative.db" is ambiguous; follow SQLAlchemy: three slashes
    # mean a path relative to the working directory, four an absolute one.
    if url.startswith("sqlite:////"):
        path = "/" + path.lstrip("/")
    elif url.startswith("sqlite:///"):
        path = path[1:] if path.startswith("/") else path
    if not path or path == ":memory:":
        raise StoreConfigError(
            f"{url!r} names no file; use sqlite:///memory.db (relative) or sqlite:////abs/path.db"
        )
    return SQLiteStore(path, dimension, create=create)


def _open_neo4j(url: str, dimension: int | None, create: bool, **options: Any) -> Store:
    # A Neo4j database exists on its server or the connection fails; there is no file to make by
    # mistake, and setting up its indexes on an empty one is harmless, so create changes nothing.
    require("neo4j", "neo4j", "The Neo4j store")
    from .neo4j.store import Neo4jStore

    return Neo4jStore(url, dimension=dimension, **options)


_BACKENDS: dict[str, Callable[..., Store]] = {"sqlite": _open_sqlite}
_BACKENDS.update({scheme: _open_neo4j for scheme in NEO4J_SCHEMES})


def open_store(url: str | None = None, *, dimension: int | None = None, create: bool = True,
               **options: object) -> Store:
    """Open (and set up, idempotently) the store at ``url``.

    With no URL, ``DUALMEM_STORE`` decides, and failing that an embedded file under the user's
    data directory. ``dimension`` fixes the embedding size of a new store and is checked
    against an existing one. Neo4j accepts ``user``, ``password`` and ``database`` options
    (or ``NEO4J_USER``/``NEO4J_USERNAME``, ``NEO4J_PASSWORD``, ``NEO4J_DATABASE``).

    ``create`` is like SQLite's ``mode=rwc`` against ``mode=rw``: True (the default, so that
    ``open_store`` then ``Writer.remember`` just works) makes a missing embedded store, and sets
    ``store.created``; False raises ``StoreNotFound`` naming the absolute path instead, which is
    what a read should do, so that a mistyped URL does not answer from a new, empty store.
    """
    url = url if url is not None else default_store_url()
    if not isinstance(url, str) or "://" not in url:
        raise StoreConfigError(
            f"store URL {url!r} is not a URL; use sqlite:///path/memory.db or bolt://host:7687"
        )
    scheme = url.split("://", 1)[0].lower()
    backend = _BACKENDS.get(scheme)
    if backend is None:
        known = ", ".join(f"{s}://" for s in _BACKENDS)
        raise StoreConfigError(f"unknown store URL scheme {scheme!r} in {url!r}; use one of {known}")
    return backend(url, dimension, create, **options)


__all__ = [
    "DEFAULT_DIMENSION", "ENV_STORE", "WRITER", "Edge", "EdgeType", "Entity", "Episode", "Memory",
    "MemoryVersion", "Neighbour", "SearchFilter", "SearchHit", "Store", "UserGraph", "WriteBatch",
    "default_store_url", "open_store",
]
