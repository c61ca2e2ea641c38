"""Part of stage 2 (supersede): a later message that changes what an earlier one said, told in
the user's own words, with or without a triple.

The chain of ``supersede.py`` needs the extractor to have read both values. People text their
lives: "living in bristol atm w my sister", later "moved to cardiff, new flat has a garden";
"work at a bakery", later "left the bakery!! new job at a design studio"; "me n dan r 2 yrs
strong", later "dan and me split up". Often neither message became a triple. So the Editor
also compares the user's messages (observation memories) with each other: when a later
message speaks about the same thing as an earlier one and marks a change, the later one is the
current state and the earlier one is past (status ``superseded``, ended when the later was
said, a ``SUPERSEDES`` edge with the evidence): recall ranks it below its successor, and
``as_of`` a time before the change still finds it.

*The same thing* is found by general means, never by a pattern per way of saying it:

* the facts the extractor did make: a single-valued slot both messages told ("lives in
  Bristol", then "lives in Cardiff") whose chain the fact stage ended: the fact chain carries
  that change, and with ``EditorConfig.messages_follow_facts`` the messages follow the facts,
  inside the fact's own decision (``supersede._fold``); a fact the later message ends
  or negates ("was in a relationship with Dan", "is single") whose value the earlier message
  names; a single-valued fact of the later message whose value stands next to its change word
  ("new flat in manchester", read as "lives in Manchester");
* otherwise a word both messages use, distinctive for this user (one in more than
  ``DISTINCTIVE`` of their messages tells nothing), that a change word of the later message is
  said of: within ``WINDOW`` words after it in one clause ("left the bakery", "leaving
  cardiff"), or before it for the few said after their thing ("not veggie anymore", "dan and me
  split up"). Candidates are the later message's nearest messages (embeddings), those naming
  such words, and those telling the same slot: never all pairs.

*A change* is a small, general list of words marking a change or an end (``STRONG``, in
``vocab/changes.py``, which recall reads too); "new", "now" and "since" are ``WEAK`` (as often
no change at all) and prove a change only with a single-valued fact beside them, else the pair
is unproven. A word of addition ("a second cat", "pottery too", "another") marks a multi-valued
thing growing: it never supersedes.

Conservative on purpose (a current message wrongly made past is worse than a missed update):
only an earlier message of at most ``MAX_WORDS`` words (about one thing) is made past, never by
a message telling of earlier years ("we lived in Reno from 2015 until 2021") or "used to"; an
earlier message with facts the later one leaves alone ("got a cat called biscuit" against "new
flat") stays; a change said of someone else the extractor read a fact about ("Sarah and her
family left Chicago") does not end all the earlier message said of them; of several earlier
messages only the closest is ended. Unproven pairs (a weak change word said of a shared word,
or embeddings at ``update_grey_cosine``) go to the LLM judge when one is configured
(``prompts/editor_update.py``), and otherwise stay current (``kept_current``).

The earlier message's own single-valued facts whose value the change is said of ("leaving
cardiff" ends "user lives in Cardiff") are superseded with it; the fact stage keeps them so
(``told_ended`` in ``supersede._desired``). Such a fact also ends alone when its message stays
current (it tells other things too), if a strong change word is said of its whole value and a
fact read from the later message, about the same subject, names that value: "Rob is leaving
Halvorsen Marine!" ends "Roberto works at Halvorsen Marine" (a short form of the name counts
when the fact's own message wrote both, "my husband Roberto (Rob) ..."; ``ended_facts.py``).
A message whose successor was forgotten is restored, as the fact chain heals. Incremental: only
a new message is compared with those before it.

How a message is read (words, clauses, facts, slots) is in ``messages.py``.
"""

from __future__ import annotations

import functools
from collections import Counter, defaultdict

from ..store import EdgeType
from ..vocab import predicates
from ..vocab.changes import ADDITION, CHANGE, STRONG, stem, windows
from .config import EditorConfig
from .decisions import Decision, Revise, StageOp, edge
from .ended_facts import _end_fact, _endable, _facts_it_ends
from .judge import Judge
from .messages import (
    DISTINCTIVE,
    IDENTITY,
    MIN_COMMON,
    _ended_values,
    _Message,
    _messages,
    _slots,
    _topic_words,
)
from .stints import ended
from .view import SELF, GraphView, object_key

STAGE = "supersede"
# Only a message about one thing is made past as a whole: a longer one tells several, and
# superseding it would hide the others (its facts stay, but recall shows the message).
MAX_WORDS = 30


def replaced(
    view: GraphView,
    config: EditorConfig,
    judge: Judge | None,
    fact_successors: dict[str, set[str]],
) -> list[Decision]:
    """Decisions superseding earlier messages by later ones (and restoring orphans).

    ``fact_successors``: fact -> the facts that supersede it, as the fact chain has it after
    this run (published edges and this run's decisions)."""
    decisions = _heal(view)
    new = set(view.new_memory_ids())
    if not any(view.memories[m].kind == "observation" for m in new):
        return decisions  # incremental: only a new message can tell of a change
    messages = _messages(view)
    successor_of: dict[str, str] = {}  # observation -> the observation that supersedes it now
    for e in view.open_edges(EdgeType.SUPERSEDES):
        if e.dst_id in messages and e.src_id in view.current:
            successor_of[e.dst_id] = e.src_id
    df = Counter(w for m in messages.values() for w in m.content)
    common = {w for w, n in df.items() if n > max(MIN_COMMON, DISTINCTIVE * len(messages))}
    by_word: dict[str, list[str]] = defaultdict(list)
    by_slot: dict[tuple[str, str], list[str]] = defaultdict(list)
    for m in messages.values():
        for w in _topic_words(m.content, common):
            by_word[w].append(m.memory_id)
        for slot in _slots(view, m):
            by_slot[slot].append(m.memory_id)
    ordered = sorted(messages.values(), key=lambda m: (m.said, m.memory_id))
    asked = [m.memory_id for m in ordered if m.memory_id in new and (m.words & CHANGE or m.facts)]
    near = view.near(asked, 2 * config.neighbours, config.update_grey_cosine)
    grey: list[tuple[_Message, _Message, dict]] = []
    ended_now: set[str] = set()
    facts_ended: set[str] = set()  # facts this run ends by a message
    endable = functools.cache(lambda: _endable(view, messages, fact_successors))
    for later in ordered:
        if later.memory_id not in new:
            continue  # incremental: an earlier run compared it with the messages before it
        changes = later.words & CHANGE
        slots = _slots(view, later)
        for fact, ends in _facts_it_ends(view, later, endable).items():
            if fact not in facts_ended:
                facts_ended.add(fact)
                decisions.append(_end_fact(view, fact, later, ends))
        if later.words & ADDITION or not (changes or slots):
            continue  # "a second cat", "pottery too": more of a multi-valued thing; or no news
        ended_values = _ended_values(view, later)
        # Candidates: its nearest messages, those naming what a change word is said of or what
        # its facts ended, and those that told the same slot. Never all earlier messages.
        candidates: set[str] = {m for m, _ in near.get(later.memory_id, ())}
        named = set().union(*windows(later.clauses)) | ended_values
        for w in _topic_words(frozenset(named), common):
            candidates.update(by_word.get(w, ()))
        for slot in slots:
            candidates.update(by_slot.get(slot, ()))
        scored = []
        for memory_id in candidates:
            earlier = messages.get(memory_id)
            if earlier is None or earlier is later or not earlier.said < later.said:
                continue
            if memory_id in successor_of or memory_id in ended_now:
                continue  # already past
            if view.current[memory_id].status != "active":
                continue
            verdict, evidence = _compare(view, earlier, later, changes, common, ended_values, slots,
                                         fact_successors, config)
            if verdict is True:
                scored.append((evidence["score"], memory_id, evidence))
            elif verdict is None:
                grey.append((earlier, later, evidence))
        scored.sort(reverse=True)
        for rank, (_, memory_id, evidence) in enumerate(scored):
            if rank > 0 and not (evidence.get("slot") or evidence.get("ended")):
                continue  # only the closest message, unless the facts name the slot too
            ended_now.add(memory_id)
            evidence["facts"] = [f for f in evidence.get("facts", ()) if f not in facts_ended]
            decisions.append(_supersede(view, messages[memory_id], later, evidence, evidence["rule"]))
    if grey:
        grey = [(a, b, ev) for a, b, ev in grey if a.memory_id not in ended_now]
        pairs = [(view.current[a.memory_id].text, view.current[b.memory_id].text) for a, b, _ in grey]
        verdicts = (judge or Judge(None)).replaces(STAGE, pairs)
        for (earlier, later, evidence), verdict in zip(grey, verdicts, strict=True):
            if verdict and earlier.memory_id not in ended_now:
                ended_now.add(earlier.memory_id)
                decisions.append(_supersede(view, earlier, later, evidence, "llm: replaced"))
            else:
                why = "grey band, no model" if verdict is None else "llm: not replaced"
                decisions.append(Decision("kept_current", earlier.memory_id, why, later.memory_id,
                                          _shown(evidence)))
    return decisions


def _compare(
    view: GraphView,
    earlier: _Message,
    later: _Message,
    changes: frozenset[str],
    common: set[str],
    ended_values: set[str],
    later_slots: dict[tuple[str, str], set[str]],
    fact_successors: dict[str, set[str]],
    config: EditorConfig,
) -> tuple[bool | None, dict]:
    """(True, evidence) the later replaces the earlier; (None, ...) unproven; (False, ...) not."""
    if earlier.length > MAX_WORDS or later.history:
        return False, {}  # several things at once, or a story of earlier years: not an update
    cosine = view.cosine(earlier.memory_id, later.memory_id)
    shared = sorted(_topic_words(earlier.content, common) & _topic_words(later.content, common))
    evidence: dict = {"cosine": round(cosine, 3)}
    if changes:
        evidence["change"] = ", ".join(sorted(changes))
    if shared:
        evidence["shared"] = ", ".join(shared)
    # The facts the extractor made: the slot both told, chained by the fact stage.
    earlier_slots = _slots(view, earlier)
    later_facts = set(later.facts)
    slot = [
        s for s, values in earlier_slots.items()
        if s in later_slots and values != later_slots[s]
        and any(fact_successors.get(f, set()) & later_facts for f in earlier.facts)
    ]
    named_end = sorted(ended_values & earlier.words)
    if slot:
        evidence["slot"] = slot[0][1]
    if named_end:
        evidence["ended"] = ", ".join(named_end)
    # An earlier message with facts of its own, none of which the later one touches, is about them.
    topical = [f for f in earlier.facts if (view.current[f].predicate or "") not in IDENTITY]
    slot_names = {s[1] for s in slot}
    untouched = [
        f for f in topical
        if predicates.canonical(view.current[f].predicate or "") not in slot_names
        and not {stem(w) for w in object_key(view.current[f].object).split()} & later.words
    ]
    said_of = [w for w in windows(later.clauses) if w & CHANGE and w & set(shared)]
    if untouched:  # it also tells something the later message leaves alone: unless a model says
        return (None if said_of and changes else False), evidence
    if slot:  # read as facts on both sides: the fact chain carries the change
        if not config.messages_follow_facts:
            return False, evidence
        evidence.update(score=3 + cosine, rule="same slot, newer value")
        return True, evidence
    if not changes:
        return False, evidence
    # A change said of someone else the extractor read a fact about ("Sarah and her family left
    # Chicago"): what it changes is that fact's slot, not all the earlier message said of them.
    others = {stem(w) for f in later.facts if view.fact_subject(f) != SELF
              for w in object_key(view.current[f].subject).split()}
    if others & earlier.words and not named_end:
        return None, evidence
    # A change word said of what both name: in one clause of the later message ("left the
    # bakery", "not veggie anymore"), not elsewhere ("from the studio, 2 months now").
    strong = any(w & STRONG for w in said_of)
    said = frozenset().union(*said_of)
    # The earlier message's own single-valued facts whose value the change is said of ("leaving
    # cardiff" ends "user lives in Cardiff"): they end with it.
    evidence["facts"] = [
        f for f in topical
        if view.current[f].status == "active" and not view.current[f].negated
        and predicates.is_single_valued(view.current[f].predicate or "")
        and {stem(w) for w in object_key(view.current[f].object).split()} & said
    ]
    if named_end and (strong or said_of):
        evidence.update(score=2 + cosine, rule="ends what it named")
        return True, evidence
    if strong:
        evidence.update(score=1 + cosine + 0.1 * len(shared), rule="changes what it named")
        return True, evidence
    if any(stem(v) in said for values in later_slots.values() for value in values for v in value.split()):
        # "new flat in manchester", and the extractor read "lives in Manchester": a new value
        evidence.update(score=1 + cosine + 0.1 * len(shared), rule="a new value of what it named")
        return True, evidence
    evidence.pop("facts")
    if shared or cosine >= config.update_grey_cosine:
        return None, evidence
    return False, evidence


def _shown(evidence: dict) -> dict:
    return {k: v for k, v in evidence.items() if k not in ("score", "rule", "facts")}


def _supersede(view: GraphView, earlier: _Message, later: _Message, evidence: dict, reason: str) -> Decision:
    current = view.current[earlier.memory_id]
    valid = ended((current.valid_from, current.valid_to), later.said)
    ops: list[StageOp] = [
        Revise(earlier.memory_id, current.id, {"status": "superseded", "valid_from": valid[0],
                                                "valid_to": valid[1]}),
        edge(view, EdgeType.SUPERSEDES, later.memory_id, earlier.memory_id, rule=reason,
             score=evidence.get("cosine", 0.0)),
    ]
    for fact in evidence.get("facts", ()):
        version = view.current[fact]
        _, valid_to = ended((version.valid_from, version.valid_to), later.said)
        ops += [
            Revise(fact, version.id, {"status": "superseded", "valid_to": valid_to}),
            edge(view, EdgeType.SUPERSEDES, later.memory_id, fact, rule=reason,
                 score=evidence.get("cosine", 0.0)),
        ]
    shown = {**_shown(evidence), "valid_to": valid[1].date().isoformat(),
             "by": view.current[later.memory_id].text[:80]}
    if evidence.get("facts"):
        shown["facts"] = "; ".join(view.current[f].text for f in evidence["facts"])
    return Decision("supersede", earlier.memory_id, f"update in own words: {reason}", later.memory_id,
                    shown, ops)


def _heal(view: GraphView) -> list[Decision]:
    """A superseded message whose successor is gone (forgotten) is current again."""
    live_successor = {e.dst_id for e in view.open_edges(EdgeType.SUPERSEDES) if e.src_id in view.current}
    out = []
    past = ((m, v) for m, v in view.current.items() if v.status == "superseded")  # sort only these
    for memory_id, current in sorted(past):
        if memory_id in live_successor or view.memories[memory_id].kind != "observation":
            continue
        first = view.versions_of[memory_id][0]
        fields = {"status": "active", "valid_from": first.valid_from, "valid_to": first.valid_to}
        ops: list[StageOp] = [Revise(memory_id, current.id, fields)]
        out.append(Decision("restore", memory_id, "its update was forgotten", None, {}, ops))
    return out
