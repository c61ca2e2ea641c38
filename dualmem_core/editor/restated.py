"""Part of stage 5 (confidence): a later message that names the user's pet, or calls one of
their people by the relation ("the missus Tasha"), tells that relation again, so the message
becomes one more source of the fact.

"My dog Ruby" is extracted once; "Ruby dug up the roses again" a month later is a second telling
of the same fact (the user still has a dog called Ruby) that no extractor turns into a triple.
The Writer links every message to the entities it names (``MENTIONS``), so the Editor can see
it: a user's message that mentions the entity a live relation fact names, said while that fact
held, adds a ``FROM`` edge from the fact to that message's episode. The fact's sources then
list every message that told it (recall shows them, ``forget`` of the first telling leaves the
fact standing on the others) and its confidence counts them. It runs last because the entity
stage links messages to the names they use.

A pet's name is enough; a person's is not. "Marcus wants Japan" does not say Marcus is the
user's boyfriend (by then he may be her fiancé, or her husband: "married Tasha last saturday"
retold "Tasha is my fiancée" when a name was enough), and "Lucia picked the name" does not say
Lucia is the user's daughter. On the evaluation's tune part, each link checked against the gold
sources (a one-off count; ``provenance_precision`` is the metric it led to), 6 of 55 links made
by a person's name alone went to messages that state the relation, against 3 of 3 for pets.
So a message retells a relation to a person only when it also calls them by a word for that
relation, a few words from their name ("the missus Tasha", "my best friend arrives ... Nanda",
"a good pal Eck"): then it says the relation, in words the extractor's sentence rules did not
read. Never a message that says the relation ended ("Ruby died", "my ex
Phil"): that message is news, not a repeat.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from ..store import EdgeType
from ..store import changes as ch
from ..vocab.relation_words import relation_of
from .decisions import Decision, Revise, StageResult, edge
from .view import SELF, GraphView, follow, object_key, subject_key

RETOLD_BY_NAME = frozenset(
    {"pet", "partner", "spouse", "child", "sibling", "parent", "friend", "colleague", "relative", "knows"}
)
NAME_IS_ENOUGH = frozenset({"pet"})
NEAR = 4  # words between a person's name and the relation word that calls them so
USER_ROLES = (None, "user")
# A message saying the relation ended, or is past, does not retell it.
_ENDED = re.compile(
    r"\b(?:died|dies|passed(?: away| on)?|put (?:down|to sleep)|rehom\w*|gave (?:him|her|them|it) away"
    r"|lost (?:him|her|them)|funeral|broke up|break up|breaking up|split(?: up)?|divorc\w*|separat\w*"
    r"|ex|ex-\w+|dumped|left me|moved out|no longer|any ?more|used to|late|former(?:ly)?|miss (?:him|her))\b",
    re.IGNORECASE,
)


@dataclass
class Restatements:
    decisions: list[Decision]  # one per (fact, message) pair that retells the fact: a FROM edge
    # fact -> episodes of messages that name its person while it held, retelling or not: not
    # provenance, but corroboration the confidence stage counts (the person is still around)
    named: dict[str, set[str]]


def restatements(view: GraphView, prior: Sequence[StageResult] = ()) -> Restatements:
    """One decision per (fact, message) pair where the message names the fact's pet, or its
    person together with a word for the relation; and every message naming them at all.

    ``prior``: this run's earlier stages, whose mention links, entity merges and status changes
    count as if published (the entity stage links a message to the names it uses)."""
    mentions = {m: set(es) for m, es in view.mentions.items()}
    merged = {e.src_id: e.dst_id for e in view.open_edges(EdgeType.MERGED_INTO)}
    status = {m: v.status for m, v in view.current.items()}
    linked_now: set[tuple[str, str]] = set()  # (memory, entity) mentions this run adds
    for stage in prior:
        for d in stage.changing():
            for op in d.ops:
                if isinstance(op, ch.AddEdge) and op.edge.type == EdgeType.MENTIONS:
                    mentions.setdefault(op.edge.src_id, set()).add(op.edge.dst_id)
                    linked_now.add((op.edge.src_id, op.edge.dst_id))
                elif isinstance(op, ch.AddEdge) and op.edge.type == EdgeType.MERGED_INTO:
                    merged[op.edge.src_id] = op.edge.dst_id
                elif isinstance(op, Revise) and "status" in op.fields:
                    status[op.memory_id] = op.fields["status"]
    keys_of: dict[str, set[str]] = {}  # canonical entity -> its names and aliases, as keys
    for ent in view.entities.values():
        keys_of.setdefault(follow(merged, ent.id), set()).update(
            object_key(n) for n in (ent.name, *ent.aliases)
        )
    naming: dict[str, dict[str, bool]] = {}  # canonical entity -> observation -> linked this run
    for memory_id, entities in mentions.items():
        if memory_id not in view.memories or view.memories[memory_id].kind != "observation":
            continue
        for entity_id in entities:
            seen = naming.setdefault(follow(merged, entity_id), {})
            seen[memory_id] = seen.get(memory_id, False) or (memory_id, entity_id) in linked_now
    new = set(view.new_memory_ids())
    found = Restatements([], {})
    for fact_id, version in sorted(view.current.items()):
        if (
            version.predicate not in RETOLD_BY_NAME
            or version.negated
            or status.get(fact_id) != "active"
            or subject_key(version.subject) != SELF
            or view.memories[fact_id].kind != "fact"
        ):
            continue
        named = object_key(version.object)
        entities = {follow(merged, e) for e in mentions.get(fact_id, ())}
        told = set(view.sources.get(fact_id, ()))
        for entity in sorted(e for e in entities if named in keys_of.get(e, ())):
            names = keys_of.get(entity, set())
            for message_id, linked in sorted(naming.get(entity, {}).items()):
                for episode_id in view.sources.get(message_id, ()):
                    if episode_id in told or not _while_held(view, episode_id, version):
                        continue
                    found.named.setdefault(fact_id, set()).add(episode_id)
                    if not (linked or fact_id in new or message_id in new):
                        continue  # incremental: an earlier run already looked at this pair
                    if not _says_relation(view.episodes[episode_id].text, names, version.predicate):
                        continue
                    told.add(episode_id)
                    found.decisions.append(
                        Decision(
                            "restated",
                            fact_id,
                            "names its person or pet",
                            message_id,
                            {"entity": view.entities[entity].name},
                            [edge(view, EdgeType.FROM, fact_id, episode_id, rule="restated by name")],
                        )
                    )
    return found


def _while_held(view: GraphView, episode_id: str, fact) -> bool:
    """A user's message, said while the fact held, that does not say the relation ended."""
    episode = view.episodes.get(episode_id)
    return (
        episode is not None
        and episode.role in USER_ROLES
        and fact.valid_from <= episode.observed_at < fact.valid_to
        and not _ENDED.search(episode.text)
    )


def _says_relation(text: str, names: set[str], predicate: str) -> bool:
    return predicate in NAME_IS_ENOUGH or _called_by_relation(text, names, predicate)


_WORD = re.compile(r"[\w'-]+")


def _called_by_relation(text: str, names: set[str], predicate: str) -> bool:
    """Whether a word (or two) for ``predicate`` stands within ``NEAR`` words of one of ``names``."""
    words = [w.lower().removesuffix("'s") for w in _WORD.findall(text)]
    at_name = [
        i
        for name in names
        if (parts := name.split())
        for i in range(len(words) - len(parts) + 1)
        if words[i : i + len(parts)] == parts
    ]
    if not at_name:
        return False
    at_relation = [
        i
        for i in range(len(words))
        if relation_of(words[i]) == predicate
        or (i + 1 < len(words) and relation_of(f"{words[i]} {words[i + 1]}") == predicate)
    ]
    return any(abs(i - j) <= NEAR for i in at_name for j in at_relation)
