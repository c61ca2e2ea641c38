"""Recall counts in the embedded store are held in memory and written with the next write:
visible at once through the store that counted them, in the file after a write, a due recall
or ``close``, and kept when the write they rode on rolls back."""

from __future__ import annotations

import pytest
from builders import Builder, at
from conftest import DIM, vec

from dualmem_core import open_store
from dualmem_core.errors import ConflictError
from dualmem_core.store.sqlite import access


def _count(url: str, user: str, memory_id: str) -> tuple[int, object]:
    """What the file holds, read by a store of its own (no pending counts of ours)."""
    other = open_store(url, dimension=DIM)
    try:
        [got] = other.get_memories(user, [memory_id])
        return got.access_count, got.last_accessed_at
    finally:
        other.close()


@pytest.fixture
def url(tmp_path) -> str:
    return f"sqlite:///{tmp_path / 'access.db'}"


def test_counts_are_seen_at_once_and_reach_the_file_on_close(url: str) -> None:
    store = open_store(url, dimension=DIM)
    b = Builder("u1")
    mem, _ = b.memory("I like green tea", vec(1))
    store.write(b.batch)
    store.record_access("u1", [mem.id], at=at(4))
    store.record_access("u1", [mem.id, "mem_unknown"], at=at(5))
    [got] = store.get_memories("u1", [mem.id])
    assert (got.access_count, got.last_accessed_at) == (2, at(5))
    assert _count(url, "u1", mem.id) == (0, None)  # not written yet
    [graph_memory] = store.export_graph("u1").memories
    assert graph_memory.access_count == 2  # an export (an Editor snapshot) includes them
    store.close()
    assert _count(url, "u1", mem.id) == (2, at(5))


def test_counts_ride_along_with_the_next_write(url: str) -> None:
    store = open_store(url, dimension=DIM)
    b = Builder("u1")
    mem, _ = b.memory("I like green tea", vec(1))
    store.write(b.batch)
    store.record_access("u1", [mem.id], at=at(4))
    b2 = Builder("u1")
    b2.memory("I play chess", vec(2))
    store.write(b2.batch)
    assert _count(url, "u1", mem.id) == (1, at(4))
    [got] = store.get_memories("u1", [mem.id])
    assert got.access_count == 1  # written once, not counted twice
    store.close()
    assert _count(url, "u1", mem.id) == (1, at(4))


def test_a_due_recall_writes_the_counts(url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    store = open_store(url, dimension=DIM)
    b = Builder("u1")
    mem, _ = b.memory("I like green tea", vec(1))
    store.write(b.batch)
    monkeypatch.setattr(access, "FLUSH_AFTER_S", 0.0)
    store.record_access("u1", [mem.id], at=at(4))
    assert _count(url, "u1", mem.id) == (1, at(4))
    store.close()


def test_counts_survive_a_write_that_rolls_back(url: str) -> None:
    store = open_store(url, dimension=DIM)
    b = Builder("u1")
    mem, ver = b.memory("I like green tea", vec(1))
    store.write(b.batch)
    store.record_access("u1", [mem.id], at=at(4))
    with pytest.raises(ConflictError):
        store.write(b.batch)  # the same ids again: refused, nothing written
    assert _count(url, "u1", mem.id) == (0, None)
    [got] = store.get_memories("u1", [mem.id])
    assert got.access_count == 1
    store.close()
    assert _count(url, "u1", mem.id) == (1, at(4))
