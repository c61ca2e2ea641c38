"""Recall's candidates: the hits of every ranked list (vector, full text, the asked facts read
from the store, the cue words), the memories one hop away through shared entities, and the
signals ``scoring`` fuses, including whose facts a question asks for.

Separate from ``recall.py``, which orders and returns what is gathered here, so that the
gathering of candidates and their signals can be read as one piece.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime
from typing import cast

import numpy as np

from ..store import EdgeType, SearchFilter, SearchHit, Store
from ..vocab.predicates import canonical, is_single_valued
from . import scoring
from .intent import RELATIONS, Asked
from .search_text import speaker_of

SEEDS = 5  # best hits whose entities are expanded
HUB_DEGREE = 50  # an entity mentioned by more memories than this is a hub: not expanded
LOOKUP = 10  # facts of the asked predicates read straight from the store, latest first


@dataclass(slots=True)
class _Candidate:
    hit: SearchHit
    signals: scoring.Signals = field(default_factory=scoring.Signals)


def _candidate(candidates: dict[str, _Candidate], hit: SearchHit) -> _Candidate:
    """The candidate of the hit's version, made on first sight (a recall meets ~60 hits, most of
    them in two or three lists)."""
    cand = candidates.get(hit.version.id)
    if cand is None:
        cand = candidates[hit.version.id] = _Candidate(hit)
    return cand


def _add_cues(candidates: dict[str, _Candidate], found: list[SearchHit], asked: Asked, cues: str) -> None:
    """One more ranked list for a question about the present: the user's messages in the words
    facts of the asked predicates are stated in ("what pets does she have?" finds "my cat
    knocked the latte over", whose pet the extractor may have missed), scored by their text
    match to those words (``scoring.W_CUE``).

    Not searched for the past or as of a date: the words find every telling of every period
    alike, and lifting them moved old tellings above the answer. Asked about now, a message said
    before the latest value of a single-valued predicate asked for took hold is left out: "we
    moved to Denver" tells of an earlier state once a later move is known. A message must say a
    cue word itself: full-text search also matches the earlier turns indexed with it
    (``search_text.py``), and "any tips on running shoes?" two turns after the cat is no pet."""
    words = set(cues.split())
    found = [h for h in found if _says(h.version.text, words)]
    since = max((c.hit.version.valid_from for c in candidates.values()
                 if c.hit.version.predicate and c.hit.version.status == "active"
                 and canonical(c.hit.version.predicate) in asked.predicates
                 and is_single_valued(canonical(c.hit.version.predicate))), default=None)
    found = [h for h in found if since is None or h.version.valid_from >= since]
    best = max((h.score for h in found), default=0.0)
    for rank, hit in enumerate(found, 1):
        cand = _candidate(candidates, hit)
        cand.signals.ranks.append(rank)
        cand.signals.cue = hit.score / best if best > 0 else 0.0


def _mark_spoken(candidates: dict[str, _Candidate], query: str) -> None:
    """Mark the messages said by a person the question names, among the speakers of the
    candidates (a name is matched whole, as words of the question)."""
    said_by = {key: speaker_of(c.hit.version.text, c.hit.version.search_text)
               for key, c in candidates.items() if c.hit.memory.kind != "fact"}
    asked = _words(query)
    named = {sp for sp in cast("set[str]", set(said_by.values()) - {None}) if _words(sp) in asked}
    for key, speaker in said_by.items():
        if speaker in named:
            candidates[key].signals.spoken = True


def _words(text: str) -> str:
    """The text's words, casefolded, space-separated and padded: " ana lima " is in " did ana lima go "."""
    return " " + " ".join(re.findall(r"\w+", text.casefold())) + " "


def _says(text: str, words: set[str]) -> bool:
    """Whether the text has one of the words, or its plural ("cats" for "cat")."""
    return any(w in words or w.removesuffix("s") in words for w in re.findall(r"\w+", text.casefold()))


def _look_up(store: Store, flt: SearchFilter, candidates: dict[str, _Candidate], asked: Asked,
             k: int) -> None:
    """Add the facts of the asked predicates (and of the relations the question goes through) and
    score how well each candidate answers: its predicate is asked for, about the one asked about."""
    facts = [c for c in candidates.values() if c.hit.version.predicate]
    about = _asked_about(facts, asked)
    answering = sum(canonical(c.hit.version.predicate) in asked.predicates
                    and (c.hit.version.subject or "").casefold() in about for c in facts)
    if answering < k:  # the searches found too few answers: read them from the store
        wanted = [*asked.predicates, *(r for r in asked.relations if r not in asked.predicates)]
        # The lookup is one more list, latest first: its facts share in the rank fusion as the
        # vector and text lists' hits do.
        found = store.list_facts(flt, predicates=wanted, limit=LOOKUP)
        # Latest first, equal times by text: facts told in one message share their times, and
        # the store breaks that tie by (random) id.
        found.sort(key=lambda h: (-h.version.valid_from.timestamp(), h.version.text, h.version.id))
        for rank, hit in enumerate(found, 1):
            _candidate(candidates, hit).signals.ranks.append(rank)
        facts = [c for c in candidates.values() if c.hit.version.predicate]
        about = _asked_about(facts, asked)
    relations = set(asked.relations)
    for cand in facts:
        version = cand.hit.version
        predicate = canonical(version.predicate)
        subject = (version.subject or "").casefold()
        value = (version.object or "").casefold()
        if predicate in relations and subject == "user":
            cand.signals.intent = scoring.INTENT_RELATION  # the link to the person asked about
        elif predicate in asked.predicates:
            if subject not in about:  # "Robert lives in Boston" does not say where the user lives
                cand.signals.aside = True
            elif value not in asked.excluded:
                cand.signals.intent = 1.0
        if value and value in asked.excluded:  # "before Denver": the Denver fact is not the answer
            cand.signals.aside = True


def _asked_about(facts: list[_Candidate], asked: Asked) -> set[str]:
    """Whose facts the question asks for, casefolded subjects: the people it names that some fact
    is about, and the people its relations lead to ("her mum": the user's parent facts). Else the
    user, unless it goes through a relation no fact resolves ("where does her sister live?" with
    no sister known: nobody's facts answer it)."""
    people = {(c.hit.version.subject or "").casefold() for c in facts}
    people |= {(c.hit.version.object or "").casefold() for c in facts
               if canonical(c.hit.version.predicate) in RELATIONS}
    about = set()
    for name in asked.names:
        folded = name.casefold()
        about |= {p for p in people if p == folded or p.split(" ")[0] == folded}
    for cand in facts:
        version = cand.hit.version
        if (canonical(version.predicate) in asked.relations and (version.subject or "").casefold() == "user"
                and version.object and not version.negated):
            about.add(version.object.casefold())
    if about or asked.relations:
        return about
    return {"user"}  # a name no fact is about may be the user's own, not yet known as such


def _expand(
    store: Store, flt: SearchFilter, candidates: dict[str, _Candidate], lists: list[list[SearchHit]],
    query_vector: np.ndarray,
) -> None:
    """Add the turns the layers found lead to (``lists[0]`` is the vector list), then memories
    sharing entities with the best hits, scored by what they share."""
    lists = _through_layers(store, flt, candidates, lists, query_vector)
    seeds = list(dict.fromkeys(h.memory.id for hits in lists for h in hits[:SEEDS]))
    if not seeds:
        return
    known = {c.hit.memory.id for c in candidates.values()}
    # Neighbours count by what they share; their vectors stay in the store (they would be
    # in the vector list already if they were close to the query).
    neighbours, found, versions = store.expand(flt, seeds, known, max_entity_degree=HUB_DEGREE, limit=50)
    shared = {n.memory_id: len(n.via_entities) for n in neighbours}
    for cand in candidates.values():
        cand.signals.shared_entities = shared.get(cand.hit.memory.id, 0)
    memories = {m.id: m for m in found}
    for version in versions:
        memory = memories.get(version.memory_id)
        if memory is None or not _admits(
            flt,
            memory.agent_id,
            memory.session_id,
            memory.kind,
            version.status,
            version.valid_from,
            version.valid_to,
        ):
            continue
        candidates[version.id] = _Candidate(
            SearchHit(memory, version, 0.0), scoring.Signals(shared_entities=shared[memory.id])
        )


# Of a layer memory's match, the share each of its source turns inherits (a session summary's,
# ``editor/summaries.py``; a topic's, ``editor/topics.py``). The topic's was chosen on LoCoMo
# conversations 0-4 (0.5 and 0.8 tried); a topic's turns are all about it, a summary's few.
LAYER_SHARE = {"summary": 0.5, "topic": 0.8}
# A reached turn's cosine is that share of its layer's plus the rest of its own (or its own, if
# higher): the layer says how much of its match it vouches for, the turn's own similarity orders
# the layer's turns (without it a topic's turns tied, broken by their text).

def _through_layers(store: Store, flt: SearchFilter, candidates: dict[str, _Candidate],
                    lists: list[list[SearchHit]], query_vector: np.ndarray) -> list[list[SearchHit]]:
    """Layer memories, the Editor's session summaries and topics (``editor/summaries.py``,
    ``editor/topics.py``), route to the turns they were made of. A turn reached (a candidate
    already, or made one if no list found it) gets the cosine ``share * layer + (1 - share) * own``,
    own its cosine to the question and share ``LAYER_SHARE`` of the layer reaching it that gives
    the most (its own cosine if higher), and the better of its own text match and ``share`` of the
    layer's. Only the vectors of reached turns the vector list did not score are read. The layers
    themselves leave the candidates, and the lists' ranks are counted without them, so the other
    candidates score as if there were none: a layer is a way to its turns, not an answer beside
    them. Returns the lists without them."""
    layers = {c.hit.memory.id: (c.signals, LAYER_SHARE[c.hit.memory.kind]) for c in candidates.values()
              if c.hit.memory.kind in LAYER_SHARE}
    if not layers:
        return lists
    for key in [k for k, c in candidates.items() if c.hit.memory.id in layers]:
        del candidates[key]
    for cand in candidates.values():
        cand.signals.ranks = []
    lists = [[h for h in hits if h.memory.id not in layers] for hits in lists]
    for hits in lists:
        for rank, hit in enumerate(hits, 1):
            candidates[hit.version.id].signals.ranks.append(rank)
    user, at = flt.user_id, flt.known_at
    via = _reached(store, flt, layers)
    if not via:
        return lists
    known = {c.hit.memory.id for c in candidates.values()}
    scored = {h.memory.id for h in lists[0]} if lists else set()  # their cosine is their own already
    memories = {m.id: m for m in store.get_memories(user, [m for m in via if m not in known])}
    unit = query_vector / (np.linalg.norm(query_vector) or 1.0)
    own: dict[str, float] = {}
    for version in store.get_versions(user, [m for m in via if m not in scored], known_at=at):
        if version.embedding is not None:
            own[version.memory_id] = _cosine(unit, version.embedding)
        memory = memories.get(version.memory_id)
        if memory is None or memory.kind != "observation" or not _admits(
            flt, memory.agent_id, memory.session_id, memory.kind, version.status, version.valid_from,
            version.valid_to,
        ):
            continue
        candidates[version.id] = _Candidate(SearchHit(memory, version, 0.0))
    for cand in candidates.values():
        reach = via.get(cand.hit.memory.id)
        if reach is None:
            continue
        share, inherited_cosine, inherited_bm25 = reach
        mine = own.get(cand.hit.memory.id, cand.signals.cosine)
        cand.signals.cosine = max(mine, inherited_cosine + (1 - share) * max(mine, 0.0))
        cand.signals.bm25 = max(cand.signals.bm25, inherited_bm25)
    return lists


def _reached(store: Store, flt: SearchFilter, layers: dict[str, tuple[scoring.Signals, float]]
             ) -> dict[str, tuple[float, float, float]]:
    """The turns the layers were made of: turn -> (the share of the reaching layer that gives the
    most cosine, that cosine, the best share of a reaching layer's text match)."""
    user, at = flt.user_id, flt.known_at
    made_of = store.get_edges(user, node_ids=list(layers), types=[EdgeType.FROM], known_at=at)
    layers_of: dict[str, list[str]] = {}
    for e in made_of:
        if e.src_id in layers:
            layers_of.setdefault(e.dst_id, []).append(e.src_id)
    told = store.get_edges(user, node_ids=list(layers_of), types=[EdgeType.FROM], known_at=at)
    via: dict[str, tuple[float, float, float]] = {}
    for e in told:
        if e.src_id in layers:
            continue
        for layer in layers_of[e.dst_id]:
            signals, share = layers[layer]
            best = via.get(e.src_id, (0.0, 0.0, 0.0))
            if share * signals.cosine >= best[1]:
                best = (share, share * signals.cosine, best[2])
            via[e.src_id] = (best[0], best[1], max(best[2], share * signals.bm25))
    return via


def _cosine(unit: np.ndarray, vector: np.ndarray) -> float:
    norm = float(np.linalg.norm(vector))
    return float(unit @ vector) / norm if norm else 0.0


def _admits(
    flt: SearchFilter,
    agent: str | None,
    session: str | None,
    kind: str,
    status: str,
    valid_from: datetime,
    valid_to: datetime,
) -> bool:
    """The search filter, applied to a memory reached through the graph."""
    return (
        (flt.agent_id is None or agent == flt.agent_id)
        and (flt.session_id is None or session == flt.session_id)
        and (flt.kinds is None or kind in flt.kinds)
        and (flt.statuses is None or status in flt.statuses)
        and (flt.valid_at is None or valid_from <= flt.valid_at < valid_to)
    )
