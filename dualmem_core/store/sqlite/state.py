"""What the embedded store's mixins share: the state ``SQLiteStore`` sets up and the helpers
one mixin defines for another, declared once so each mixin is typed on its own.

Each mixin (``writes``, ``changes``, ``forget``, ``search``, ``reads``) subclasses
``SQLiteState``; ``SQLiteStore`` (store.py) composes them and sets these attributes in
``__init__``. The methods here are defined by the module named beside each.
"""

from __future__ import annotations

import sqlite3
import threading
from abc import abstractmethod
from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TypeVar

from ..base import Store
from ..lru import LeastRecent
from ..models import Memory, MemoryVersion, SearchHit
from ..planning import Ref, TargetState
from .access import PendingAccess
from .kept_reads import KeptReads
from .text_index import Tokenizer, UserText
from .vectors import UserVectors

Rows = TypeVar("Rows")
V = TypeVar("V")


class SQLiteState(Store):
    """The attributes and cross-mixin helpers of ``SQLiteStore``."""

    path: Path
    busy_timeout: float
    _local: threading.local  # this thread's connection; ``reading``'s generations and counts_at
    _lock: threading.Lock
    _caches: LeastRecent[str, UserVectors]
    _texts: LeastRecent[str, UserText]
    _kept: LeastRecent[str, KeptReads]
    _counts_written: int
    _tokenizer: Tokenizer | None
    _access: PendingAccess

    # -- connections and transactions (store.py) ------------------------------------------

    @abstractmethod
    def _conn(self) -> sqlite3.Connection: ...

    @abstractmethod
    def _tx(self, write: bool = True) -> AbstractContextManager[sqlite3.Connection]: ...

    # -- writes.py ------------------------------------------------------------------------

    @abstractmethod
    def _read_state(self, conn: sqlite3.Connection, refs: set[Ref]) -> dict[Ref, TargetState]: ...

    @abstractmethod
    def _insert_rows(self, conn: sqlite3.Connection, table: str, records: list, now: int) -> None: ...

    @abstractmethod
    def _bump(self, conn: sqlite3.Connection, user_id: str) -> int: ...

    @abstractmethod
    def _drop_cache(self, user_id: str) -> None: ...

    # -- forget.py ------------------------------------------------------------------------

    @staticmethod
    @abstractmethod
    def _delete_rows(conn: sqlite3.Connection, user_id: str) -> dict[str, int]: ...

    # -- search.py ------------------------------------------------------------------------

    @abstractmethod
    def _vectors(self, user_id: str) -> UserVectors: ...

    @abstractmethod
    def _generation(self, user_id: str) -> int: ...

    @abstractmethod
    def _hits(self, user_id: str, scored: list[tuple[int, float]],
              found: dict[int, tuple[MemoryVersion, Memory]] | None = None) -> list[SearchHit]: ...

    @abstractmethod
    def _count_kept(self, taken: dict[tuple[str, str], list[int]]) -> None: ...

    # -- reads.py -------------------------------------------------------------------------

    @abstractmethod
    def _kept_at(self, user_id: str, generation: int) -> KeptReads: ...

    @abstractmethod
    def _kept_pairs(self, user_id: str, name: str, ids: list[str],
                    read: Callable[[sqlite3.Connection, list[str]], list]) -> dict[str, list]: ...

    @abstractmethod
    def _through_kept(self, user_id: str, wanted: list[str],
                      missing: Callable[[KeptReads, list[str]], list[str]],
                      read: Callable[[sqlite3.Connection, list[str]], Rows],
                      keep: Callable[[KeptReads, list[str], Rows], None],
                      answer: Callable[[KeptReads, list[str]], dict[str, V]]) -> dict[str, V]: ...
