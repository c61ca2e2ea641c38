"""The Neo4j store's searches: the process's per-user vector and text caches (Lucene for phrases)."""

from __future__ import annotations

import threading
from collections.abc import Callable
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
from .schema import FULLTEXT_INDEX
from .state import Neo4jState
from .text_index import TextCache

# A ranking of one user's versions: (user, n) -> (the n best as (version id, score), best first,
# ties with the n-th included; whether that is every candidate; the cache's [seq, epoch]).
Ranker = Callable[[str, int], tuple[list[tuple[str, float]], bool, list]]
_TEXTS_LOCK = threading.Lock()  # creates a store's text cache on first use

OVERFETCH = 10  # fulltext candidates per wanted hit before taking all of the user's matches
MIN_FETCH = 100  # ... and never fewer than this many
# Cached candidates (vector or text) per wanted hit, first try: recall's filters pass nearly
# every current version, and each candidate sent is a version the statement reads (16 vector
# and 10 text candidates a hit made recall's statement read 500+ versions for k=20).
CACHE_FETCH = 2
CACHE_WIDEN = 8  # ... widened at most this much a try while the filters leave fewer than k


class Search(Neo4jState):
    """Vector, text and hybrid search, and the Writer's neighbours (a mixin of ``Neo4jStore``)."""

    # -- search ---------------------------------------------------------------------------

    def _vector_search(self, unit_query: np.ndarray, flt: SearchFilter, k: int) -> list[SearchHit]:
        return self._hybrid_search(unit_query, [], flt, k, [])[0]

    def _hybrid_search(self, unit_query: np.ndarray, terms: list[str], flt: SearchFilter, k: int,
                       cues: list[str]) -> tuple[list[SearchHit], list[SearchHit], list[SearchHit]]:
        return self._ranked_lists(unit_query, terms, flt, k, cues)

    def _ranked_lists(self, unit_query: np.ndarray | None, terms: list[str], flt: SearchFilter, k: int,
                      cues: list[str]) -> tuple[list[SearchHit], list[SearchHit], list[SearchHit]]:
        """The three searches (the cue list is the text search once more, of other words, over
        observations), each ranked by this user's versions alone, so no other tenant moves a
        user's results (issues 36 and 37):

        - vectors: current versions by the exact cosine of this process's vector cache
          (``vectors.py``); as of a past ``known_at`` (closed versions too), by a user-scoped
          exact scan on the server. The shared HNSW index is not asked: its approximate walk
          and its top N over every user's vectors made a user's hits (and whether the exact
          fallback ran, with its differently rounded scores) depend on the other users.
        - text: BM25 with the user's own statistics over the process's copy of the user's
          postings (``text_index.py``); Lucene's scores count every tenant's documents, deleted
          ones too. A query word the tokenizer makes a phrase still goes to Lucene.

        The candidates of each go through the filters in one statement, best first, widened
        while the filters leave fewer than k."""
        where, params = _filter_cypher(flt)
        params |= {"k": k}
        tail = f"WHERE {where['v']} MATCH (v)-[:VERSION_OF]->(m:Memory) WHERE {where['m']} "
        lists: list[list[SearchHit]] = [[], [], []]
        rankers: dict[int, tuple[Ranker, str, int]] = {}
        if unit_query is None:
            pass
        elif flt.known_at is None:
            rankers[0] = (self._vector_ranker(unit_query), tail, k * CACHE_FETCH)
        else:
            exact = ("MATCH (v:MemoryVersion) WHERE v.user_id = $user AND v.embedding IS NOT NULL "
                     f"WITH v, vector.similarity.cosine(v.embedding, $q) AS score {tail}")
            lists[0] = self._searches([exact], params | {"q": unit_query.tolist()})[0]
            for hit in lists[0]:  # Neo4j reports cosine as (1 + cos) / 2; give callers the cosine
                hit.score = 2.0 * hit.score - 1.0
        for i, words, own_tail in ((1, terms, tail), (2, cues, f"{tail}AND m.kind = 'observation' ")):
            if not words:
                continue
            ranker = self._text_ranker(words)
            if ranker is not None:
                rankers[i] = (ranker, own_tail, k * CACHE_FETCH)
            else:
                lists[i] = self._lucene_search(words, flt.user_id, own_tail, params, k)
        if rankers:
            for i, hits in self._cached_searches(flt.user_id, rankers, params, k).items():
                lists[i] = hits
        return lists[0], lists[1], lists[2]

    def _vector_ranker(self, unit_query: np.ndarray) -> Ranker:
        def rank(user_id: str, n: int) -> tuple[list[tuple[str, float]], bool, list]:
            entry = self._vectors.entry(user_id)
            with entry.lock:
                if entry.seq < 0:  # never loaded: no point ranking an empty cache
                    self._run(self._vectors.refresh, user_id, entry, write=False)
                candidates, every = entry.ranked_versions(unit_query, n)
                return candidates, every, [entry.seq, entry.epoch]

        return rank

    def _text_ranker(self, words: list[str]) -> Ranker | None:
        texts = self._text_cache()
        tokens = texts.tokens(words)
        if tokens is None:
            return None

        def rank(user_id: str, n: int) -> tuple[list[tuple[str, float]], bool, list]:
            entry = texts.entry(user_id)
            vectors = self._vectors.entry(user_id)
            with entry.lock:
                # This process's own write moves the vector cache on (``written``), not this
                # one: catching up first saves running the searches twice after every write.
                if entry.seq < 0 or (vectors.seq > entry.seq and vectors.epoch == entry.epoch):
                    self._run(texts.refresh, user_id, entry, write=False)
                candidates, every = entry.ranked(texts.tokenizer, tokens, n)
                return candidates, every, [entry.seq, entry.epoch]

        return rank

    def _text_cache(self) -> TextCache:
        cache = self.__dict__.get("_texts")
        if cache is None:
            with _TEXTS_LOCK:
                cache = self.__dict__.setdefault("_texts", TextCache())
        return cache

    def _cached_searches(self, user_id: str, rankers: dict[int, tuple[Ranker, str, int]], params: dict,
                         k: int) -> dict[int, list[SearchHit]]:
        """The top k versions of each ranker's order that pass its filters (its ``tail``): the
        best candidates go in in order, ``fetch`` of them, widened (``_wider``) until k pass
        or every candidate was tried. All lists in one statement, with the user's clock: when a
        cache was behind it (another writer, or this process's own write for the text cache),
        the caches catch up and the statement runs again, once: a write landing after that is
        the race any read-then-search has."""
        wanted = {i: fetch for i, (_, _, fetch) in rankers.items()}
        out: dict[int, list[SearchHit]] = {}
        caught_up = False
        while wanted:
            order = sorted(wanted)
            heads: list[str] = []
            extra: dict[str, list] = {}
            at: list[list] = []
            every: dict[int, bool] = {}
            for i in order:
                rank, tail, _ = rankers[i]
                candidates, every[i], ranked_at = rank(user_id, wanted[i])
                extra[f"c{i}"] = [list(c) for c in candidates]
                heads.append(f"UNWIND $c{i} AS c MATCH (v:MemoryVersion {{id: c[0]}}) "
                             f"WITH v, c[1] AS score {tail}")
                at.append(ranked_at)
            lists, clock = self._searches(heads, params | extra, clock=True)
            stale = any(ranked_at != [clock[0] or 0, clock[1]] for ranked_at in at)
            if stale and not caught_up:
                self._catch_up(user_id, order)
                caught_up = True
                continue
            for i, hits in zip(order, lists, strict=True):
                if len(hits) >= k or every[i]:
                    out[i] = hits
                    del wanted[i]
                else:
                    wanted[i] = _wider(wanted[i], len(hits), k)
        return out

    def _catch_up(self, user_id: str, lists: list[int]) -> None:
        """Bring the caches the lists ranked from up to date with the store."""
        if 0 in lists:
            entry = self._vectors.entry(user_id)
            with entry.lock:
                self._run(self._vectors.refresh, user_id, entry, write=False)
        if 1 in lists or 2 in lists:
            texts = self._text_cache()
            text_entry = texts.entry(user_id)
            with text_entry.lock:
                self._run(texts.refresh, user_id, text_entry, write=False)

    def _lucene_search(self, words: list[str], user_id: str, tail: str, params: dict,
                       k: int) -> list[SearchHit]:
        """Lucene's own ranking (a query word the tokenizer makes a phrase): its statistics
        count every tenant's documents."""
        head = (f"CALL db.index.fulltext.queryNodes('{FULLTEXT_INDEX}', $lucene, {{limit: $fetch}}) "
                f"YIELD node AS v, score {tail}")
        params = params | {"lucene": _lucene(user_id, words)}
        hits = self._searches([head], params | {"fetch": max(k * OVERFETCH, MIN_FETCH)})[0]
        if len(hits) < k:  # the tenant clause already narrowed Lucene to this user: take all
            hits = self._searches([head], params | {"fetch": 2**31 - 1})[0]
        return hits

    def _nearest_memories(self, user_id: str, unit: np.ndarray, k: int,
                          min_score: float) -> list[list[tuple[str, float]]]:
        # Exact, over this process's copy of the user's vectors, brought up to date first.
        entry = self._vectors.entry(user_id)
        with entry.lock:
            self._run(self._vectors.refresh, user_id, entry, write=False)
            return entry.nearest(unit, k, min_score)

    def _text_search(self, terms: list[str], flt: SearchFilter, k: int) -> list[SearchHit]:
        return self._ranked_lists(None, terms, flt, k, [])[1]

    def _searches(self, heads: list[str], params: dict, clock: bool = False) -> Any:
        """Run searches (each yielding ``v``, ``m``, ``score``) in one statement: the top $k of
        each, best first. An empty head gives an empty list. With ``clock``, also the user's
        clock as [seq, epoch] (see ``vectors``), read in the same statement."""
        parts = [f"CALL () {{ {head} WITH v, m, score ORDER BY score DESC, {R.WRITTEN_ORDER} LIMIT $k "
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


def _wider(fetched: int, passed: int, k: int) -> int:
    """The next try's candidate count: twice what the pass rate just seen needs for k (a
    margin for its noise, so one more try mostly suffices; with fewer than k passed that is
    more than double), at most CACHE_WIDEN-fold (no pass at all says little about the rate)."""
    return min(2 * fetched * k // max(passed, 1), CACHE_WIDEN * fetched)


def _lucene(user_id: str, terms: list[str]) -> str:
    """A full-text query for any of ``terms`` (each quoted: never Lucene syntax) in the user's
    versions' search texts (``search``: the search text, else the text). The tenant clause
    scores nothing (boost 0): it would add one constant to every hit's score, which recall
    divides by the best, so a weak match would look stronger than on SQLite (FTS5 gives the
    tenant column no weight)."""
    words = " OR ".join(f'"{t}"' for t in terms)
    return f'user_key:"{R.user_key(user_id)}"^0 AND search:({words})'
