"""Part of stage 2 (supersede): a later message the slot reader reads as telling a single-valued
slot of the speaker ends the user's older fact of that slot, triple or not.

"got the keys to our place in leith!!" becomes no ``lives_in`` triple, so the fact chain never
sees the move and "user lives in Glasgow" stays current. The slot reader (``dualmem_core/slots``)
reads the message as telling ``lives_in`` of the speaker; when it is sure enough
(``EditorConfig.reader_chance``) and the message does not restate the older value, the older
fact is superseded by the message: a ``SUPERSEDES`` edge from the message, which the fact chain
keeps on later runs (``told_ended`` in ``supersede._desired``), undone by rollback like any other.

A partner slot is different: people speak of their partner without naming them ("she's my
girlfriend now officially"), so it ends only when the message is read as ending it (``+ends``,
"we broke up"), or as an ending of no slot that names the partner ("me n dan split up").

Never: multi-valued slots; facts about who the speaker is (``IDENTITY``: a birthday is told
again, not changed); a fact the fact chain ends already; as in ``replaced.py``, a message of more
than ``MAX_WORDS`` words (it tells several things) or telling of earlier years.
Incremental: only messages no run has reviewed are read.
"""

from __future__ import annotations

from collections import defaultdict

from ..slots import Telling, read_message
from ..store import EdgeType
from ..vocab import predicates
from ..vocab.changes import WORD
from .config import EditorConfig
from .decisions import Decision, Revise, StageOp, edge
from .messages import IDENTITY, _messages
from .replaced import MAX_WORDS
from .stints import ended
from .view import SELF, GraphView, object_key

RULE = "slot reader"
# Slots whose ending ("we broke up") ends the partner facts, whatever the message names.
ENDED_WITH = {
    "partner": ("partner",),
    "spouse": ("spouse",),
    "relationship_status": ("partner", "relationship_status"),
}


def told_anew(view: GraphView, config: EditorConfig, decided: set[str],
              fact_successors: dict[str, set[str]]) -> list[Decision]:
    """Decisions ending the user's older single-valued facts by new messages the reader reads
    as telling the slot anew. ``decided``: memories this run already decided about (left alone);
    ``fact_successors``: fact -> the facts superseding it after this run (such a fact is ended)."""
    if not config.reader_supersede:
        return []
    new = set(view.new_memory_ids())
    if not any(view.memories[m].kind == "observation" for m in new):
        return []  # incremental: only a new message can tell a slot anew
    messages = sorted((m.said, m.memory_id) for m in _messages(view).values()
                      if m.memory_id in new and view.current[m.memory_id].status == "active"
                      and m.length <= MAX_WORDS and not m.history)
    facts = _user_slot_facts(view, decided, fact_successors)
    out: list[Decision] = []
    ended_now: set[str] = set()
    for said, message_id in messages:
        text = view.current[message_id].text
        words = {w.casefold() for w in WORD.findall(text)}
        own_sources = set(view.sources.get(message_id, ()))
        for predicate, slot, chance, ending in _told(read_message(text), config.reader_chance):
            for fact in facts.get(predicate, ()):
                version = view.current[fact]
                if fact in ended_now or not version.valid_from <= said < version.valid_to:
                    continue
                if own_sources & set(view.sources.get(fact, ())):
                    continue  # told by this very message
                named = set(object_key(version.object).split()) <= words
                if ending is None and not named:
                    continue  # an ending of no slot read: only of the partner the message names
                if ending is False and named:
                    continue  # the same value told again, not a new one
                ended_now.add(fact)
                out.append(_end(view, fact, message_id, said, slot, chance, bool(ending is not False)))
    return out


def _told(reading: Telling, at: float) -> list[tuple[str, str, float, bool | None]]:
    """(predicate of the facts to end, slot read, its chance, how): ``False`` a single-valued
    slot told anew; ``True`` a partner slot read as ending (the message's likeliest slot, so
    "keto is done, the missus let me off" ends the diet, not the marriage); ``None`` an ending
    read with no slot at all ("me n dan split up"; not "Elena left her job", an ending of
    someone else's slot): only a partner the message names ends."""
    own = {s: p for s, p in reading.chances.items() if p >= at and "@" not in s and "+" not in s}
    ends = reading.chances.get("+ends", 0.0) >= at
    out: list[tuple[str, str, float, bool | None]] = []
    for slot, chance in sorted(own.items()):
        if slot in ENDED_WITH:  # a partner is spoken of without a name ("she's my girlfriend now")
            if ends and chance == max(own.values()):
                out += [(p, slot, chance, True) for p in ENDED_WITH[slot]]
        elif predicates.is_single_valued(slot) and slot not in IDENTITY:
            out.append((slot, slot, chance, False))
    if ends and not any(p >= at for s, p in reading.chances.items() if "+" not in s):
        out += [(p, "partner", reading.chances["+ends"], None) for p in ("partner", "spouse")]
    return out


def _user_slot_facts(view: GraphView, decided: set[str],
                     fact_successors: dict[str, set[str]]) -> dict[str, list[str]]:
    """single-valued slot -> the user's active, positive facts of it that nothing ends yet."""
    out: dict[str, list[str]] = defaultdict(list)
    for memory_id, version in view.current.items():
        if (view.memories[memory_id].kind != "fact" or version.status != "active" or version.negated
                or memory_id in decided or fact_successors.get(memory_id)):
            continue
        slot = predicates.canonical(version.predicate or "")
        if slot in IDENTITY or not predicates.is_single_valued(slot) or view.fact_subject(memory_id) != SELF:
            continue
        out[slot].append(memory_id)
    return {slot: sorted(ids) for slot, ids in out.items()}


def _end(view: GraphView, fact: str, message_id: str, said, slot: str, chance: float,
         ending: bool) -> Decision:
    version = view.current[fact]
    _, valid_to = ended((version.valid_from, version.valid_to), said)
    how = "ended" if ending else "told anew"
    reason = f"{RULE}: {slot} {how} at {chance:.2f}"
    ops: list[StageOp] = [
        Revise(fact, version.id, {"status": "superseded", "valid_to": valid_to}),
        edge(view, EdgeType.SUPERSEDES, message_id, fact, rule=RULE, score=round(chance, 3)),
    ]
    shown = {"predicate": version.predicate, "object": version.object, "slot": slot,
             "chance": round(chance, 3), "valid_to": valid_to.date().isoformat(),
             "by": view.current[message_id].text[:80]}
    return Decision("supersede", fact, reason, message_id, shown, ops)
