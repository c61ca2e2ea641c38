"""What the Neo4j store's mixins share: the state ``Neo4jStore`` sets up and the helpers one
mixin defines for another, declared once so each mixin is typed on its own.

Each mixin (``writes``, ``changes``, ``forget``, ``search``, ``reads``) subclasses
``Neo4jState``; ``Neo4jStore`` (store.py) composes them and sets these attributes in
``__init__``. The methods here are defined by the module named beside each.
"""

from __future__ import annotations

import threading
from abc import abstractmethod
from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING, Any, TypeVar

import neo4j

from ..base import Store
from ..models import EdgeType, SearchHit
from ..planning import Ref, TargetState
from .vectors import VectorCache

if TYPE_CHECKING:  # store.py imports the mixins, which import this
    from .store import _AccessRecorder

T = TypeVar("T")


class Neo4jState(Store):
    """The attributes and cross-mixin helpers of ``Neo4jStore``."""

    database: str | None
    retry_seconds: float
    _driver: neo4j.Driver
    # ``tx``: the read transaction of this thread's ``reading()`` block; ``sources``: the
    # ``sources_of`` answers read in it, by memory id
    _pinned: threading.local
    _accesses: _AccessRecorder
    _vectors: VectorCache  # the Writer's SIMILAR_TO neighbours

    # -- plumbing (store.py) --------------------------------------------------------------

    @abstractmethod
    def _run(self, work: Callable[..., T], *args: Any, write: bool = True) -> T: ...

    # -- writes.py ------------------------------------------------------------------------

    @abstractmethod
    def _read_state(self, tx: neo4j.ManagedTransaction, refs: set[Ref], lock: bool = False,
                    edge_types: dict[str, EdgeType] | None = None) -> dict[Ref, TargetState]: ...

    @abstractmethod
    def _insert(self, tx: neo4j.ManagedTransaction, user_id: str, tables: dict[str, list], now: datetime,
                seq: int | None = None, wanted: set[Ref] | None = None) -> tuple[str | None, int]: ...

    # -- search.py ------------------------------------------------------------------------

    @abstractmethod
    def _search(self, query: str, params: dict) -> list[SearchHit]: ...

    # -- reads.py -------------------------------------------------------------------------

    @abstractmethod
    def _flush_accesses(self) -> None: ...
