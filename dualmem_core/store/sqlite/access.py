"""Recall counts held in memory and written with the store's next write transaction.

Counting a recall in its own transaction made every recall a write: a commit, a log append and
a checkpoint soon after, about a tenth of a recall's time. Counts are now added here and reach
the file with the next write transaction of this store (a remember, an Editor run, a lease), or
with a recall a second or more after the oldest pending count, or on ``close``. Reads through
this store see them at once (they are added to the memories read). Another process reading the
same file sees them after that flush; a process killed before it loses at most those counts (a
salience signal, not data).
"""

from __future__ import annotations

import sqlite3
import threading
import time

from ...timeutil import from_micros
from ..models import Memory

FLUSH_AFTER_S = 1.0  # a recall flushes the pending counts once the oldest is this old

_UPDATE = ("UPDATE memories SET access_count = access_count + ?, last_accessed_at = ? "
           "WHERE +user_id = ? AND id = ?")


class PendingAccess:
    """Per (user, memory): recalls not yet written, and the time of the last one."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._pending: dict[tuple[str, str], list[int]] = {}  # -> [count, last at (micros)]
        self._oldest: float | None = None  # monotonic time of the oldest pending count

    def add(self, user_id: str, memory_ids: list[str], at: int) -> bool:
        """Count one recall of each memory; True when the pending counts are due to be written."""
        with self._lock:
            for memory_id in memory_ids:
                entry = self._pending.setdefault((user_id, memory_id), [0, at])
                entry[0] += 1
                entry[1] = at  # the last call's time, as consecutive updates would leave it
            if self._oldest is None:
                self._oldest = time.monotonic()
            return time.monotonic() - self._oldest >= FLUSH_AFTER_S

    def pending(self) -> bool:
        return bool(self._pending)

    def take(self) -> dict[tuple[str, str], list[int]]:
        """All pending counts, now owed by the caller (``write`` them, or ``restore`` them)."""
        with self._lock:
            taken, self._pending, self._oldest = self._pending, {}, None
        return taken

    def restore(self, taken: dict[tuple[str, str], list[int]]) -> None:
        """Put back counts whose transaction rolled back; counts added meanwhile are later."""
        if not taken:
            return
        with self._lock:
            for key, (count, at) in taken.items():
                entry = self._pending.get(key)
                if entry is None:
                    self._pending[key] = [count, at]
                else:
                    entry[0] += count
            if self._oldest is None:
                self._oldest = time.monotonic()

    @staticmethod
    def write(conn: sqlite3.Connection, taken: dict[tuple[str, str], list[int]]) -> None:
        """Add taken counts to the file, inside the caller's transaction; unknown ids are ignored."""
        if taken:
            conn.executemany(_UPDATE, [(count, at, user, memory)
                                       for (user, memory), (count, at) in taken.items()])

    def seen(self, memories: list[Memory]) -> list[Memory]:
        """The memories with their pending counts added, as the file will hold them."""
        if not self._pending:
            return memories
        with self._lock:
            for memory in memories:
                entry = self._pending.get((memory.user_id, memory.id))
                if entry is not None:
                    memory.access_count += entry[0]
                    memory.last_accessed_at = from_micros(entry[1])
        return memories
