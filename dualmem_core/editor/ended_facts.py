"""A later message ending single-valued facts of an earlier message that stays current: "Rob is
leaving Halvorsen Marine!" ends "Roberto works at Halvorsen Marine" of a message that told
other things too, and nothing else that message said.

Separate from ``replaced.py``, which makes whole messages past: here only facts end, proven by
the structure of the later message (a strong change word said of the fact's whole value, and a
fact read from it about the same subject naming that value).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from datetime import datetime

from ..store import EdgeType
from ..vocab import predicates
from ..vocab.changes import ADDITION, STRONG, WORD, stem, windows
from .decisions import Decision, Revise, StageOp, edge
from .messages import IDENTITY, _Message
from .stints import ended
from .view import GraphView, object_key

_Endable = dict[str, list[tuple[str, "_Message", frozenset[str]]]]


def _facts_it_ends(view: GraphView, later: _Message, endable: Callable[[], _Endable]) -> dict[str, datetime]:
    """Single-valued facts a later message says ended, when the message that told them tells
    other things too (so it stays current): "big news: Rob is leaving Halvorsen Marine!" ends
    "Roberto works at Halvorsen Marine" of "my husband Roberto (Rob) ... he's an engineer at
    Halvorsen Marine, he likes order", and nothing else that message said.

    Proof from structure, not wording: a strong change word said of the fact's whole value (in
    its window, ``changes.windows``), and a fact the extractor read from the later message about the
    same subject (``_same_subject``) whose object names that whole value too. ``endable()``:
    value word -> the facts that could be ended (``_endable``), built once, when first needed.

    fact -> when it ends: when the message was said, or when the next thing it tells of the same
    subject begins, if later ("Cami is leaving Citizens Bank! starting Monday she'll run the
    books for Pão Quente": the bank job ends on that Monday)."""
    strong = [w for w in windows(later.clauses) if w & STRONG and not w & ADDITION]
    if not strong or later.history:
        return {}
    told = [view.current[f] for f in later.facts if view.current[f].status == "active"]
    told_words = [(t.subject, {stem(w) for w in WORD.findall(object_key(t.object))}) for t in told]
    out = {}
    index = endable() if told_words else {}
    for word in frozenset().union(*strong):
        for fact, earlier, value in index.get(word, ()):
            if not earlier.said < later.said or view.current[fact].valid_from > later.said:
                continue
            if not any(value <= w for w in strong):
                continue  # the change is not said of this value, as a whole
            if any(value <= named and _same_subject(view, fact, earlier, subject)
                   for subject, named in told_words):
                out[fact] = min((t.valid_from for t in told if t.valid_from > later.said
                                 and _same_subject(view, fact, earlier, t.subject)), default=later.said)
    return dict(sorted(out.items()))


def _endable(view: GraphView, messages: dict[str, _Message], successors: dict[str, set[str]]) -> _Endable:
    """value word -> (fact, message that told it, its value's words): the user's messages' facts
    a later message can end (``_facts_it_ends``): active, positive, single-valued, not about who
    the speaker is, not already ended by the fact chain."""
    out: _Endable = defaultdict(list)
    for earlier in messages.values():
        for fact in earlier.facts:
            v = view.current[fact]
            if (v.status != "active" or v.negated or not v.predicate or v.predicate in IDENTITY
                    or not predicates.is_single_valued(v.predicate) or successors.get(fact)):
                continue
            value = frozenset(stem(w) for w in WORD.findall(object_key(v.object)))
            for word in value:
                out[word].append((fact, earlier, value))
    return out


def _same_subject(view: GraphView, fact: str, earlier: _Message, subject: str | None) -> bool:
    """Whether ``subject`` (of a later fact) names the subject of ``fact``: the same key (the
    user's own names count as the user), or a short form of its name ("Cami" for "Camila") that
    the message telling the fact also wrote (it named both)."""
    theirs, key = view.fact_subject(fact), view.subject_named(subject)
    if key == theirs:
        return True
    first = theirs.split()[0] if theirs else ""
    return (len(key) >= 3 and " " not in key and key != first and first.startswith(key)
            and key in {w.casefold() for w in WORD.findall(view.current[earlier.memory_id].text)})


def _end_fact(view: GraphView, fact: str, later: _Message, ends: datetime) -> Decision:
    version = view.current[fact]
    _, valid_to = ended((version.valid_from, version.valid_to), ends)
    ops: list[StageOp] = [
        Revise(fact, version.id, {"status": "superseded", "valid_to": valid_to}),
        edge(view, EdgeType.SUPERSEDES, later.memory_id, fact, rule="ends the fact it named"),
    ]
    shown = {"predicate": version.predicate, "object": version.object,
             "valid_to": valid_to.date().isoformat(), "by": view.current[later.memory_id].text[:80]}
    return Decision("supersede", fact, "update in own words: ends the fact it named", later.memory_id,
                    shown, ops)
