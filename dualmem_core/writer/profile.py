"""The layered profile (issue 35, L0 and L4): identity and lasting preferences, each with evidence.

Identity (L0) is the current value of each single-valued fact about the subject (lives in, works
at...): one value at a time, so the newest wins and one telling is enough.

Lasting preferences and traits (L4) are the current multi-valued facts (likes, hobbies, pets,
languages, people...: whatever ``vocab/predicates.py`` does not call single-valued, but for events
and plans, which happen rather than last) that independent evidence supports. The unit of
evidence is an *occasion*: a session, or the day a message without a session was said. A fact is
lasting when it is supported on at least ``min_occasions`` (2) occasions: one telling may be a
passing remark ("I like this café"), and a second telling on another occasion is the least evidence
that it holds over time. Counting occasions, not messages, keeps a fact repeated within one
conversation from passing as lasting.

Evidence is the fact's own source messages (its first telling and restatements; facts of the same
predicate and value are one entry). With ``topic_evidence``, also the user's turns of any ``topic``
memory (``editor/topics.py``) that holds one of those messages and that name the value: the
topic says the user keeps coming back to the *thing*, which is weaker evidence for the *relation*
(an extraction error about a thing often talked of passes). It is off by default because on the
evaluation fixture it more than doubled the entries but under half of the added ones were true
facts (``benchmarks/profile_layers.py``; docs/layers.md, Profile).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime

from ..store import EdgeType, SearchFilter, SearchHit, Store
from ..store.models import Episode
from ..timeutil import utcnow
from ..vocab import predicates
from .inputs import ASSISTANT_ROLES
from .results import ProfileEntry

# Occurrences, not traits: an ``event`` object happened once, and ``plans`` are the intentions
# layer's (L7, ``upcoming``); told twice, either is still one thing that happens, not who one is.
NOT_LASTING_TYPES = ("event",)
OTHER_LAYER = ("plans",)
TOPIC_KIND = "topic"  # the kind ``editor/topics.py`` writes (the writer does not import the editor)
MIN_OCCASIONS = 2


@dataclass(slots=True)
class LastingEntry:
    """One lasting preference or trait and the evidence for it."""

    predicate: str
    value: str
    text: str  # the newest fact's text
    negated: bool  # "does not eat meat" is a lasting diet too
    memory_ids: list[str]  # every current fact saying it
    since: datetime  # the earliest valid_from among them
    sources: list[str]  # source ids of the supporting messages, in the order they were said
    occasions: int  # distinct sessions (or days, for messages without a session) among them
    topic_ids: list[str] = field(default_factory=list)  # topics whose turns added evidence


@dataclass(slots=True)
class Profile:
    identity: dict[str, ProfileEntry]  # by predicate, as ``Writer.profile`` returns
    lasting: list[LastingEntry]  # most occasions first


def occasion(episode: Episode) -> str:
    """The evidence unit a message belongs to: its session, else the (UTC) day it was said."""
    return f"session:{episode.session_id}" if episode.session_id else f"day:{episode.observed_at.date()}"


def _may_last(predicate: str) -> bool:
    return (not predicates.is_single_valued(predicate) and predicates.canonical(predicate) not in OTHER_LAYER
            and predicates.object_type(predicate) not in NOT_LASTING_TYPES)


def _words(text: str) -> list[str]:
    return "".join(c if c.isalnum() else " " for c in text.casefold()).split()


def _names(value: str, text: str) -> bool:
    """True when ``text`` holds the value's words in a row (whole words, any case)."""
    want, have = _words(value), _words(text)
    return bool(want) and any(have[i:i + len(want)] == want for i in range(len(have) - len(want) + 1))


def current_facts(store: Store, user_id: str) -> list[SearchHit]:
    """The user's facts believed and valid now, newest first: what both layers are read from."""
    return store.list_facts(SearchFilter(user_id, valid_at=utcnow(), statuses=("active",)))


def lasting_facts(store: Store, user_id: str, hits: list[SearchHit], subject: str = "user",
                  min_occasions: int = MIN_OCCASIONS, topic_evidence: bool = False) -> list[LastingEntry]:
    """The subject's current multi-valued facts (among ``hits``, ``current_facts``) supported on
    at least ``min_occasions`` occasions."""
    groups: dict[tuple[str, str, bool], list] = defaultdict(list)  # newest first, as listed
    for hit in hits:
        v = hit.version
        assert v.predicate is not None  # list_facts returns only versions with a predicate
        if (v.subject or "").casefold() != subject.casefold() or not _may_last(v.predicate):
            continue
        groups[(predicates.canonical(v.predicate), (v.object or "").casefold(), v.negated)].append(hit)
    if not groups:
        return []
    fact_ids = [h.memory.id for hs in groups.values() for h in hs]
    from_edges = store.get_edges(user_id, node_ids=fact_ids, types=[EdgeType.FROM])
    told: dict[str, set[str]] = defaultdict(set)  # fact -> its episodes
    for e in from_edges:
        told[e.src_id].add(e.dst_id)
    fact_episodes = {ep for eps in told.values() for ep in eps}
    topic_turns = _topic_turns(store, user_id, fact_episodes) if topic_evidence else {}
    episodes = {ep.id: ep for ep in store.get_episodes(
        user_id, sorted(fact_episodes.union(*(turns for _, turns in topic_turns.values()))))}
    entries = []
    for (predicate, _, negated), facts in groups.items():
        value = facts[0].version.object or ""
        own = {ep for h in facts for ep in told[h.memory.id]}
        support, topic_ids = set(own), []
        for topic_id, (held, turns) in topic_turns.items():
            if held & own:
                named = {t for t in turns if t in episodes and episodes[t].role not in ASSISTANT_ROLES
                         and _names(value, episodes[t].text)}
                if named - support:
                    topic_ids.append(topic_id)
                support |= named
        said = sorted((episodes[e] for e in support if e in episodes), key=lambda ep: (ep.observed_at, ep.id))
        occasions = len({occasion(ep) for ep in said})
        if occasions >= min_occasions:
            entries.append(LastingEntry(
                predicate, value, facts[0].version.text, negated, [h.memory.id for h in facts],
                min(h.version.valid_from for h in facts), [ep.source_id or ep.id for ep in said],
                occasions, sorted(topic_ids)))
    return sorted(entries, key=lambda e: (-e.occasions, e.predicate, e.value.casefold()))


def _topic_turns(store: Store, user_id: str, fact_episodes: set[str]) -> dict[str, tuple[set[str], set[str]]]:
    """Each current topic holding one of these messages: (the ones it holds, all its turns)."""
    if not fact_episodes:
        return {}
    edges = store.get_edges(user_id, node_ids=sorted(fact_episodes), types=[EdgeType.FROM])
    candidates = sorted({e.src_id for e in edges})
    topics = [m.id for m in store.get_memories(user_id, candidates) if m.kind == TOPIC_KIND]
    versions = store.get_versions(user_id, topics, embeddings=False)
    current = {v.memory_id for v in versions if v.status == "active"}
    if not current:
        return {}
    out: dict[str, tuple[set[str], set[str]]] = {t: (set(), set()) for t in current}
    for e in store.get_edges(user_id, node_ids=sorted(current), types=[EdgeType.FROM]):
        if e.src_id in out:
            out[e.src_id][1].add(e.dst_id)
    for held, turns in out.values():
        held |= turns & fact_episodes
    return out
