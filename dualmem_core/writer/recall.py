"""Hybrid recall: vector and full-text top-k under the same filter, one hop through shared
entities, fused by ``scoring``. No model call on this path beyond embedding the query."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime

import numpy as np

from ..store import EdgeType, SearchFilter, SearchHit, Store
from ..timeutil import utcnow
from ..vocab import changes
from ..vocab.predicates import canonical, is_single_valued
from ..vocab.statement_words import statement_words
from . import scoring
from .intent import RELATIONS, Asked
from .results import Hit
from .search_text import speaker_of

SEEDS = 5  # best hits whose entities are expanded
HUB_DEGREE = 50  # an entity mentioned by more memories than this is a hub: not expanded
LOOKUP = 10  # facts of the asked predicates read straight from the store, latest first
# The best hits among which the tellings of an asked single-valued thing are dealt newest first
# (``_newest_first``): fixed, so the first hits do not depend on how many are asked for. Chosen on
# the fixture's tune part (stale-first 13.8 -> 11.2% MiniLM, 12.1 -> 10.3% hashing; dealing within
# the top k = 5 before); wider reaches the newest telling that ranked just below.
NEWEST_WINDOW = 15


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
    _expand(store, flt, candidates, lists)
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


def _newest_first(ranked: list[tuple], asked: Asked, cues: str, told_past: set[str]) -> list[tuple]:
    """Asked about the present of a single-valued thing ("where does she live?"), the memories in
    the best NEWEST_WINDOW that tell of it keep their scores, dealt out newest first: the latest telling is
    the present, whether or not the Editor linked it to the one it replaced ("new flat in
    manchester" after "living in leeds atm", neither read as a fact). They are the current facts
    of an asked predicate about whom it asks, and, asked about the user, the user's messages in
    the words such facts are stated in (the cue list)."""
    slot = {p for p in asked.predicates if is_single_valued(p)}
    if not slot:
        return ranked
    words = set(cues.split())
    top = sorted(range(len(ranked)), key=lambda i: -ranked[i][0])[:NEWEST_WINDOW]
    about = _asked_about([_Candidate(ranked[i][3]) for i in top if ranked[i][3].version.predicate], asked)

    def tells(hit: SearchHit) -> bool:
        v = hit.version
        if v.predicate:
            return (canonical(v.predicate) in slot and not v.negated and (v.subject or "").casefold() in about
                    and (v.object or "").casefold() not in asked.excluded)
        # The agent's replies have no search text of their own context (``search_text.py``).
        return (about == {"user"} and v.search_text is not None and _says(v.text, words)
                and hit.memory.id not in told_past)

    # A fact of it that has ended ("Lucas was her boyfriend" till June) is a telling too, dealt
    # below every current one: asked who is her boyfriend now, it is what is no longer so.
    members = [i for i in top if (ranked[i][2] or ranked[i][3].version.predicate) and tells(ranked[i][3])]
    if len(members) < 2:
        return ranked
    scores = sorted((ranked[i][0] for i in members), reverse=True)
    # Newest first; equal times by text (ids are random: a tie must not move between runs).
    newest = sorted(members, key=lambda i: (ranked[i][2], ranked[i][3].version.valid_from,
                                            ranked[i][3].version.text), reverse=True)
    out = list(ranked)
    for i, score in zip(newest, scores, strict=True):
        out[i] = (score, *ranked[i][1:])
    return out


def _mark_spoken(candidates: dict[str, _Candidate], query: str) -> None:
    """Mark the messages said by a person the question names, among the speakers of the
    candidates (a name is matched whole, as words of the question)."""
    said_by = {key: speaker_of(c.hit.version.text, c.hit.version.search_text)
               for key, c in candidates.items() if c.hit.memory.kind != "fact"}
    asked = _words(query)
    named = {sp for sp in set(said_by.values()) - {None} if _words(sp) in asked}
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


def _predecessors_of_named(store: Store, flt: SearchFilter, asked: Asked, ranked: list[tuple]) -> list[tuple]:
    """Asked about the past with a value set aside ("where did she live before Denver?"), the
    value held just before the named one ranks first: the one the named fact superseded, or else,
    where the graph has no such edge, the latest fact of the same subject and predicate that began
    before it. "Before Denver" asks for the value just
    before, not the oldest one told. Only a value set aside counts: "when did she get engaged?"
    names "engaged" as what it asks. Where no fact holds the named value, a message naming it
    says when it began (``_before_told``). The slot is the named fact's, whether or not the
    question's words name it ("who was she seeing before Owen?"): where the hits hold no other
    value of it, the slot's facts are read from the store."""
    aside = asked.excluded
    named: dict[str, tuple[float, SearchHit]] = {}
    for score, _, _, hit in ranked:
        value = (hit.version.object or "").casefold()
        if len(value) > 2 and value in aside and score > named.get(hit.memory.id, (-1.0, None))[0]:
            named[hit.memory.id] = (score, hit)
    if not named:
        return _before_told(asked, ranked)
    read = _slot_facts(store, flt, [hit for _, hit in named.values()], ranked)
    rivals_of = ranked + read
    edges = store.get_edges(flt.user_id, node_ids=list(named), types=[EdgeType.SUPERSEDES])
    superseded: dict[str, list[str]] = {}
    for e in edges:
        if e.src_id in named and e.dst_id not in named:
            superseded.setdefault(e.src_id, []).append(e.dst_id)
    lift: dict[str, float] = {}
    # The value just before ranks first of all: the question asks for it, and a message telling
    # the named value ("married Tasha last saturday") would otherwise stay above it.
    best = max(score for score, *_ in ranked) * 1.01
    for memory_id, (_, hit) in named.items():
        rivals = [h for _, _, _, h in rivals_of if h.memory.id not in named and _same_slot(h, hit)]
        earlier = [_latest_before(hit.version.valid_from, rivals)]
        for before in superseded.get(memory_id) or earlier:
            if before is not None:
                lift[before] = max(lift.get(before, 0.0), best)
    # A fact read from the store is shown only as the value asked for.
    return [(max(score, lift.get(hit.memory.id, 0.0)), parts, current, hit)
            for score, parts, current, hit in ranked + [r for r in read if r[3].memory.id in lift]]


def _slot_facts(store: Store, flt: SearchFilter, named: list[SearchHit], ranked: list[tuple]) -> list[tuple]:
    """The facts of the named values' slots, read from the store (score 0), when the hits hold no
    other value of a slot."""
    lacking = {canonical(h.version.predicate) for h in named
               if not any(_same_slot(other, h) and other.memory.id != h.memory.id for *_, other in ranked)}
    if not lacking:
        return []
    have = {hit.memory.id for *_, hit in ranked}
    found = store.list_facts(flt, predicates=sorted(lacking), limit=LOOKUP)
    return [(0.0, {"before": 1.0}, hit.version.status == "active", hit) for hit in found
            if hit.memory.id not in have and any(_same_slot(hit, h) for h in named)]


def _before_told(asked: Asked, ranked: list[tuple]) -> list[tuple]:
    """"Where did he live before the move to Conroe?" with no fact of Conroe ("we closed on a house
    up in Conroe!!" read as none): the first message naming a place or person set aside says when
    it began, and the fact of an asked single-valued predicate, about whom the question asks,
    that began last before that ranks first. Only a name counts ("the move" names nothing)."""
    values = {v for v in asked.excluded if v in {n.casefold() for n in asked.names}}
    told = [hit.version.valid_from for _, _, _, hit in ranked if hit.memory.kind != "fact"
            and any(_words(v) in _words(hit.version.text) for v in values)]
    slot = {p for p in asked.predicates if is_single_valued(p)}
    facts = [hit for _, _, _, hit in ranked
             if hit.version.predicate and canonical(hit.version.predicate) in slot]
    if not told or not facts:
        return ranked
    about = _asked_about([_Candidate(hit) for hit in facts], asked)
    latest = _latest_before(min(told), [h for h in facts if (h.version.subject or "").casefold() in about
                                        and (h.version.object or "").casefold() not in values])
    if latest is None:
        return ranked
    best = max(score for score, *_ in ranked) * 1.01
    return [(best if hit.memory.id == latest else score, parts, current, hit)
            for score, parts, current, hit in ranked]


def _same_slot(hit: SearchHit, other: SearchHit) -> bool:
    """Facts of one subject and one predicate: values of one slot over time."""
    a, b = hit.version, other.version
    return bool(a.predicate) and canonical(a.predicate) == canonical(b.predicate or "") and (
        (a.subject or "").casefold() == (b.subject or "").casefold())


def _latest_before(began: datetime, rivals: list[SearchHit]) -> str | None:
    """The memory of the rival that began last before ``began`` (a start unknown to the Writer,
    as in "I used to work at X", counts as the earliest)."""
    earlier = [h for h in rivals if h.version.valid_from < began and not h.version.negated]
    if not earlier:
        return None
    return max(earlier, key=lambda h: (h.version.valid_from, h.version.valid_to, h.version.text)).memory.id


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


def _changes_first(ranked: list[tuple]) -> list[tuple]:
    """Asked about the present, a message telling a change of a thing ("also I quit coffee 2 weeks
    ago") ranks just above the earlier messages among the best NEWEST_WINDOW that name that thing
    ("I'm on my fourth coffee of the day"), whether or not the Editor linked them: their words
    match the question as well as they did when they were true. The thing is what a strong change
    word is said of (``changes.changed_things``); a word of addition ("another cat") changes
    nothing. Facts are left to the Editor's chain: one read from the same message may begin
    before it ("user does not drink coffee", since two weeks ago)."""
    top = sorted(range(len(ranked)), key=lambda i: -ranked[i][0])[:NEWEST_WINDOW]
    out = list(ranked)
    for i in top:
        _, _, current, hit = ranked[i]
        if hit.memory.kind == "fact" or not current:
            continue
        things = changes.changed_things(hit.version.text)
        if not things:
            continue
        began = hit.version.valid_from
        earlier = [j for j in top if ranked[j][3].memory.kind != "fact"
                   and ranked[j][3].version.valid_from < began
                   and changes.words(ranked[j][3].version.text) & things]
        best = max((ranked[j][0] for j in earlier), default=0.0)
        if best > out[i][0]:
            out[i] = (best * 1.001, *ranked[i][1:])
    return out


def _successors_first(store: Store, user_id: str, ranked: list[tuple]) -> list[tuple]:
    """Keep a superseded memory below the memory that superseded it whenever both are found."""
    best: dict[str, float] = {}
    for score, _, _, hit in ranked:
        best[hit.memory.id] = max(best.get(hit.memory.id, 0.0), score)
    edges = store.get_edges(user_id, node_ids=list(best), types=[EdgeType.SUPERSEDES])
    cap = {e.dst_id: best[e.src_id] * 0.99 for e in edges if e.src_id in best and e.dst_id in best}
    return [
        (min(score, cap[hit.memory.id]) if hit.memory.id in cap else score, parts, current, hit)
        for score, parts, current, hit in ranked
    ]


def _expand(
    store: Store, flt: SearchFilter, candidates: dict[str, _Candidate], lists: list[list[SearchHit]]
) -> None:
    """Add memories sharing entities with the best hits, scored by what they share."""
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


def sources_of(store: Store, user_id: str, memory_ids: list[str]) -> dict[str, list[str]]:
    """Source ids of the episodes each memory came from, in the order they were said."""
    return store.sources_of(user_id, memory_ids)
