"""Intentions (issue 35, L7): the user's plans, each an ``intention`` memory with a due time and a state.

A new user message the intention reader (``intentions_model.py``, learned) reads as a ``plan``, at
``EditorConfig.intention_chance`` or more, becomes an intention: its text the message's, ``object``
its state (``open``), ``subject`` the user. The due time is the date the Writer already resolved
from the same message: the earliest ``valid_from`` after the moment said among the facts read from
its episode ("next Friday" -> that Friday). With one the predicate is ``due`` and ``valid_from`` the
due time; without one the predicate is ``intends`` and ``valid_from`` the time it was said (an open
plan with no date).

A new user message read as ``done`` or ``dropped`` closes the open intention said before it that is
most alike by the reader's text features, when at least the model's ``same_plan`` cosine (chosen
on the written pairs): the intention's version is revised to that state (the decision names the
closing message). Only new messages are
read, so the cost follows what is new. Intentions are the run's own records (``created_by`` the
run id): rollback removes them and undoes the state changes. Their one source is the plan's
message, so forgetting it forgets the intention.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

import numpy as np

from ..store import EdgeType
from ..store import changes as ch
from ..store.models import Memory, MemoryVersion
from .config import EditorConfig
from .decisions import Decision, Revise, StageOp, StageResult, edge
from .intentions_model import DONE, DROPPED, PLAN, default_model, read, similarity
from .view import GraphView

STAGE = "intentions"
INTENTION = "intention"
OPEN = "open"
DATED, UNDATED = "due", "intends"


@dataclass(slots=True)
class _Said:
    memory_id: str
    episodes: list[str]
    said: datetime
    text: str
    embedding: np.ndarray | None


@dataclass(slots=True)
class _Open:
    memory_id: str | None  # None for an intention this run is making
    version_id: str | None
    text: str
    said: datetime
    made: int | None = None  # index into this run's new intentions


def find_intentions(view: GraphView, config: EditorConfig) -> StageResult:
    """One decision per new plan (a new intention) and per closing message (its intention closed)."""
    result = StageResult(STAGE)
    if not config.intentions:
        return result
    said = _new_user_messages(view)
    if not said:
        return result
    readings = read([s.text for s in said])
    opened = _open_intentions(view)
    made: list[tuple[_Said, float, list[StageOp], Decision]] = []
    threshold = float(default_model().meta["same_plan"])
    dates = _fact_dates(view) if any(r.label == PLAN for r in readings) else {}  # read once, if needed
    for message, reading in zip(said, readings, strict=True):
        if reading.label == PLAN and reading.chance >= config.intention_chance:
            decision = _made(view, message, reading.chance, _due(dates, message))
            opened.append(_Open(None, None, message.text, message.said, len(made)))
            made.append((message, reading.chance, decision.ops, decision))
            result.decisions.append(decision)
        elif reading.label in (DONE, DROPPED):
            closed = _closes(message, opened, threshold)
            if closed is None:
                continue
            opened.remove(closed)
            result.decisions.append(_closed(view, closed, message, reading.label, made))
    return result


def _new_user_messages(view: GraphView) -> list[_Said]:
    """The new messages the user said (an assistant's plans are not the user's), oldest first."""
    out = []
    for memory_id in view.new_memory_ids():
        memory = view.memories[memory_id]
        version = view.current[memory_id]
        if memory.kind != "observation" or version.status != "active":
            continue
        episodes = [view.episodes[e] for e in view.sources.get(memory_id, ()) if e in view.episodes]
        if not episodes or any((e.role or "user") != "user" for e in episodes):
            continue
        first = min(e.observed_at for e in episodes)
        out.append(_Said(memory_id, [e.id for e in episodes], first, version.text, version.embedding))
    return sorted(out, key=lambda s: (s.said, s.memory_id))


def _open_intentions(view: GraphView) -> list[_Open]:
    out = []
    for memory_id, version in view.current.items():
        memory = view.memories.get(memory_id)
        if memory is not None and memory.kind == INTENTION and version.object == OPEN:
            said = min((view.episodes[e].observed_at for e in view.sources.get(memory_id, ())
                        if e in view.episodes), default=version.valid_from)
            out.append(_Open(memory_id, version.id, version.text, said))
    return out


def _fact_dates(view: GraphView) -> dict[str, list[datetime]]:
    """episode -> the valid_from of each fact the Writer read from it (its dates already resolved)."""
    out: dict[str, list[datetime]] = {}
    for memory_id, version in view.current.items():
        if view.memories[memory_id].kind == "fact":
            for episode in view.sources.get(memory_id, ()):
                out.setdefault(episode, []).append(version.valid_from)
    return out


def _due(dates: dict[str, list[datetime]], message: _Said) -> datetime | None:
    """The earliest date after the moment said that the Writer read from the same message (a fact
    of the day said or before is about now or the past, not a due time)."""
    future = [d for e in message.episodes for d in dates.get(e, ()) if d > message.said]
    return min(future, default=None)


def _made(view: GraphView, message: _Said, chance: float, due: datetime | None) -> Decision:
    memory = Memory(user_id=view.user_id, kind=INTENTION, review_state="reviewed")
    version = MemoryVersion(memory_id=memory.id, user_id=view.user_id, text=message.text,
                            valid_from=due or message.said, embedding=message.embedding, subject="user",
                            predicate=DATED if due else UNDATED, object=OPEN, confidence=chance)
    ops: list[StageOp] = [ch.AddMemory(memory), ch.AddVersion(version)]
    ops += [edge(view, EdgeType.FROM, memory.id, e, rule=STAGE) for e in message.episodes]
    evidence = {"chance": chance, "due": due.isoformat() if due else ""}
    return Decision("intend", memory.id, "reader", message.memory_id, evidence, ops)


def _closes(message: _Said, opened: list[_Open], threshold: float) -> _Open | None:
    """The open intention said before ``message`` most alike it, if alike enough."""
    earlier = [o for o in opened if o.said <= message.said]
    if not earlier:
        return None
    sims = similarity([message.text], [o.text for o in earlier])[0]
    best = int(sims.argmax())
    return earlier[best] if float(sims[best]) >= threshold else None


def _closed(view: GraphView, closed: _Open, message: _Said, state: str,
            made: list[tuple[_Said, float, list[StageOp], Decision]]) -> Decision:
    # The closing message is not made a source: the intention carries the plan's text, which must
    # go when the plan's message is forgotten, not live on through a second source.
    evidence = {"closing": message.memory_id}
    if closed.made is not None:  # made in this run: it is born closed
        _, _, born, decision = made[closed.made]
        version = next(op.version for op in born if isinstance(op, ch.AddVersion))
        version.object = state
        return Decision(state, decision.subject, "reader", message.memory_id, evidence, [])
    assert closed.memory_id is not None and closed.version_id is not None
    ops: list[StageOp] = [Revise(closed.memory_id, closed.version_id, {"object": state})]
    return Decision(state, closed.memory_id, "reader", message.memory_id, evidence, ops)
