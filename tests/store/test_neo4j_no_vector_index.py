"""The Neo4j store keeps no HNSW vector index (nothing reads one, and it cost every write that
adds a vector): a store made with one loses it on the next open, and its searches still work."""

from __future__ import annotations

import pytest
from builders import Builder
from conftest import DIM, vec

from dualmem_core import open_store
from dualmem_core.store import SearchFilter
from dualmem_core.store.neo4j.schema import VECTOR_INDEX


def _vector_indexes(store) -> list[str]:
    return store._run(lambda tx: [r["name"] for r in tx.run(
        "SHOW INDEXES YIELD name, type WHERE type = 'VECTOR' RETURN name")], write=False)


@pytest.mark.neo4j
def test_an_old_stores_vector_index_is_dropped_on_open(neo4j_uri, user):
    store = open_store(neo4j_uri, dimension=DIM)
    try:
        assert _vector_indexes(store) == []
        store._run(lambda tx: tx.run(  # what stores made before this change carry
            f"CREATE VECTOR INDEX {VECTOR_INDEX} IF NOT EXISTS FOR (n:MemoryVersion) ON n.embedding "
            f"OPTIONS {{indexConfig: {{`vector.dimensions`: {DIM}, "
            "`vector.similarity_function`: 'cosine'}}").consume())
        b = Builder(user)
        _, version = b.memory("kept", vec(1, 0))
        store.write(b.batch)
    finally:
        store.close()
    reopened = open_store(neo4j_uri, dimension=DIM)
    try:
        assert _vector_indexes(reopened) == []
        hits = reopened.vector_search(vec(1, 0), SearchFilter(user), k=1)
        assert [h.version.id for h in hits] == [version.id]
    finally:
        reopened.close()
