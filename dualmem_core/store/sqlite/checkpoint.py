"""Copying the write-ahead log back into the database file, off the writer's path.

SQLite's automatic checkpoint runs inside whichever commit crosses the threshold: that commit
copies a thousand pages and waits for two fsyncs (about a tenth of batched write time, and the
slowest single writes). Here a background thread checkpoints (PASSIVE: it never blocks a
reader or writer) a moment after writes, and the store's connections keep SQLite's own
checkpoint only as a backstop at a larger log size.
"""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

BACKSTOP_PAGES = 10_000  # wal_autocheckpoint of the store's connections: ~40 MB of log
COALESCE_S = 0.1  # writes within this long after the first share one checkpoint


class Checkpointer:
    def __init__(self, path: Path):
        self._path = path
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._stopping = False
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    def written(self) -> None:
        """Called after a commit: a checkpoint follows shortly."""
        with self._lock:
            if self._stopping:
                return
            if self._thread is None:
                self._thread = threading.Thread(target=self._loop, name="dualmem-checkpoint", daemon=True)
                self._thread.start()
        self._wake.set()

    def close(self) -> None:
        with self._lock:
            self._stopping, thread = True, self._thread
        self._stop.set()
        self._wake.set()
        if thread is not None:
            thread.join()

    def _loop(self) -> None:
        try:
            conn = sqlite3.connect(self._path, isolation_level=None, check_same_thread=False, timeout=30.0)
        except sqlite3.Error:
            return  # the connections' own checkpoint (the backstop) still runs
        try:
            conn.execute("PRAGMA synchronous=NORMAL")
            while True:
                self._wake.wait()
                self._wake.clear()
                if self._stop.wait(COALESCE_S):  # let a burst of writes finish (or stop)
                    return
                try:
                    conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
                except sqlite3.Error:
                    pass  # busy or gone: the next write wakes us again, and the backstop remains
        finally:
            conn.close()
