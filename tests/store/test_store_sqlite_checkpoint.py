"""The embedded store copies its write-ahead log back into the database in the background."""

from __future__ import annotations

import time
from pathlib import Path

from builders import Builder

from dualmem_core.store.sqlite.store import SQLiteStore


def test_writes_are_checkpointed_off_the_writer_and_close_stops_the_thread(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "ckpt.db", dimension=8)
    b = Builder("u")
    for i in range(50):
        b.memory(f"memory number {i}")
    store.write(b.batch)
    thread = store._checkpointer._thread
    assert thread is not None and thread.is_alive()
    db = tmp_path / "ckpt.db"
    before = db.stat().st_size  # the pages are in the log; the backstop is far from due
    deadline = time.monotonic() + 10
    while db.stat().st_size == before and time.monotonic() < deadline:
        time.sleep(0.05)
    assert db.stat().st_size > before  # copied back by the background checkpoint
    assert store.counts("u")["memories"] == 50
    store.close()
    assert not thread.is_alive()
