"""Recall's reorderings of its scored list by time and supersession: the newest telling of an
asked single-valued thing first, a message telling a change above the earlier ones it changes,
a superseded memory below its successor, and, asked about the past with a value set aside
("before Denver"), the value held just before it first.

Separate from ``recall.py`` (which applies them after scoring) and ``candidates.py`` (which
gathers what they reorder): each takes the ranked (score, parts, current, hit) tuples and gives
them back reordered.
"""

from __future__ import annotations

from datetime import datetime

from ..slots import read_message
from ..store import EdgeType, SearchFilter, SearchHit, Store
from ..vocab import changes
from ..vocab.predicates import canonical, is_single_valued
from .candidates import LOOKUP, _asked_about, _Candidate, _says, _words
from .intent import Asked

# The best hits among which the tellings of an asked single-valued thing are dealt newest first
# (``_newest_first``): fixed, so the first hits do not depend on how many are asked for. Chosen on
# the fixture's tune part (stale-first 13.8 -> 11.2% MiniLM, 12.1 -> 10.3% hashing; dealing within
# the top k = 5 before); wider reaches the newest telling that ranked just below.
NEWEST_WINDOW = 15
# The slot reader's chance above which a message in the asked slot's words is taken to tell it of
# someone else and not of the user: even odds, as the reader's chances of other people's slots are
# often wrong below it ("living w my cousin in galway" reads as the cousin's at .17).
SURELY = 0.5
# How far the newest telling is put above the best hit of the window: just above it.
LEAD = 1.001


def _newest_first(ranked: list[tuple], asked: Asked, cues: str, told_past: set[str]) -> list[tuple]:
    """Asked about the present of a single-valued thing ("where does she live?"), the memories in
    the best NEWEST_WINDOW that tell of it keep their scores, dealt out newest first: the latest telling is
    the present, whether or not the Editor linked it to the one it replaced ("new flat in
    manchester" after "living in leeds atm", neither read as a fact). They are the current facts
    of an asked predicate about whom it asks, and, asked about the user, the user's messages in
    the words such facts are stated in (the cue list).
    The newest current one is put just above the window's best hit: the present comes before an
    introduction or a name match."""
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
        if about != {"user"} or v.search_text is None or hit.memory.id in told_past:
            return False
        # A message tells it when the slot reader reads it so of the speaker, or when it is in the
        # slot's words (the reader misses what it was not taught) unless the reader reads those
        # words as told of someone else ("Sarah and her family left Chicago for Milwaukee").
        read = read_message(v.text)
        elsewhere = max((read.others.get(s, 0.0) for s in slot), default=0.0) >= SURELY
        return bool(slot & set(read.slots)) or (_says(v.text, words) and not elsewhere)

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
    # The newest current telling is the present: an introduction or a name match in the window
    # ("Happy birthday, Rafa!", "user's name is ...") does not outrank it.
    if ranked[newest[0]][2]:
        out[newest[0]] = (max(ranked[i][0] for i in top) * LEAD, *ranked[newest[0]][1:])
    return out


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
