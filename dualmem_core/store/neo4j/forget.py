"""The Neo4j store's deletions: forgetting what a source said, and a whole user."""

from __future__ import annotations

import json

import neo4j

from ..forgetting import ForgetReceipt, neighbour_texts, redact_run
from ..models import (
    EDGE_ENDPOINTS,
    EdgeType,
)
from . import lease as leases
from .rows import one
from .schema import NODE_LABELS
from .state import Neo4jState
from .vectors import BUMP_CLOCK, NEW_EPOCH


class Forget(Neo4jState):
    """Forget and delete a user (a mixin of ``Neo4jStore``)."""

    @staticmethod
    def _forget_targets(tx: neo4j.ManagedTransaction, user_id: str, source_ids: list[str],
                        episode_ids: list[str], memory_ids: list[str]) -> tuple[set[str], set[str]]:
        episodes = {r["id"] for r in tx.run(
            "MATCH (e:Episode) WHERE e.user_id = $user AND e.source_id IN $sources RETURN e.id AS id "
            "UNION MATCH (e:Episode) USING INDEX e:Episode(id) WHERE e.id IN $ids AND e.user_id = $user "
            "RETURN e.id AS id",
            user=user_id, sources=source_ids, ids=episode_ids)}
        explicit = {r["id"] for r in tx.run(
            "MATCH (m:Memory) USING INDEX m:Memory(id) WHERE m.id IN $ids AND m.user_id = $user "
            "RETURN m.id AS id",
            ids=memory_ids, user=user_id)}
        return episodes, explicit

    @staticmethod
    def _edge_pairs(tx: neo4j.ManagedTransaction, user_id: str):
        def pairs(edge_type: str, side: str, ids: set[str]) -> list[tuple[str, str]]:
            src, dst = (NODE_LABELS[k] for k in EDGE_ENDPOINTS[EdgeType(edge_type)])
            end = "a" if side == "src" else "b"
            return [(r["a"], r["b"]) for r in tx.run(
                f"MATCH (a:{src})-[r:{edge_type}]->(b:{dst}) WHERE {end}.id IN $ids "
                "AND r.user_id = $user RETURN a.id AS a, b.id AS b", ids=list(ids), user=user_id)]

        return pairs

    @staticmethod
    def _delete_forgotten(tx: neo4j.ManagedTransaction, receipt: ForgetReceipt) -> None:
        user_id = receipt.user_id
        said = [r["text"] for r in tx.run(
            "MATCH (e:Episode) WHERE e.id IN $ids AND e.user_id = $user RETURN e.text AS text",
            ids=receipt.episode_ids, user=user_id)]
        # Later messages were indexed with the forgotten ones as context (``search_text``):
        # they go back to being searched by their own text.
        tx.run("MATCH (v:MemoryVersion) WHERE v.user_id = $user AND v.search_text IS NOT NULL "
               "AND any(t IN $texts WHERE v.search_text CONTAINS t) "
               "SET v.search_text = null, v.search = v.text",
               user=user_id, texts=neighbour_texts(said)).consume()
        for edge_type in EdgeType:
            src, dst = (NODE_LABELS[k] for k in EDGE_ENDPOINTS[edge_type])
            for end in ("a", "b"):
                receipt.edges += one(tx.run(
                    f"MATCH (a:{src})-[r:{edge_type.value}]->(b:{dst}) WHERE {end}.id IN $ids "
                    "AND r.user_id = $user DELETE r RETURN count(r) AS c",
                    ids=receipt.memory_ids + receipt.entity_ids + receipt.episode_ids,
                    user=user_id))["c"]
        receipt.versions = one(tx.run(
            "MATCH (v:MemoryVersion) WHERE v.user_id = $user AND v.memory_id IN $ids "
            "DETACH DELETE v RETURN count(v) AS c", user=user_id, ids=receipt.memory_ids))["c"]
        if receipt.versions:  # vector caches reload the user
            tx.run(f"{BUMP_CLOCK} {NEW_EPOCH}", user=user_id).consume()
        for label, ids in (("Memory", receipt.memory_ids), ("Entity", receipt.entity_ids),
                           ("Episode", receipt.episode_ids)):
            tx.run(f"MATCH (n:{label}) WHERE n.id IN $ids AND n.user_id = $user DETACH DELETE n",
                   ids=ids, user=user_id).consume()

    @staticmethod
    def _redact_runs(tx: neo4j.ManagedTransaction, user_id: str, deleted_ids: set[str]) -> None:
        for r in tx.run("MATCH (r:EditorRun) WHERE r.user_id = $user RETURN r.key AS key, r.journal "
                        "AS journal, r.skipped AS skipped, r.meta AS meta", user=user_id).data():
            journal, skipped, meta = redact_run(json.loads(r["journal"]), json.loads(r["skipped"]),
                                                json.loads(r["meta"] or "{}"), deleted_ids)
            tx.run("MATCH (r:EditorRun {key: $key}) SET r.journal = $journal, r.skipped = $skipped, "
                   "r.meta = $meta", key=r["key"], journal=json.dumps(journal),
                   skipped=json.dumps(skipped), meta=json.dumps(meta)).consume()

    def _delete_user(self, user_id: str) -> dict[str, int]:
        counts = self._run(_delete_rows, user_id)
        self._vectors.forget(user_id)
        return counts


def _delete_rows(tx: neo4j.ManagedTransaction, user_id: str) -> dict[str, int]:
    counts = {"edges": 0}
    for edge_type in EdgeType:
        counts["edges"] += one(tx.run(f"MATCH ()-[r:{edge_type.value}]->() WHERE r.user_id = $user "
                                      "DELETE r RETURN count(r) AS c", user=user_id))["c"]
    for name, label in (("versions", "MemoryVersion"), ("memories", "Memory"),
                        ("entities", "Entity"), ("episodes", "Episode"), ("runs", "EditorRun")):
        counts[name] = one(tx.run(f"MATCH (n:{label}) WHERE n.user_id = $user DETACH DELETE n "
                                  "RETURN count(n) AS c", user=user_id))["c"]
    leases.clear(tx, user_id)
    # A clock made again later gets a new epoch: other processes' caches reload the user.
    tx.run("MATCH (c:UserClock {user_id: $user}) DELETE c", user=user_id).consume()
    return counts
