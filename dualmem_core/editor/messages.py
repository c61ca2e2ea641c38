"""The user's messages as the own-words update stage (``replaced.py``) reads them: when each was
said, its words and clauses (stemmed lightly), its length, whether it tells of earlier years,
the facts the Writer read from it and the single-valued slots they tell, and the words that are
distinctive for this user.

Separate from ``replaced.py`` so that what a message is to the stage can be read apart from how
two messages are compared; ``ended_facts.py`` reads the same messages.
"""

from __future__ import annotations

import functools
import re
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime

from ..store import EdgeType
from ..store.models import WRITER
from ..timeutil import FAR_FUTURE
from ..vocab import predicates
from ..vocab.changes import ADDITION, CHANGE, NOT_TOPIC, clauses_of, stem
from .text_features import features
from .view import GraphView, object_key

USER_ROLES = (None, "user")
# Facts about who the speaker is, not about a slot a later message could change.
IDENTITY = frozenset({"name", "nickname", "age", "birthday", "birth_year", "from", "speaks"})
# A word in more than this share of the user's messages (and more than MIN_COMMON of them) is
# not distinctive: "lol", "today", "work" say little about which thing two messages are about.
DISTINCTIVE = 0.05
MIN_COMMON = 3


@dataclass
class _Message:
    """Every message of the user is read for its content words (which words are distinctive
    is counted over all of them) and its facts; its clauses, every word and whether it tells of
    earlier years are read when first asked for: only the new messages and their candidates are
    compared, so an incremental run parses what is new and what it could change."""

    memory_id: str
    said: datetime
    text: str
    length: int  # words
    content: frozenset[str]  # content words, stemmed lightly
    negated: bool
    facts: list[str] = field(default_factory=list)  # facts the Writer extracted from it
    slots: dict[tuple[str, str], set[str]] | None = field(default=None, repr=False)  # ``_slots``, once

    @functools.cached_property
    def clauses(self) -> list[tuple[str, ...]]:
        """The words of each clause (split at punctuation), in order."""
        return [c for c in clauses_of(self.text) if c]

    @functools.cached_property
    def words(self) -> frozenset[str]:
        """Every word, stemmed lightly."""
        return frozenset(w for c in self.clauses for w in c)

    @functools.cached_property
    def history(self) -> bool:
        """Tells of an earlier year ("we lived in Reno from 2015 until 2021")."""
        years = [int(y) for y in _YEAR.findall(self.text)]
        return any(y < self.said.year for y in years) or "used to" in self.text.casefold()


_YEAR = re.compile(r"\b(?:19|20)\d\d\b")


def _messages(view: GraphView) -> dict[str, _Message]:
    """The user's own messages believed now or superseded, with the facts read from each.

    Read once per view: the supersede stage asks twice (``replaced.py``, ``told_anew.py``), and
    reading every message's words is most of that stage's cost on a big store. Callers share
    the answer and only read it."""
    return view.memo("messages", lambda: _read_messages(view))


def _read_messages(view: GraphView) -> dict[str, _Message]:
    facts_of_episode: dict[str, list[str]] = defaultdict(list)
    for e in view.open_edges(EdgeType.FROM):
        if e.created_by == WRITER and view.memories.get(e.src_id) and view.memories[e.src_id].kind == "fact":
            facts_of_episode[e.dst_id].append(e.src_id)
    out = {}
    for memory_id, version in view.current.items():
        memory = view.memories.get(memory_id)
        if memory is None or memory.kind != "observation" or version.status not in ("active", "superseded"):
            continue
        episodes = [view.episodes[ep] for ep in view.sources.get(memory_id, ()) if ep in view.episodes]
        if not episodes or any(ep.role not in USER_ROLES for ep in episodes):
            continue
        f = features(version.text)
        facts = sorted({
            fact for ep in episodes for fact in facts_of_episode.get(ep.id, ())
            if fact in view.current and view.current[fact].status in ("active", "superseded", "duplicate")
        })
        out[memory_id] = _Message(
            memory_id,
            min(ep.observed_at for ep in episodes),
            version.text,
            len(f.words),
            frozenset(stem(w) for w in f.content),
            f.negated,
            facts,
        )
    return out


def _slots(view: GraphView, message: _Message) -> dict[tuple[str, str], set[str]]:
    """(subject, single-valued predicate) -> values the message's positive facts told."""
    if message.slots is not None:
        return message.slots
    out: dict[tuple[str, str], set[str]] = defaultdict(set)
    for fact in message.facts:
        v = view.current[fact]
        if v.predicate and not v.negated and predicates.is_single_valued(v.predicate) \
                and v.predicate not in IDENTITY:
            out[(view.fact_subject(fact), predicates.canonical(v.predicate))].add(object_key(v.object))
    message.slots = dict(out)
    return message.slots


def _topic_words(words: frozenset[str], common: set[str]) -> set[str]:
    return {w for w in words - common - CHANGE - ADDITION - NOT_TOPIC if len(w) > 2 and not w.isdigit()}


def _ended_values(view: GraphView, message: _Message) -> set[str]:
    """Values the message's facts say ended or are no longer so ("was in a relationship with
    Dan", "doesn't eat meat anymore"), as words."""
    out: set[str] = set()
    said = message.said
    for fact in message.facts:
        v = view.current[fact]
        first = view.versions_of[fact][0]
        if v.negated or (first.valid_to < FAR_FUTURE and first.valid_to <= said):
            out.update(stem(w) for w in object_key(v.object).split() if len(w) > 2)
    return out
