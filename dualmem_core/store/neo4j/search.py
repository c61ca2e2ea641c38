"""The Neo4j store's searches: the HNSW and fulltext indexes, the process's vector cache, both."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import neo4j
import numpy as np

from ..models import (
    Memory,
    MemoryVersion,
    Neighbour,
    SearchFilter,
    SearchHit,
)
from ..query import rank_neighbours
from . import rows as R
from .queries import (
    _MEMORY,
    _NOT_A_HUB,
    _VERSION_NO_VECTOR,
    FAR,
    _filter_cypher,
    _tx_cypher,
)
from .rows import one
from .schema import FULLTEXT_INDEX, VECTOR_INDEX
from .state import Neo4jState

OVERFETCH = 10  # fulltext candidates per wanted hit before taking all of the user's matches
MIN_FETCH = 100  # ... and never fewer than this many
VECTOR_FETCH = 4  # HNSW candidates per wanted hit before an exact ranking
CACHE_FETCH = 16  # cached-vector candidates per wanted hit, first try (filters rejected many)
CACHE_WIDEN = 8  # ... multiplied by this while the filters leave fewer than k


class Search(Neo4jState):
    """Vector, text and hybrid search, and the Writer's neighbours (a mixin of ``Neo4jStore``)."""

    # -- search ---------------------------------------------------------------------------

    def _vector_search(self, unit_query: np.ndarray, flt: SearchFilter, k: int) -> list[SearchHit]:
        return self._hybrid_search(unit_query, [], flt, k, [])[0]

    def _hybrid_search(self, unit_query: np.ndarray, terms: list[str], flt: SearchFilter, k: int,
                       cues: list[str]) -> tuple[list[SearchHit], list[SearchHit], list[SearchHit]]:
        """The index searches in one statement (the cue list is the text search once more,
        of other words, over observations); each widens on its own (a rare second round trip)
        when the filters left it fewer than k hits.

        The HNSW index is asked for k * VECTOR_FETCH candidates: its walk grows with the fetch
        and was most of a recall, and at 100k it beat an exact scan of the cached vectors
        (memory-bound). When the
        filters leave fewer than k (or other users' vectors crowd the fetch), current versions
        are ranked exactly from this process's vector cache, as many as it takes; as of a past
        ``known_at`` (closed versions too), by a user-scoped scan on the server."""
        where, params = _filter_cypher(flt)
        params |= {"q": unit_query.tolist(), "k": k, "fetch": max(k * OVERFETCH, MIN_FETCH)}
        tail = f"WHERE {where['v']} MATCH (v)-[:VERSION_OF]->(m:Memory) WHERE {where['m']} "
        vector = (f"CALL db.index.vector.queryNodes('{VECTOR_INDEX}', $vfetch, $q) "
                  f"YIELD node AS v, score {tail}")
        text = cue = ""
        if terms:
            params["lucene"] = _lucene(flt.user_id, terms)
            text = (f"CALL db.index.fulltext.queryNodes('{FULLTEXT_INDEX}', $lucene, {{limit: $fetch}}) "
                    f"YIELD node AS v, score {tail}")
        if cues:
            params["cue_lucene"] = _lucene(flt.user_id, cues)
            cue = (f"CALL db.index.fulltext.queryNodes('{FULLTEXT_INDEX}', $cue_lucene, {{limit: $fetch}}) "
                   f"YIELD node AS v, score {tail}AND m.kind = 'observation' ")
        lists = self._searches([vector, text, cue], params | {"vfetch": k * VECTOR_FETCH})
        if len(lists[0]) < k and flt.known_at is None:
            lists[0] = self._cached_vector_search(unit_query, flt.user_id, k, tail, params)
        else:
            if len(lists[0]) < k:
                exact = ("MATCH (v:MemoryVersion) WHERE v.user_id = $user AND v.embedding IS NOT NULL "
                         f"WITH v, vector.similarity.cosine(v.embedding, $q) AS score {tail}")
                lists[0] = self._searches([exact], params)[0]
            for hit in lists[0]:  # Neo4j reports cosine as (1 + cos) / 2; give callers the cosine
                hit.score = 2.0 * hit.score - 1.0
        for i, head in ((1, text), (2, cue)):  # the tenant clause already narrowed Lucene to the user
            if head and len(lists[i]) < k:
                lists[i] = self._searches([head], params | {"fetch": 2**31 - 1})[0]
        return lists[0], lists[1], lists[2]

    def _cached_vector_search(self, unit_query: np.ndarray, user_id: str, k: int, tail: str,
                              params: dict) -> list[SearchHit]:
        """The top k current versions by exact cosine that pass the filters (``tail``): the
        cache's best candidates go in in order, k * CACHE_FETCH of them, widened CACHE_WIDEN-fold
        until k pass or every current version of the user was tried."""
        vector = ("UNWIND $candidates AS c MATCH (v:MemoryVersion {id: c[0]}) "
                  f"WITH v, c[1] AS score {tail}")
        entry = self._vectors.entry(user_id)
        wanted, caught_up = k * CACHE_FETCH, False
        while True:
            with entry.lock:
                if entry.seq < 0:  # never loaded: no point ranking an empty cache
                    self._run(self._vectors.refresh, user_id, entry, write=False)
                candidates, every = entry.ranked_versions(unit_query, wanted)
                ranked_at = [entry.seq, entry.epoch]
            # The user's clock comes back with the hits: when the cache was behind (another
            # process wrote), it catches up and the search runs again, once: a write landing
            # after that is the race any read-then-search has.
            lists, clock = self._searches([vector], params | {"candidates": [list(c) for c in candidates]},
                                          clock=True)
            if [clock[0] or 0, clock[1]] != ranked_at and not caught_up:
                with entry.lock:
                    self._run(self._vectors.refresh, user_id, entry, write=False)
                caught_up = True
                continue
            if len(lists[0]) >= k or every:
                return lists[0]
            wanted *= CACHE_WIDEN

    def _nearest_memories(self, user_id: str, unit: np.ndarray, k: int,
                          min_score: float) -> list[list[tuple[str, float]]]:
        # Exact, over this process's copy of the user's vectors, brought up to date first.
        entry = self._vectors.entry(user_id)
        with entry.lock:
            self._run(self._vectors.refresh, user_id, entry, write=False)
            return entry.nearest(unit, k, min_score)

    def _text_search(self, terms: list[str], flt: SearchFilter, k: int) -> list[SearchHit]:
        where, params = _filter_cypher(flt)
        params |= {"lucene": _lucene(flt.user_id, terms), "k": k}
        query = (f"CALL db.index.fulltext.queryNodes('{FULLTEXT_INDEX}', $lucene, {{limit: $fetch}}) "
                 f"YIELD node AS v, score WHERE {where['v']} MATCH (v)-[:VERSION_OF]->(m:Memory) "
                 f"WHERE {where['m']} ")
        hits = self._searches([query], params | {"fetch": max(k * OVERFETCH, MIN_FETCH)})[0]
        if len(hits) < k:  # the tenant clause already narrowed Lucene to this user: take all
            hits = self._searches([query], params | {"fetch": 2**31 - 1})[0]
        return hits

    def _searches(self, heads: list[str], params: dict, clock: bool = False) -> Any:
        """Run searches (each yielding ``v``, ``m``, ``score``) in one statement: the top $k of
        each, best first. An empty head gives an empty list. With ``clock``, also the user's
        clock as [seq, epoch] (see ``vectors``), read in the same statement."""
        parts = [f"CALL () {{ {head} WITH v, m, score ORDER BY score DESC, v.id LIMIT $k "
                 f"RETURN collect({{v: {_VERSION_NO_VECTOR}, m: {_MEMORY}, score: score}}) AS hits{i} }} "
                 for i, head in enumerate(heads) if head]
        columns = [f"hits{i}" for i, h in enumerate(heads) if h]
        if clock:
            parts.append("CALL () { OPTIONAL MATCH (c:UserClock {user_id: $user}) "
                         "RETURN [c.seq, c.epoch] AS clock } ")
            columns.append("clock")
        query = "".join(parts) + "RETURN " + ", ".join(columns)

        def work(tx: neo4j.ManagedTransaction) -> Any:
            record = one(tx.run(query, params))
            lists = [[SearchHit(R.to_memory(h["m"]), R.to_version(h["v"]), float(h["score"]))
                      for h in record[f"hits{i}"]] if head else [] for i, head in enumerate(heads)]
            return (lists, record["clock"]) if clock else lists

        return self._run(work, write=False)

    def _search(self, query: str, params: dict) -> list[SearchHit]:
        def work(tx: neo4j.ManagedTransaction) -> list[SearchHit]:
            return [SearchHit(R.to_memory(r["m"]), R.to_version(r["v"]), float(r["score"]))
                    for r in tx.run(query, params)]

        return self._run(work, write=False)

    def _entity_neighbours(self, user_id: str, memory_ids: list[str], max_entity_degree: int,
                           limit: int) -> list[Neighbour]:
        def work(tx: neo4j.ManagedTransaction) -> tuple[list, dict]:
            seeds_of: dict[str, tuple[str, ...]] = {}
            pairs = []
            for r in tx.run(
                "MATCH (s:Memory)-[r1:MENTIONS]->(e:Entity) WHERE s.id IN $seeds AND s.user_id = $user "
                f"AND r1.tx_to = {FAR} WITH e, collect(DISTINCT s.id) AS seeds "
                f"{_NOT_A_HUB}"
                f"OPTIONAL MATCH (n:Memory)-[r2:MENTIONS]->(e) WHERE r2.tx_to = {FAR} "
                "AND NOT n.id IN $seeds AND n.user_id = $user "
                "RETURN e.id AS entity, seeds, collect(n.id) AS members",
                seeds=memory_ids, user=user_id, max=max_entity_degree):
                seeds_of[r["entity"]] = tuple(sorted(r["seeds"]))
                pairs += [(m, r["entity"]) for m in r["members"]]
            return pairs, seeds_of

        pairs, seeds_of = self._run(work, write=False)
        return rank_neighbours(pairs, seeds_of, limit)

    def _expand(self, user_id: str, seeds: list[str], known: set[str], known_at: datetime | None,
                max_entity_degree: int, limit: int) -> tuple[list[Neighbour], list[Memory],
                                                             list[MemoryVersion]]:
        # One statement: the neighbours ranked as ``rank_neighbours`` ranks them, then the
        # memory and versions of each one the caller does not hold yet.
        self._flush_accesses()
        tx_where, params = _tx_cypher("v", known_at, False)
        query = (
            "MATCH (s:Memory)-[r1:MENTIONS]->(e:Entity) WHERE s.id IN $seeds AND s.user_id = $user "
            f"AND r1.tx_to = {FAR} WITH e, collect(DISTINCT s.id) AS seeds "
            f"{_NOT_A_HUB}"
            f"MATCH (n:Memory)-[r2:MENTIONS]->(e) WHERE r2.tx_to = {FAR} AND NOT n.id IN $seeds "
            "AND n.user_id = $user "
            "WITH n, collect(DISTINCT e.id) AS via, collect(seeds) AS seed_lists "
            "ORDER BY size(via) DESC, n.id LIMIT $limit "
            "CALL (n) { MATCH (v:MemoryVersion)-[:VERSION_OF]->(n) WHERE NOT n.id IN $held "
            f"AND v.user_id = $user AND {tx_where} RETURN collect({_VERSION_NO_VECTOR}) AS versions }} "
            f"RETURN n.id AS id, via, seed_lists, versions, "
            f"CASE WHEN n.id IN $held THEN null ELSE {R.projection('n', 'Memory')} END AS m")

        def work(tx: neo4j.ManagedTransaction) -> list:
            return list(tx.run(query, params, seeds=seeds, user=user_id, max=max_entity_degree,
                               limit=limit, held=sorted(known)))

        neighbours, memories, versions = [], [], []
        for r in self._run(work, write=False):
            neighbours.append(Neighbour(r["id"], tuple(sorted(r["via"])),
                                        tuple(sorted({s for seeds_ in r["seed_lists"] for s in seeds_}))))
            if r["m"] is not None:
                memories.append(R.to_memory(r["m"]))
                versions += [R.to_version(v) for v in r["versions"]]
        neighbours.sort(key=lambda n: (-len(n.via_entities), n.memory_id))
        versions.sort(key=lambda v: (v.memory_id, v.tx_from, v.valid_from, v.id))
        return neighbours, memories, versions


def _lucene(user_id: str, terms: list[str]) -> str:
    """A full-text query for any of ``terms`` (each quoted: never Lucene syntax) in the user's
    versions' search texts (``search``: the search text, else the text). The tenant clause
    scores nothing (boost 0): it would add one constant to every hit's score, which recall
    divides by the best, so a weak match would look stronger than on SQLite (FTS5 gives the
    tenant column no weight)."""
    words = " OR ".join(f'"{t}"' for t in terms)
    return f'user_key:"{R.user_key(user_id)}"^0 AND search:({words})'
