"""The Neo4j store's reads of nodes, edges, runs and counts."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any, TypeVar

import neo4j

from ...errors import NotFound
from .. import changes as ch
from ..models import (
    EDGE_ENDPOINTS,
    Edge,
    EdgeType,
    Entity,
    Episode,
    Memory,
    MemoryVersion,
    SearchFilter,
    SearchHit,
    UserGraph,
)
from . import rows as R
from .queries import (
    _MEMORY,
    _VERSION_NO_VECTOR,
    FAR,
    _filter_cypher,
    _run_key,
    _to_run,
    _tx_cypher,
)
from .rows import one
from .schema import NODE_LABELS
from .state import Neo4jState

T = TypeVar("T")


class Reads(Neo4jState):
    """Rows, edges, runs and counts (a mixin of ``Neo4jStore``)."""

    # -- reads ----------------------------------------------------------------------------

    def _read(self, query: str, convert: Callable[[dict], T], **params: Any) -> list[T]:
        return self._run(lambda tx: [convert(r["n"]) for r in tx.run(query, params)], write=False)

    def _flush_accesses(self) -> None:
        """Write queued access counts before a read returning memories, except inside a
        ``reading()`` block: recall reads memories without their counts, and waiting there
        for the previous recall's count write would cost every recall a write transaction."""
        if getattr(self._pinned, "tx", None) is None:
            self._accesses.flush()

    def _get_memories(self, user_id: str, ids: list[str]) -> list[Memory]:
        self._flush_accesses()
        # Hinted here and below: in a store dominated by one user the planner would seek that
        # user's index and filter every one of their records (10k db hits at 10k memories).
        return self._read("MATCH (m:Memory) USING INDEX m:Memory(id) WHERE m.id IN $ids "
                          f"AND m.user_id = $user RETURN {_MEMORY} AS n", R.to_memory, ids=ids, user=user_id)

    def _get_episodes(self, user_id: str, ids: list[str]) -> list[Episode]:
        return self._read("MATCH (e:Episode) USING INDEX e:Episode(id) WHERE e.id IN $ids "
                          f"AND e.user_id = $user RETURN {R.projection('e', 'Episode')} AS n",
                          R.to_episode, ids=ids, user=user_id)

    def _sources_of(self, user_id: str, memory_ids: list[str]) -> dict[str, list[str]]:
        # Inside a ``reading()`` block only the memories not asked about yet are read: recall
        # asks for its best fifteen, then for the five it returns (most of them among those),
        # and each read was a round trip of about 7 ms at 10k memories.
        known = getattr(self._pinned, "sources", None)
        if known is None:
            return self._read_sources(user_id, memory_ids)
        missing = [m for m in dict.fromkeys(memory_ids) if (user_id, m) not in known]
        if missing:
            found = self._read_sources(user_id, missing)
            known.update({(user_id, m): found.get(m, []) for m in missing})
        return {m: list(known[user_id, m]) for m in memory_ids if known[user_id, m]}

    def _read_sources(self, user_id: str, memory_ids: list[str]) -> dict[str, list[str]]:
        # One round trip instead of the edges, then their episodes; and a row per memory, its
        # sources collected in order: a fact told hundreds of times came back as hundreds of
        # records, each decoded in Python.
        def work(tx: neo4j.ManagedTransaction) -> dict[str, list[str]]:
            return {r["m"]: r["sources"] for r in tx.run(
                "MATCH (m:Memory)-[r:FROM]->(e:Episode) WHERE m.id IN $ids AND r.user_id = $user "
                f"AND r.tx_to = {FAR} AND e.user_id = $user "
                "WITH m.id AS m, CASE WHEN e.source_id IS NULL OR e.source_id = '' THEN e.id "
                "ELSE e.source_id END AS source, e.observed_at AS at "
                "ORDER BY at, source RETURN m, collect(source) AS sources", ids=memory_ids, user=user_id)}

        return self._run(work, write=False)

    def _episodes_by_source(self, user_id: str, source_ids: list[str]) -> list[Episode]:
        return self._read("MATCH (e:Episode) WHERE e.user_id = $user AND e.source_id IN $sources "
                          f"RETURN {R.projection('e', 'Episode')} AS n ORDER BY e.observed_at, e.id",
                          R.to_episode,
                          user=user_id, sources=source_ids)

    def _get_versions(self, user_id: str, memory_ids: list[str], known_at: datetime | None,
                      all_versions: bool, embeddings: bool) -> list[MemoryVersion]:
        tx_where, params = _tx_cypher("v", known_at, all_versions)
        props = R.projection("v", "MemoryVersion", vector=embeddings)
        return self._read(
            "MATCH (v:MemoryVersion) USING INDEX v:MemoryVersion(user_id, memory_id) "
            f"WHERE v.user_id = $user AND v.memory_id IN $ids AND {tx_where} "
            f"RETURN {props} AS n ORDER BY v.memory_id, v.tx_from, v.valid_from, v.id",
            R.to_version, user=user_id, ids=memory_ids, **params)

    def _get_edges(self, user_id: str, node_ids: list[str] | None, types: list[EdgeType] | None,
                   known_at: datetime | None, all_versions: bool) -> list[Edge]:
        tx_where, params = _tx_cypher("r", known_at, all_versions)
        edges: dict[str, Edge] = {}

        branches = []
        for edge_type in types or list(EdgeType):
            src, dst = (NODE_LABELS[k] for k in EDGE_ENDPOINTS[edge_type])
            pattern = f"(a:{src})-[r:{edge_type.value}]->(b:{dst})"
            # Anchor on the source's user index: with many users the planner would
            # otherwise scan a whole label for the relationship's user_id.
            ends = ([f"MATCH (a:{src}) WHERE a.user_id = $user MATCH {pattern} WHERE r.user_id = $user"]
                    if node_ids is None else
                    [f"MATCH {pattern} WHERE a.id IN $ids AND r.user_id = $user",
                     f"MATCH {pattern} WHERE b.id IN $ids AND r.user_id = $user"])
            branches += [f"{match} AND {tx_where} RETURN '{edge_type.value}' AS type, "
                         f"{R.projection('r', 'edge')} AS p, a.id AS a, b.id AS b" for match in ends]

        def work(tx: neo4j.ManagedTransaction) -> None:  # one round trip for every type and end
            for r in tx.run(" UNION ALL ".join(branches), user=user_id, ids=node_ids, **params):
                edges[r["p"]["id"]] = R.to_edge(r["p"], r["type"], r["a"], r["b"])

        self._run(work, write=False)
        return sorted(edges.values(), key=lambda e: (e.tx_from, e.id))

    def _find_by_content_hash(self, user_id: str, hashes: list[str]) -> list[MemoryVersion]:
        return self._read(
            "MATCH (v:MemoryVersion) USING INDEX v:MemoryVersion(user_id, content_hash) "
            "WHERE v.user_id = $user AND v.content_hash IN $hashes "
            f"AND v.tx_to = {FAR} RETURN {R.projection('v', 'MemoryVersion')} AS n "
            "ORDER BY v.tx_from, v.id",
            R.to_version, user=user_id, hashes=hashes)

    def _export_graph(self, user_id: str) -> UserGraph:
        self._accesses.flush()

        def work(tx: neo4j.ManagedTransaction) -> UserGraph:
            graph = UserGraph(user_id)
            for table, label, convert in (("episodes", "Episode", R.to_episode),
                                          ("memories", "Memory", R.to_memory),
                                          ("versions", "MemoryVersion", R.to_version),
                                          ("entities", "Entity", R.to_entity)):
                setattr(graph, table, [convert(r["n"]) for r in tx.run(
                    f"MATCH (n:{label}) WHERE n.user_id = $user RETURN {R.projection('n', label)} AS n "
                    "ORDER BY n.id", user=user_id)])
            return graph

        graph = self._run(work, write=False)
        graph.edges = sorted(self._get_edges(user_id, None, None, None, True), key=lambda e: e.id)
        return graph

    def _find_entities(self, user_id: str, keys: list[str]) -> list[Entity]:
        return self._read("MATCH (e:Entity) WHERE e.user_id = $user AND any(k IN e.keys WHERE k IN $keys) "
                          f"RETURN {R.projection('e', 'Entity')} AS n ORDER BY e.created_at, e.id",
                          R.to_entity,
                          user=user_id, keys=keys)

    def _list_facts(self, flt: SearchFilter, predicates: list[str] | None, limit: int) -> list[SearchHit]:
        self._flush_accesses()
        where, params = _filter_cypher(flt)
        order = "ORDER BY v.valid_from DESC, v.tx_from DESC, v.id LIMIT $limit"
        if predicates is None:
            return self._search(
                f"MATCH (v:MemoryVersion) WHERE {where['v']} AND v.predicate IS NOT NULL "
                f"MATCH (v)-[:VERSION_OF]->(m:Memory) WHERE {where['m']} "
                f"RETURN {_VERSION_NO_VECTOR} AS v, {_MEMORY} AS m, 0.0 AS score {order}",
                params | {"limit": limit})
        # One predicate at a time, read from the (user, predicate, valid_from) index latest first,
        # so each stops at the limit instead of sorting every such fact; then merged. The
        # ``WITH v ORDER BY`` before the expand is what lets the planner read the index in
        # order (a PartialTop over the first rows): without it, it read every fact of the
        # predicate and sorted them (513 rows for 10 at 10k memories).
        return self._search(
            "UNWIND $predicates AS p CALL (p) { "
            "MATCH (v:MemoryVersion) USING INDEX v:MemoryVersion(user_id, predicate, valid_from) "
            f"WHERE {where['v']} AND v.predicate = p AND v.valid_from IS NOT NULL "
            "WITH v ORDER BY v.valid_from DESC "
            f"MATCH (v)-[:VERSION_OF]->(m:Memory) WHERE {where['m']} "
            f"RETURN v, m {order} }} "
            f"RETURN {_VERSION_NO_VECTOR} AS v, {_MEMORY} AS m, 0.0 AS score {order}",
            params | {"predicates": list(dict.fromkeys(predicates)), "limit": limit})

    def _memory_owner(self, memory_id: str) -> str:
        owners = self._run(lambda tx: [r["u"] for r in tx.run(
            "MATCH (m:Memory {id: $id}) RETURN m.user_id AS u", id=memory_id)], write=False)
        if not owners:
            raise NotFound(f"no memory {memory_id!r} in {self.url}")
        return owners[0]

    def _get_run(self, user_id: str, run_id: str) -> ch.RunRecord:
        runs = self._read("MATCH (r:EditorRun {key: $key}) RETURN properties(r) AS n", _to_run,
                          key=_run_key(user_id, run_id))
        if not runs:
            raise NotFound(f"no Editor run {run_id!r} was published for user {user_id!r}")
        return runs[0]

    def _list_runs(self, user_id: str) -> list[ch.RunRecord]:
        return self._read("MATCH (r:EditorRun) WHERE r.user_id = $user RETURN properties(r) AS n "
                          "ORDER BY r.applied_at, r.run_id", _to_run, user=user_id)

    def _counts(self, user_id: str) -> dict[str, int]:
        def work(tx: neo4j.ManagedTransaction) -> dict[str, int]:
            counts = {}
            for name, label in (("episodes", "Episode"), ("memories", "Memory"),
                                ("versions", "MemoryVersion"), ("entities", "Entity"),
                                ("runs", "EditorRun")):
                counts[name] = one(tx.run(f"MATCH (n:{label}) WHERE n.user_id = $user RETURN count(n) AS c",
                                          user=user_id))["c"]
            counts["edges"] = sum(
                one(tx.run(f"MATCH ()-[r:{t.value}]->() WHERE r.user_id = $user RETURN count(r) AS c",
                           user=user_id))["c"] for t in EdgeType)
            return counts

        return self._run(work, write=False)
