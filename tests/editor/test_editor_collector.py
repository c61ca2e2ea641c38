"""An Editor run keeps its snapshot out of the cycle collector's passes, and gives the collector
back as it found it (issue 37: at 21k memories the collector's full passes, which rescan every
snapshot object, were a fifth of an incremental run's CPU time, and grew with the store).

Both stores; the graph is a few messages with facts, a value that changes, so every stage runs.
"""

from __future__ import annotations

import gc
from datetime import UTC, datetime, timedelta

import numpy as np
import pytest
from builders import Builder
from conftest import DIM

from dualmem_core import Editor
from dualmem_core.editor import messages as messages_module
from dualmem_core.editor.supersede import supersede
from dualmem_core.editor.view import GraphView

T0 = datetime(2025, 3, 1, tzinfo=UTC)


def _write_graph(store, user: str) -> None:
    rng = np.random.default_rng(5)
    b = Builder(user)
    for i, city in enumerate(("Reno", "Boise", "Omaha")):
        when = T0 + timedelta(days=30 * i)
        message = f"I just moved to {city}!"
        ep = b.episode(message, when, session_id=f"s{i}", role="user")
        b.memory(message, _unit(rng), valid_from=when, kind="observation", episode=ep)
        b.memory(f"The user lives in {city}.", _unit(rng), valid_from=when, episode=ep,
                 subject="user", predicate="lives_in", object=city)
    store.write(b.batch)


def _unit(rng: np.random.Generator) -> np.ndarray:
    v = rng.standard_normal(DIM).astype(np.float32)
    return v / np.linalg.norm(v)


@pytest.mark.parametrize("dry_run", [False, True])
def test_stages_run_with_the_snapshot_frozen_and_the_collector_is_given_back(store, user, dry_run):
    _write_graph(store, user)
    during: list[tuple[bool, int]] = []
    run = Editor(store).run(user, dry_run=dry_run,
                            on_stage=lambda name: during.append((gc.isenabled(), gc.get_freeze_count())))
    assert run.counts["supersede"].get("supersede", 0) == 2  # Reno and Boise end: the stages ran
    assert during and all(enabled and frozen > 0 for enabled, frozen in during)
    assert gc.isenabled() and gc.get_freeze_count() == 0


def test_a_collector_turned_off_by_the_caller_stays_off(store, user):
    _write_graph(store, user)
    gc.disable()
    try:
        store.export_graph(user)
        Editor(store).run(user)
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_export_gives_the_collector_back(store, user):
    _write_graph(store, user)
    graph = store.export_graph(user)
    assert len(graph.memories) == 6 and gc.isenabled()


def test_the_supersede_stage_reads_the_messages_once(store, user, monkeypatch):
    """``replaced.py`` and ``told_anew.py`` both ask for the user's messages: one read."""
    _write_graph(store, user)
    view = GraphView(store.export_graph(user))
    reads = []
    read = messages_module._read_messages
    monkeypatch.setattr(messages_module, "_read_messages", lambda v: reads.append(1) or read(v))
    supersede(view)
    assert len(reads) == 1
