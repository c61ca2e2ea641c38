"""An incremental supersede stage does work in proportion to what is new (issue 37).

A new value arrives in one slot of a graph a first run already edited. The own-words pairs the
stage compares must not grow with unrelated old memories (other people's chains, each with its
published SUPERSEDES edge), and the stage must read the graph's edge lists a fixed number of
times, not once per member of the slot it revisits (that grew as members x edges: 76.9 s of a
99.5 s incremental run at 100k memories, ``docs/benchmarks.md``, "The Editor").
Pure stage on a snapshot view; one embedded store builds the graph.
"""

from __future__ import annotations

import itertools
from datetime import UTC, datetime, timedelta

import numpy as np
import pytest
from builders import Builder

from dualmem_core import Editor, open_store
from dualmem_core.editor import replaced as replaced_module
from dualmem_core.editor.supersede import supersede
from dualmem_core.editor.view import GraphView

DIM = 64
T0 = datetime(2025, 1, 1, tzinfo=UTC)
USER = "bounded"


def _tell(b: Builder, rng: np.random.Generator, person: str, city: str, when: datetime) -> str:
    """One message saying where ``person`` lives, and the fact read from it (random vectors, so
    no two messages are embedding neighbours): returns the fact's id."""
    message = f"Guess what: {person.lower()} moved to {city.lower()}."
    ep = b.episode(message, when, session_id=f"s{when:%Y%m%d%H}", role="user")
    b.memory(message, _unit(rng), valid_from=when, kind="observation", episode=ep)
    fact, _ = b.memory(f"{person} lives in {city}.", _unit(rng), valid_from=when, episode=ep,
                       subject=person, predicate="lives_in", object=city)
    return fact.id


def _unit(rng: np.random.Generator) -> np.ndarray:
    v = rng.standard_normal(DIM).astype(np.float32)
    return v / np.linalg.norm(v)


def _measure(tmp_path, slot_values: int, unrelated: int, monkeypatch) -> dict[str, int]:
    """Build a slot with ``slot_values`` old values and ``unrelated`` other people with two values
    each; edit; tell the slot a new value; run the supersede stage on the snapshot, counting."""
    rng = np.random.default_rng(3)
    with open_store(f"sqlite:///{tmp_path / f'{slot_values}-{unrelated}.db'}", dimension=DIM) as store:
        old = Builder(USER)
        hours = itertools.count(1)
        for i in range(slot_values):
            _tell(old, rng, "Ana Abbott", f"Oldtown{i}", T0 + timedelta(hours=next(hours)))
        for j in range(unrelated):
            for k in range(2):
                _tell(old, rng, f"Person{j} Other", f"Elsewhere{j}x{k}", T0 + timedelta(hours=next(hours)))
        store.write(old.batch)
        Editor(store).run(USER)  # the first run: chains and their SUPERSEDES edges published
        new = Builder(USER)
        _tell(new, rng, "Ana Abbott", "Newtown", T0 + timedelta(hours=next(hours)))
        store.write(new.batch)
        view = GraphView(store.export_graph(USER))
    counts = {"compared": 0, "edge_reads": 0}
    compare = replaced_module._compare

    def counting_compare(*args, **kwargs):
        counts["compared"] += 1
        return compare(*args, **kwargs)

    open_edges = view.open_edges

    def counting_open_edges(type_):
        counts["edge_reads"] += 1
        return open_edges(type_)

    with monkeypatch.context() as patched:
        patched.setattr(replaced_module, "_compare", counting_compare)
        patched.setattr(view, "open_edges", counting_open_edges)
        result = supersede(view)
    counts["superseded"] = sum(d.action == "supersede" for d in result.decisions)
    return counts


@pytest.mark.parametrize("unrelated", [40])
def test_pairs_compared_do_not_grow_with_unrelated_memories(tmp_path, monkeypatch, unrelated):
    alone = _measure(tmp_path, 3, 0, monkeypatch)
    among = _measure(tmp_path, 3, unrelated, monkeypatch)
    assert alone["superseded"] == among["superseded"] == 1  # the newest old value ends
    assert alone["compared"] == among["compared"]
    assert alone["edge_reads"] == among["edge_reads"]


def test_edge_lists_are_read_a_fixed_number_of_times(tmp_path, monkeypatch):
    short = _measure(tmp_path, 3, 5, monkeypatch)
    long = _measure(tmp_path, 30, 5, monkeypatch)  # ten times the members to revisit
    assert short["superseded"] == long["superseded"] == 1
    assert short["edge_reads"] == long["edge_reads"]
