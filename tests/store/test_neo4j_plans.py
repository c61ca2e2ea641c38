"""Every Cypher query the Neo4j store runs is planned on an index, never a scan of a whole label."""

from __future__ import annotations

import pytest
from builders import Builder, at
from conftest import vec
from neo4j import GraphDatabase, ManagedTransaction

from dualmem_core.store import EdgeType, SearchFilter
from dualmem_core.store import changes as ch

pytestmark = pytest.mark.neo4j

# Operators that read every node of a label, or every relationship of a type.
SCANS = {"AllNodesScan", "NodeByLabelScan", "DirectedAllRelationshipsScan",
         "UndirectedAllRelationshipsScan", "DirectedRelationshipTypeScan",
         "UndirectedRelationshipTypeScan"}


def _operators(plan) -> set[str]:
    names = {plan["operatorType"].split("@")[0]}
    for child in plan.get("children", []):
        names |= _operators(child)
    return names


def _record_queries(monkeypatch) -> dict[str, dict]:
    """Every query the driver runs from now on (until ``monkeypatch.undo``), with its parameters."""
    seen: dict[str, dict] = {}
    real_run = ManagedTransaction.run

    def recording_run(self, query, parameters=None, **kwargs):
        seen.setdefault(query, {**(parameters or {}), **kwargs})
        return real_run(self, query, parameters, **kwargs)

    monkeypatch.setattr(ManagedTransaction, "run", recording_run)
    return seen


def test_store_queries_use_indexes(neo4j_store, neo4j_uri, user, monkeypatch):
    seen = _record_queries(monkeypatch)
    b = Builder(user)
    ep = b.episode("Alice moved to Lyon", at(2))
    mem, ver = b.memory("Alice lives in Lyon", vec(1, 0), episode=ep)
    other, _ = b.memory("Alice likes tea", vec(0, 1))
    alice = b.entity("Alice")
    b.edge(EdgeType.MENTIONS, mem.id, alice.id)
    b.edge(EdgeType.MENTIONS, other.id, alice.id)
    store = neo4j_store
    store.write(b.batch)
    store.vector_search(vec(1, 0), SearchFilter(user, valid_at=at(3)), 50)  # exact fallback too
    store.text_search("Alice Lyon", SearchFilter(user, known_at=at(12)), 5)
    store.entity_neighbours(user, [mem.id])
    store.expand(SearchFilter(user, known_at=at(12)), [mem.id], [])
    store.get_versions(user, [mem.id], known_at=at(12))
    store.get_edges(user, node_ids=[mem.id])
    store.get_memories(user, [mem.id])
    store.get_episodes(user, [ep.id])
    store.episodes_by_source(user, ["m1"])
    store.nearest_memories(user, [vec(1, 0)], k=3, min_score=0.5)
    store.find_by_content_hash(user, [ver.content_hash])
    store.record_access(user, [mem.id])
    store.apply_changes(ch.ChangeSet(user, "plan-run", [
        ch.CloseVersion(ver.id), ch.SetReviewState(other.id, "reviewed", "new"),
        ch.CloseEdge(b.batch.edges[0].id)]))
    store.get_run(user, "plan-run")
    store.list_runs(user)
    store.counts(user)
    store.find_entities(user, ["alice"])
    store.list_facts(SearchFilter(user, valid_at=at(3)), predicates=["lives_in"])
    store.memory_owner(mem.id)
    graph = store.export_graph(user)
    store.import_graph(graph, replace=True)
    store.forget(user, source_ids=["nothing"], memory_ids=[other.id])
    monkeypatch.undo()

    assert len(seen) > 20
    scans = {}
    with GraphDatabase.driver(neo4j_uri, auth=None) as driver:
        # The detector itself works: a label scan is seen as one.
        probe = driver.execute_query("EXPLAIN MATCH (n:Memory) RETURN n").summary.plan
        assert "NodeByLabelScan" in _operators(probe)
        for query, params in seen.items():
            plan = driver.execute_query("EXPLAIN " + query, params).summary.plan
            found = _operators(plan) & SCANS
            if found:
                scans[query] = found
    assert scans == {}


def test_fact_lookup_reads_its_index_in_order(neo4j_store, neo4j_uri, user, monkeypatch):
    """Recall's fact lookup stops at its limit: the (user, predicate, valid_from) index is read
    latest first (a PartialTop), not every fact of the predicate read and sorted (a Top alone:
    5,000 rows for 10 at 100k memories)."""
    b = Builder(user)
    for i in range(3):
        b.memory(f"Alice lives in c{i}", vec(1, i), valid_from=at(i + 1), predicate="lives_in",
                 subject="Alice", object=f"c{i}")
    neo4j_store.write(b.batch)
    seen = _record_queries(monkeypatch)
    found = neo4j_store.list_facts(SearchFilter(user), predicates=["lives_in", "works_at"], limit=2)
    monkeypatch.undo()
    assert [h.version.object for h in found] == ["c2", "c1"]  # latest first
    [(query, params)] = [(q, p) for q, p in seen.items() if "predicate = p" in q]
    with GraphDatabase.driver(neo4j_uri, auth=None) as driver:
        plan = driver.execute_query("EXPLAIN " + query, params).summary.plan
    assert "PartialTop" in _operators(plan)
