"""Inside a ``reading()`` block Neo4j reads each memory's sources once: recall asks for its best
fifteen, then for the five it returns. The answers are the ones each read alone gives, per user,
and a block's answers end with it."""

from __future__ import annotations

import pytest
from builders import Builder, at
from conftest import vec

from dualmem_core.store import EdgeType
from dualmem_core.store.neo4j import store as neo4j_module


@pytest.mark.neo4j
def test_a_reading_block_reads_each_memorys_sources_once(neo4j_store, user, monkeypatch):
    b = Builder(user)
    late = b.episode("late", at(3), source_id="s-late")
    early = b.episode("early", at(1), source_id="s-early")
    told_twice, _ = b.memory("told twice", vec(1, 0), episode=late)
    b.edge(EdgeType.FROM, told_twice.id, early.id)
    once, _ = b.memory("told once", vec(0, 1), episode=early)
    lonely, _ = b.memory("no episode", vec(1, 1))
    neo4j_store.write(b.batch)
    asked: list[list[str]] = []
    read = neo4j_module.Neo4jStore._read_sources

    def recording(self, user_id, memory_ids):
        asked.append(list(memory_ids))
        return read(self, user_id, memory_ids)

    monkeypatch.setattr(neo4j_module.Neo4jStore, "_read_sources", recording)
    everything = {told_twice.id: ["s-early", "s-late"], once.id: ["s-early"]}
    with neo4j_store.reading():
        first = neo4j_store.sources_of(user, [told_twice.id, lonely.id])
        assert first == {told_twice.id: everything[told_twice.id]}
        first[told_twice.id].append("changed by the caller")  # a copy: the cache keeps its own
        assert neo4j_store.sources_of(user, [once.id, told_twice.id, lonely.id]) == everything
        assert neo4j_store.sources_of("someone-else", [once.id]) == {}  # cached per user
    assert asked == [[told_twice.id, lonely.id], [once.id], [once.id]]
    b = Builder(user)
    again = b.episode("again", at(4), source_id="s-again")
    b.edge(EdgeType.FROM, once.id, again.id)
    neo4j_store.write(b.batch)
    with neo4j_store.reading():  # a new block reads afresh
        assert neo4j_store.sources_of(user, [once.id]) == {once.id: ["s-early", "s-again"]}
    assert neo4j_store.sources_of(user, [once.id]) == {once.id: ["s-early", "s-again"]}  # no block: read
    assert len(asked) == 5
