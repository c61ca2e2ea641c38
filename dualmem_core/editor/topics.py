"""Recurring topics (issue 35, L6): what the user keeps coming back to across sessions, one ``topic``
memory each, made of all the turns about it.

Turns are clustered in the order they were said by a leader method: a turn joins the topic it is
most alike, when at least ``topic_similarity`` alike, else starts one. Alike is the mean of two
cosines, to the topic's mean embedding and to its tf-idf centroid (content words weighted by
how rare they are among the user's turns): the embedding carries meaning, the tf-idf the rare
words (a place, a game, a person) that a topic keeps repeating. A cluster becomes a topic once it
has ``topic_min_turns`` turns in ``topic_min_sessions`` sessions; smaller ones are not kept and
are clustered again with the next run's turns.

Incremental: a topic's turns stay its own; each run, only the turns no topic holds are
clustered, seeded by the existing topics, so a new turn joins a topic or starts a new one, and a
run with no new turn does nothing. The title is the cluster's top tf-idf terms against the
user's turns (no word list), the text says the count and the first and last mention, the
``search_text`` holds more of its terms for full-text search, the embedding is its turns' mean
(the Editor has no embedder), ``valid_from`` its first mention, and its sources (``FROM``) all its
turns' episodes: measurement counts the turns, and recall goes through it to them
(``writer/candidates.py``). Topics are the run's own records (``created_by`` the run id), so
rollback removes them.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from ..store import EdgeType
from ..store import changes as ch
from ..store.models import Memory, MemoryVersion
from .config import EditorConfig
from .decisions import Decision, Revise, StageOp, StageResult, edge
from .summaries import _sessions, _Turn
from .text_features import features
from .view import GraphView

STAGE = "topics"
TOPIC = "topic"
TITLE_TERMS = 3  # terms in the title: enough to tell topics apart, short enough to read
SEARCH_TERMS = 12  # terms full-text search matches a topic by


@dataclass(slots=True)
class _Cluster:
    memory_id: str | None  # the topic it already is, if any
    members: list[int] = field(default_factory=list)  # indices into the user's turns
    joined: bool = False  # a turn joined in this run


def find_topics(view: GraphView, config: EditorConfig) -> StageResult:
    """One decision per new topic and per topic new turns joined."""
    result = StageResult(STAGE)
    if not config.topics or not view.new_memory_ids():
        return result
    turns = sorted((t for ts in _sessions(view).values() for t in ts), key=lambda t: (t.said, t.order))
    if not turns:
        return result
    idf, alike = _similarity(turns, config)
    clusters = _existing(view, turns)
    held = {i for c in clusters for i in c.members}
    free = [i for i in range(len(turns)) if i not in held][-config.topic_max_free:]
    # A topic is a minority of what the user says: a group of more turns than words may be common
    # in is the conversation's talk, chained together by its small words, not one theme.
    most = max(config.topic_min_turns, int(config.topic_max_share * len(turns)))
    rest = []
    for i in free:  # a turn close enough to a kept topic, on average over its turns, joins it
        open_ = [c for c in clusters if len(c.members) < most]
        best = max(open_, key=lambda c: float(alike[i, c.members].mean()), default=None)
        if best is not None and float(alike[i, best.members].mean()) >= config.topic_similarity:
            best.members.append(i)
            best.joined = True
        else:
            rest.append(i)
    clusters += [_Cluster(None, group) for group in _agglomerate(alike, rest, config.topic_similarity, most)]
    for cluster in clusters:
        members = [turns[i] for i in sorted(cluster.members)]
        sessions = {view.memories[t.memory_id].session_id for t in members}
        if cluster.memory_id is None and (len(members) < config.topic_min_turns
                                          or len(sessions) < config.topic_min_sessions):
            continue
        if cluster.memory_id is not None and not cluster.joined:
            continue
        result.decisions.append(_decision(view, cluster.memory_id, members, idf, len(sessions)))
    return result


def _similarity(turns: list[_Turn], config: EditorConfig) -> tuple[dict[str, float], np.ndarray]:
    """The words' idf over the user's turns, and every pair of turns' likeness: the embedding's
    cosine and the tf-idf cosine, weighted by ``topic_words``."""
    words = [features(t.text).content for t in turns]
    df = Counter(w for ws in words for w in ws)
    common = config.topic_max_share * len(turns)  # a word in this many turns is the talk, not a theme
    idf = {w: math.log(len(turns) / n) if n <= common else 0.0 for w, n in df.items()}
    column = {w: j for j, w in enumerate(sorted(df))}
    tfidf = np.zeros((len(turns), len(column)), dtype=np.float32)
    for i, ws in enumerate(words):
        for w in ws:
            tfidf[i, column[w]] = idf[w]
    tfidf /= np.maximum(np.linalg.norm(tfidf, axis=1, keepdims=True), 1e-9)
    vectors = np.stack([t.vector for t in turns])
    alike = (1 - config.topic_words) * (vectors @ vectors.T) + config.topic_words * (tfidf @ tfidf.T)
    return idf, alike


def _agglomerate(alike: np.ndarray, items: list[int], threshold: float, most: int) -> list[list[int]]:
    """Average-linkage agglomerative clustering of ``items``: the two most alike groups merge
    while their mean pairwise likeness is at least ``threshold`` and together they have at most
    ``most`` turns."""
    if not items:
        return []
    sim = alike[np.ix_(items, items)].astype(np.float64)
    np.fill_diagonal(sim, -np.inf)
    groups: list[list[int] | None] = [[i] for i in items]
    sizes = np.ones(len(items))
    while True:
        flat = int(np.argmax(sim))
        a, b = divmod(flat, len(items))
        if sim[a, b] < threshold:
            break
        if sizes[a] + sizes[b] > most:
            sim[a, b] = sim[b, a] = -np.inf
            continue
        merged = (sizes[a] * sim[a] + sizes[b] * sim[b]) / (sizes[a] + sizes[b])
        sim[a], sim[:, a] = merged, merged
        sim[b], sim[:, b] = -np.inf, -np.inf
        sim[a, a] = -np.inf
        group_a, group_b = groups[a], groups[b]
        assert group_a is not None and group_b is not None
        groups[a], groups[b] = group_a + group_b, None
        sizes[a] += sizes[b]
    return [g for g in groups if g is not None and len(g) > 1]


def _existing(view: GraphView, turns: list[_Turn]) -> list[_Cluster]:
    """The topics already kept, each with the turns its sources are."""
    by_episode = {e: i for i, t in enumerate(turns) for e in t.episodes}
    clusters = []
    for memory_id, memory in view.memories.items():
        if memory.kind == TOPIC and memory_id in view.current:
            members = {by_episode[e] for e in _sources(view, memory_id) if e in by_episode}
            clusters.append(_Cluster(memory_id, sorted(members)))
    return [c for c in clusters if c.members]


def _sources(view: GraphView, topic_id: str) -> list[str]:
    return [e.dst_id for e in view.open_edges(EdgeType.FROM) if e.src_id == topic_id]


def _terms(turns: list[_Turn], idf: dict[str, float], n: int) -> list[str]:
    """The cluster's keyphrases: words frequent in it and rare among the user's turns, ordered by
    tf-idf (ties by the word, so reruns read alike); a word in one turn only is no theme."""
    tf = Counter(w for t in turns for w in set(features(t.text).content))
    ranked = sorted((w for w, c in tf.items() if c > 1), key=lambda w: (-tf[w] * idf.get(w, 0.0), w))
    return ranked[:n] or sorted(tf, key=lambda w: (-idf.get(w, 0.0), w))[:n]


def _decision(view: GraphView, topic_id: str | None, turns: list[_Turn], idf: dict[str, float],
              sessions: int) -> Decision:
    first, last = turns[0].said, turns[-1].said
    text = (f"{', '.join(_terms(turns, idf, TITLE_TERMS))}: {len(turns)} mentions in {sessions} sessions,"
            f" first {first:%d %B %Y}, last {last:%d %B %Y}")
    search = " ".join(_terms(turns, idf, SEARCH_TERMS))
    mean = np.stack([t.vector for t in turns]).mean(axis=0)
    vector = (mean / (float(np.linalg.norm(mean)) or 1.0)).astype(np.float32)
    evidence = {"turns": len(turns), "sessions": sessions}
    episodes = sorted({e for t in turns for e in t.episodes})
    user = view.user_id
    if topic_id is None:
        memory = Memory(user_id=user, kind=TOPIC, review_state="reviewed")
        version = MemoryVersion(memory_id=memory.id, user_id=user, text=text, valid_from=first,
                                embedding=vector, search_text=search)
        ops: list[StageOp] = [ch.AddMemory(memory), ch.AddVersion(version)]
        ops += [edge(view, EdgeType.FROM, memory.id, e, rule="topic") for e in episodes]
        return Decision("topic", memory.id, "clustered", None, evidence, ops)
    old = view.current[topic_id]
    held = set(_sources(view, topic_id))
    ops = [Revise(topic_id, old.id, {"text": text, "embedding": vector, "search_text": search})]
    ops += [edge(view, EdgeType.FROM, topic_id, e, rule="topic") for e in episodes if e not in held]
    return Decision("retopic", topic_id, "joined", None, evidence, ops)
