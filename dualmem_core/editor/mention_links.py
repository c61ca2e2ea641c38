"""Part of stage 3: raw messages that name a known entity get a ``MENTIONS`` edge to it.

The Writer links an entity only to the memories whose extracted facts name it, so "Marcus
proposed!" links Marcus, but "dinner with Marcus's parents went fine" (no fact extracted)
does not, and neither does a message that named Target a month before the message that made
the Target entity. This step reads each raw message (an ``observation`` memory) for the names
and aliases of the user's entities, exactly as written (case-sensitive, whole words), and links
it to the canonical entity, so recall's graph expansion and the entity view see every message
about a person or place, not only the ones a rule understood.

A name is only linked when it says which entity it means. It is skipped when

* two canonical entities answer to it, or it is the first word of another entity's longer name
  ("Sarah" while "Sarah Kim" exists: which one?);
* it is part of a longer proper name in the message ("Sarah" in "Sarah Jones": maybe another
  Sarah), or used in the other sense of the word (a person's name after "moved to", a place's
  after "met");
* the message calls the person something the entity is known not to be ("my cousin Tom" while
  the Tom we know is the user's brother, "Jean from next door" while Jean is the user's sister);
* a message of the same conversation says there is another person of that name ("another
  Lucas", "the other Lucas"), or also names someone longer who shares it ("Jean next door, Jean
  Duthie I mean"): which one is meant?
* it does not look like a proper name (lower case, one letter, "Will", "May", "Mom");
* it is a bare first name of someone the user never said how they know, and the message is in
  another session than every fact naming them: a "Sam" heard once may be another Sam later.

A wrong link puts one person's message under another; a missed one costs a little recall.

Cost follows what is new: new messages are read for every name; older messages only for the
names of entities created since the run's first new memory.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable

from ..store import EdgeType
from ..vocab.relation_words import NOT_NAMES, RELATIONS, relation_of, relation_pattern
from .decisions import Decision, edge
from .view import SELF, GraphView, object_key

OBSERVATION = "observation"
ASSISTANT = "assistant"
MIN_NAME_LENGTH = 2
_ALSO_WORDS = frozenset("will can mom mum dad mother father grandma grandpa nan baby".split())

_RELATION = relation_pattern()
# "my cousin Tom", "our little brother Tom"; "Tom, my cousin", "Tom (my cousin)". Only with "my" or
# "our": "like father like son, Elena says" gives Elena no relationship.
_BEFORE = re.compile(rf"\b(?:my|our)\s+(?:[a-z]+\s+)?({_RELATION})\s+$", re.IGNORECASE)
_AFTER = re.compile(rf"^\s*(?:,|\()\s*(?:my|our)\s+(?:[a-z]+\s+)?({_RELATION})\b", re.IGNORECASE)
_RELATION_PREDICATES = frozenset(RELATIONS.values())
_SAME = {"partner": "spouse", "spouse": "partner"}  # a boyfriend becomes a husband: one person


# "Jean next door", "Jean from next door", "Dave from work": where the person is, a relationship.
_WHERE_RELATION = {
    "next door": "knows", "down the road": "knows", "across the road": "knows", "upstairs": "knows",
    "downstairs": "knows", "from work": "colleague", "at work": "colleague", "from the office": "colleague",
}
_WHERE_FROM = re.compile(rf"^\s*(?:,\s*)?(?:from\s+)?({'|'.join(_WHERE_RELATION)})\b", re.IGNORECASE)
_ANOTHER = re.compile(r"\b(?:another|a different|the other|other|a second)\s+$", re.IGNORECASE)
_NEXT_WORD = re.compile(r"^\s+([A-Z][\w'-]*[a-z][\w'-]*)")
_PREVIOUS_WORD = re.compile(r"([A-Z][\w'-]*[a-z][\w'-]*)\s+$")


def link_mentions(view: GraphView, live: dict, canonical: Callable[[str], str]) -> list[Decision]:
    """``MENTIONS`` decisions for raw messages naming an entity they do not yet mention."""
    targets = _unambiguous_names(live, canonical)
    if not targets:
        return []
    arrived = view.new_memory_ids()
    if not arrived:
        return []  # a rerun with nothing new: nothing new to read, no new names
    new = [m for m in arrived if _said_by_someone(view, m)]
    started = min(view.first_seen(m)[0] for m in arrived)
    fresh = {
        name for name, (_, entity_id) in targets.items() if (live[entity_id].created_at or started) >= started
    }
    known_as = _relations(view, live, canonical)
    told_in = _sessions_of_facts(view, live, canonical)
    new_set = set(new)
    older = [
        m
        for m, v in view.current.items()
        if fresh and m not in new_set and v.status != "duplicate" and _said_by_someone(view, m)
    ]
    sessions = {s for m in (*new, *older) for s in view.sessions_of(m)}
    contested = _contested(view, set(targets), sessions)
    out = []
    for memory_ids, names in ((new, set(targets)), (sorted(older), fresh)):
        index = _by_first_word(names)
        if not index:
            continue
        for memory_id in memory_ids:
            text = view.current[memory_id].text
            here = view.sessions_of(memory_id)
            doubted = set().union(*(contested.get(s, set()) for s in here))
            named = set()
            for name, start, end in _occurrences(text, index):
                bearer, entity_id = targets[name]
                entity, relations = live[entity_id], known_as.get(entity_id)
                if (
                    _whole_name(text, start, end)
                    and name not in doubted
                    and _used_as(text, start, entity.type)
                    and _fits(_called(text, start, end), relations)
                    and (told_in.get(entity_id, set()) & here or _well_known(entity, relations))
                ):
                    named |= {bearer, entity_id}  # "Bob", merged into Robert: both, as a merge links
            have = set(view.mentions.get(memory_id, ()))
            for entity_id in sorted(named - have):
                out.append(
                    Decision(
                        "named",
                        memory_id,
                        "named in the message",
                        entity_id,
                        {"name": live[entity_id].name},
                        [edge(view, EdgeType.MENTIONS, memory_id, entity_id)],
                    )
                )
    return out


def _whole_name(text: str, start: int, end: int) -> bool:
    """The match is a whole proper name, not part of a longer one: "Sarah" in "Sarah Jones" may be
    another Sarah, so only the full name counts. A capitalised word that starts a sentence before
    the name ("Yesterday Marcus") does not make it longer."""
    if _NEXT_WORD.match(text[end : end + 40]):
        return False
    before = _PREVIOUS_WORD.search(text[max(0, start - 40) : start])
    if before is None:
        return True
    head = text[: start - len(before.group(0))].rstrip()
    return head == "" or head[-1] in ".!?:;\"'(\n"


_PLACE_WORDS = re.compile(
    r"\b(?:in|to|from|near|into|around|outside|visit|visited|visiting|moved|moving|flew|fly|drove|trip)\s+$",
    re.IGNORECASE,
)
_PERSON_WORDS = re.compile(
    r"\b(?:with|told|tell|asked|ask|met|meet|call|called|texted|thanks|thank)\s+$", re.IGNORECASE
)


def _contested(view: GraphView, names: set[str], sessions: set[str]) -> dict[str, set[str]]:
    """Session -> names a message of it gives a second bearer ("another Lucas", "Jean next door,
    Jean Duthie I mean"): in that conversation the bare name may be either. Only ``sessions``
    (those of the messages this run links) are read."""
    index = _by_first_word(names)
    out: dict[str, set[str]] = defaultdict(set)
    if not index or not sessions:
        return out
    for memory_id, version in view.current.items():
        here = view.sessions_of(memory_id) & sessions
        if not here or not _said_by_someone(view, memory_id):
            continue
        for name, start, end in _occurrences(version.text, index):
            if _another(version.text, start, end):
                for session in here:
                    out[session].add(name)
    return out


def _another(text: str, start: int, end: int) -> bool:
    """The message sets this bearer of the name apart from one we know ("another Lucas"), or
    names someone longer who shares it elsewhere ("Jean next door, Jean Duthie I mean")."""
    if _ANOTHER.search(text[max(0, start - 15) : start]):
        return True
    name = re.escape(text[start:end])
    return any(not _whole_name(text, m.start(), m.end())
               for m in re.finditer(rf"(?<![\w'-]){name}(?![\w'-])", text) if m.start() != start)


def _used_as(text: str, start: int, entity_type: str) -> bool:
    """A person's name where a place goes ("we went to Florence" while Florence is an aunt), or a
    place's where a person goes ("I met Chelsea"), is the other sense of the word: not linked."""
    before = text[max(0, start - 20) : start]
    if entity_type == "person":
        return not _PLACE_WORDS.search(before)
    if entity_type == "place":
        return not _PERSON_WORDS.search(before)
    return True


def _well_known(entity, relations: set[str] | None) -> bool:
    """Named well enough to be recognised in another conversation: a full name, a place or an
    organisation, or a person the user has said how they know ("my sister Ana"). A bare first
    name heard once is only linked within its own session: another session's "Sam" may be
    someone else."""
    return entity.type not in ("person", "thing") or len(entity.name.split()) > 1 or bool(relations)


def _called(text: str, start: int, end: int) -> str | None:
    """The relationship the message gives the name right there, if it gives one."""
    found = _BEFORE.search(text[max(0, start - 40) : start]) or _AFTER.match(text[end : end + 40])
    if found:
        return relation_of(found.group(1))
    where = _WHERE_FROM.match(text[end : end + 30])
    return _WHERE_RELATION[where.group(1).lower()] if where else None


def _fits(called: str | None, known: set[str] | None) -> bool:
    return called is None or not known or bool({called, _SAME.get(called)} & known)


def _said_by_someone(view: GraphView, memory_id: str) -> bool:
    """A raw message of the user or another person; an assistant's reply only echoes the names
    it was told ("How are Elena and the baby?") and would tie its own words to them."""
    if view.memories[memory_id].kind != OBSERVATION:
        return False
    episodes = [view.episodes.get(e) for e in view.sources.get(memory_id, ())]
    return any(e is not None and e.role != ASSISTANT for e in episodes)


def _sessions_of_facts(view: GraphView, live: dict, canonical: Callable[[str], str]) -> dict[str, set[str]]:
    """Canonical entity -> the sessions of the facts that name it."""
    out: dict[str, set[str]] = defaultdict(set)
    for memory_id, entity_ids in view.mentions.items():
        memory = view.memories.get(memory_id)
        if memory is not None and memory.kind != OBSERVATION:
            for e in entity_ids:
                if e in live:
                    out[canonical(e)] |= view.sessions_of(memory_id)
    return out


def _relations(view: GraphView, live: dict, canonical: Callable[[str], str]) -> dict[str, set[str]]:
    """Canonical entity -> the relationships to the user that facts give it (brother, colleague)."""
    by_name: dict[str, set[str]] = defaultdict(set)
    for entity_id, entity in live.items():
        for name in (entity.name, *entity.aliases):
            by_name[object_key(name)].add(canonical(entity_id))
    out: dict[str, set[str]] = defaultdict(set)
    for v in view.current.values():
        if v.predicate in _RELATION_PREDICATES and v.subject == SELF and not v.negated and v.object:
            for root in by_name.get(object_key(v.object), ()):
                out[root].add(v.predicate)
    return out


def _unambiguous_names(live: dict, canonical: Callable[[str], str]) -> dict[str, tuple[str, str]]:
    """Proper-name spelling -> (the entity bearing it, the one canonical entity it can mean).

    The bearer is kept apart from the canonical one because a merge keeps each entity's own
    names: "Bob" merged into "Robert" is still the entity named Bob."""
    meaning: dict[str, set[str]] = defaultdict(set)
    bearers: dict[str, set[str]] = defaultdict(set)
    first_words: dict[str, set[str]] = defaultdict(set)  # first word of a longer name -> entities
    for entity_id, entity in live.items():
        root = canonical(entity_id)
        for name in {entity.name, *entity.aliases}:
            name = " ".join(name.split())
            if not _looks_like_a_name(name):
                continue
            meaning[name].add(root)
            bearers[name].add(entity_id)
            words = name.split()
            if len(words) > 1:
                first_words[words[0]].add(root)
    return {
        name: (min(bearers[name], key=lambda i: (live[i].created_at, i)), next(iter(roots)))
        for name, roots in meaning.items()
        if len(roots) == 1 and not (first_words.get(name, set()) - roots)
    }


def _looks_like_a_name(name: str) -> bool:
    if len(name) < MIN_NAME_LENGTH or not name[0].isupper() or not any(c.isalpha() for c in name):
        return False
    word = name.casefold()
    return " " in word or (word not in NOT_NAMES and word not in _ALSO_WORDS and relation_of(word) is None)


_WORD = re.compile(r"\w+")


def _by_first_word(names: set[str]) -> dict[str, list[str]]:
    """First word -> the names starting with it, longest first ("Sarah Kim" before "Sarah")."""
    index: dict[str, list[str]] = defaultdict(list)
    for name in sorted(names, key=lambda n: (-len(n), n)):
        first = _WORD.match(name)
        if first:
            index[first.group(0)].append(name)
    return index


def _occurrences(text: str, index: dict[str, list[str]]):
    """(name, start, end) of each whole-word occurrence, by a word scan: the cost follows the
    text's length, not the number of names (a regex alternation of thousands of names would
    try each at every position)."""
    for word in _WORD.finditer(text):
        start = word.start()
        if start and (text[start - 1].isalnum() or text[start - 1] in "_'-"):
            continue
        for name in index.get(word.group(0), ()):
            end = start + len(name)
            if text.startswith(name, start) and (
                end == len(text) or not (text[end].isalnum() or text[end] in "_-")
            ):
                yield name, start, end
                break
