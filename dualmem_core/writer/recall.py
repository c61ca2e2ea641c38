"""Hybrid recall: vector and full-text top-k under the same filter, one hop through shared
entities, fused by ``scoring``. No model call on this path beyond embedding the query.

The candidates and their signals are gathered in ``candidates.py``; the reorderings by time and
supersession applied after scoring are in ``reorder.py``."""

from __future__ import annotations

import numpy as np

from ..store import SearchFilter, Store
from ..timeutil import utcnow
from ..vocab.statement_words import statement_words
from . import scoring
from .candidates import _add_cues, _Candidate, _candidate, _expand, _look_up, _mark_spoken
from .intent import Asked
from .reorder import NEWEST_WINDOW, _changes_first, _newest_first, _predecessors_of_named, _successors_first
from .results import Hit


def recall(store: Store, query_vector: np.ndarray, query: str, flt: SearchFilter, k: int,
           asked: Asked | None = None) -> list[Hit]:
    """``asked``: the question's reading (``intent.read_question``); its facts are looked up and
    lifted by ``scoring.W_INTENT``."""
    with store.reading():  # a dozen reads: one transaction on Neo4j
        # Not ``asked or Asked()``: a reading with no predicate is falsy, yet its set-aside values
        # count ("who was she seeing before Owen?").
        return _recall(store, query_vector, query, flt, k, Asked() if asked is None else asked)


def _recall(store: Store, query_vector: np.ndarray, query: str, flt: SearchFilter, k: int,
            asked: Asked) -> list[Hit]:
    depth = max(4 * k, 20)
    past = flt.valid_at is None and scoring.asks_about_the_past(query)
    present = not past and flt.valid_at is None
    # The cue list (``_add_cues``) is for questions about the present only.
    cues = statement_words([*asked.predicates, *asked.relations]) if asked and present else ""
    by_vector, by_text, by_cue = store.hybrid_search(query_vector, query, flt, depth, cues=cues)
    lists = [by_vector, by_text]
    candidates: dict[str, _Candidate] = {}
    for list_index, hits in enumerate(lists):
        for rank, hit in enumerate(hits, 1):
            cand = _candidate(candidates, hit)
            cand.signals.ranks.append(rank)
            if list_index == 0:
                cand.signals.cosine = hit.score
            else:
                cand.signals.bm25 = hit.score
    _expand(store, flt, candidates, lists, query_vector)
    if asked:
        _look_up(store, flt, candidates, asked, k)
        _add_cues(candidates, by_cue, asked, cues)
    _mark_spoken(candidates, query)  # after every list has added its candidates
    best_bm25 = max((c.signals.bm25 for c in candidates.values()), default=0.0)
    most_shared = max((c.signals.shared_entities for c in candidates.values()), default=0)
    now = flt.valid_at or utcnow()
    ranked = []
    for cand in candidates.values():
        version = cand.hit.version
        # As of a past time, what was valid then counts as current even if superseded since.
        live = version.status == "active" or (flt.valid_at is not None and version.status == "superseded")
        current = live and version.valid_from <= now < version.valid_to
        parts = scoring.relevance(cand.signals, best_bm25, most_shared, len(lists))
        if asked:
            parts["intent"] = scoring.W_INTENT * cand.signals.intent
        score = scoring.final_score(parts, version.confidence, version.salience, current, past=past,
                                    aside=cand.signals.aside, spoken=cand.signals.spoken)
        ranked.append((score, parts, current, cand.hit))
    if flt.valid_at is None and not past:
        told_past = _past_tellings(store, flt.user_id, ranked)
        ranked = [(score * scoring.STALE if hit.memory.id in told_past else score, parts, current, hit)
                  for score, parts, current, hit in ranked]
        ranked = _successors_first(store, flt.user_id, ranked)
        ranked = _changes_first(ranked)
        if asked:
            ranked = _newest_first(ranked, asked, cues, told_past)
    elif past and asked.excluded:
        ranked = _predecessors_of_named(store, flt, asked, ranked)
    # Equal scores by text, then id: ids are random, so an id alone would make ties (and
    # measurements) differ from run to run.
    ranked.sort(key=lambda item: (-item[0], item[3].version.text, item[3].version.id))
    top, seen = [], set()
    for score, parts, current, hit in ranked:
        if hit.memory.id in seen:  # one version per memory: the best-scoring one
            continue
        seen.add(hit.memory.id)
        top.append((score, parts, current, hit))
        if len(top) == k:
            break
    sources = sources_of(store, flt.user_id, [hit.memory.id for *_, hit in top])
    return [
        Hit(
            memory_id=hit.memory.id,
            version_id=hit.version.id,
            text=hit.version.text,
            score=round(score, 6),
            why={n: round(v, 6) for n, v in parts.items()},
            sources=sources.get(hit.memory.id, []),
            current=current,
            valid_from=hit.version.valid_from,
            valid_to=hit.version.valid_to,
            kind=hit.memory.kind,
            subject=hit.version.subject,
            predicate=hit.version.predicate,
            object=hit.version.object,
        )
        for score, parts, current, hit in top
    ]


def _past_tellings(store: Store, user_id: str, ranked: list[tuple]) -> set[str]:
    """The messages among the best NEWEST_WINDOW whose facts there have all ended or been
    superseded: they tell of the past ("funny thing is it's not my first coast job, I was at the
    aquarium" beside "user used to work at Monterey Bay Aquarium"), though their words match a
    question about the present as well as they did when they were true."""
    # Only the best: a message further down is not shown, and reading the sources of every
    # candidate cost several milliseconds at 100k memories.
    ranked = sorted(ranked, key=lambda item: -item[0])[:NEWEST_WINDOW]
    if all(item[3].memory.kind == "fact" for item in ranked):
        return set()
    sources = sources_of(store, user_id, list({item[3].memory.id for item in ranked}))
    holds: dict[str, bool] = {}  # source id -> whether a fact told there still holds
    for _, _, current, hit in ranked:
        if hit.memory.kind == "fact":
            for source in sources.get(hit.memory.id, []):
                holds[source] = holds.get(source, False) or current
    out = set()
    for _, _, _, hit in ranked:
        said = [holds[s] for s in sources.get(hit.memory.id, []) if s in holds]
        if hit.memory.kind != "fact" and said and not any(said):
            out.add(hit.memory.id)
    return out


def sources_of(store: Store, user_id: str, memory_ids: list[str]) -> dict[str, list[str]]:
    """Source ids of the episodes each memory came from, in the order they were said."""
    return store.sources_of(user_id, memory_ids)
