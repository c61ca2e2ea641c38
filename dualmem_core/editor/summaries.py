"""Session summaries: one ``summary`` memory per conversation session, made of the turns that carry it.

The first layer above the raw turns (issue 35). A session is the Writer's ``session_id``; each
one with a new message since the last run gets a summary (made, or remade when it grew), so the
cost follows what is new. Without a model the summary is extractive: the session's turns are
chosen by maximal marginal relevance over their embeddings (close to the session's centroid,
unlike the turns chosen before), up to ``summary_turns`` turns or ``summary_chars`` characters,
and joined in the order they were said, each with its speaker. Its embedding is the mean of the
chosen turns' vectors (the Editor has no embedder; the mean is what a bag of those turns embeds
to), its valid time starts with the session's first message, it ``MENTIONS`` the entities its
session's turns mention, and its sources (``FROM``) are the chosen turns' episodes: provenance
and measurement count the turns, not the summary. Recall follows a summary hit to those turns
(``writer/candidates.py``). With an LLM the summary is the model's, one call per session
(``summary_llm.py``), its sources the turns it cites; an unusable reply falls back to the above.

Summaries are the run's own records (``created_by`` the run id), so rollback removes them.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from itertools import groupby

import numpy as np

from ..store import EdgeType
from ..store import changes as ch
from ..store.models import Memory, MemoryVersion
from .config import EditorConfig
from .decisions import Decision, Revise, StageOp, StageResult, edge
from .judge import Judge
from .summary_llm import written
from .view import GraphView, follow

STAGE = "summaries"
SUMMARY = "summary"
TURNS = ("observation",)  # what a session is made of: the messages as said


@dataclass(slots=True)
class _Turn:
    memory_id: str
    episodes: list[str]
    said: datetime
    order: str  # ties in time (one batch) keep the caller's source ids in order
    speaker: str
    text: str
    vector: np.ndarray  # unit length


def summarise(view: GraphView, config: EditorConfig, prior: Sequence[StageResult] = (),
              judge: Judge | None = None) -> StageResult:
    """One decision per session with new messages: a new summary, or its summary remade; written
    by the judge's model when there is one (``summary_llm.py``), else extractive."""
    result = StageResult(STAGE)
    if not config.summaries:
        return result
    new = set(view.new_memory_ids())
    sessions = _sessions(view)
    existing = {m.session_id: m.id for m in view.memories.values()
                if m.kind == SUMMARY and m.id in view.current and m.session_id is not None}
    mentions = _mentions(view, prior)
    for session in sorted(sessions):
        turns = sessions[session]
        if not any(t.memory_id in new for t in turns) or len(turns) < config.summary_min_turns:
            continue
        model = written(judge, STAGE, [(t.speaker, t.text) for t in turns]) if judge is not None else None
        if model is not None:
            summary = _Summary([turns[i] for i in model.turns], model.text, "llm")
        else:
            chosen = _choose(turns, config.summary_turns, config.summary_chars)
            summary = _Summary(chosen, _text(chosen), "extractive")
        people = sorted({e for t in turns for ep in t.episodes for e in mentions.get(ep, ())})
        decision = _remade(view, existing[session], summary, turns) if session in existing \
            else _made(view, session, summary, turns, people)
        if decision is not None:
            result.decisions.append(decision)
    return result


def _sessions(view: GraphView) -> dict[str, list[_Turn]]:
    """The turns of every session, in the order they were said (turns without a vector left out:
    nothing says how central they are)."""
    out: dict[str, list[_Turn]] = defaultdict(list)
    for memory_id, version in view.current.items():
        memory = view.memories.get(memory_id)
        if memory is None or memory.kind not in TURNS or version.status not in ("active", "superseded") \
                or version.embedding is None:
            continue
        episodes = [view.episodes[e] for e in view.sources.get(memory_id, ()) if e in view.episodes]
        first = min(episodes, key=lambda e: e.observed_at, default=None)
        session = first.session_id if first is not None else None
        if first is None or session is None:
            continue
        vector = np.asarray(version.embedding, dtype=np.float32)
        norm = float(np.linalg.norm(vector))
        if norm == 0:
            continue
        out[session].append(_Turn(memory_id, [e.id for e in episodes], first.observed_at,
                                  _natural(first.source_id or first.id),
                                  first.speaker or first.role or "user", version.text, vector / norm))
    for turns in out.values():
        turns.sort(key=lambda t: (t.said, t.order, t.memory_id))
    return out


def _natural(source: str) -> str:
    """A source id whose numbers sort as numbers ("D3:10" after "D3:9"), without reading it."""
    runs = ("".join(run) for _, run in groupby(source, str.isdigit))
    return "".join(r.zfill(8) if r.isdigit() else r for r in runs)


def _choose(turns: list[_Turn], most: int, budget: int) -> list[_Turn]:
    """Maximal marginal relevance: each pick is the turn closest to the session's centroid less
    its closeness to the turns already picked, so the summary covers the session's main content
    without repeating itself. Stops at ``most`` turns or when the next would pass ``budget``
    characters (the first pick always stays)."""
    matrix = np.stack([t.vector for t in turns])
    centroid = matrix.mean(axis=0)
    central = matrix @ (centroid / (float(np.linalg.norm(centroid)) or 1.0))
    similar = matrix @ matrix.T
    picked: list[int] = []
    used = 0
    covered = np.full(len(turns), -np.inf)  # closeness to the nearest picked turn
    while len(picked) < min(most, len(turns)):
        gain = MMR_LAMBDA * central - (1 - MMR_LAMBDA) * np.where(np.isinf(covered), 0.0, covered)
        gain[picked] = -np.inf
        best = int(np.argmax(gain))
        size = len(turns[best].text) + len(turns[best].speaker) + 2
        if picked and used + size > budget:
            break
        picked.append(best)
        used += size
        covered = np.maximum(covered, similar[best])
    return [turns[i] for i in sorted(picked)]


MMR_LAMBDA = 0.7  # relevance to the session over novelty: the usual MMR balance


def _text(chosen: list[_Turn]) -> str:
    return "\n".join(f"{t.speaker}: {t.text}" for t in chosen)


def _vector(chosen: list[_Turn]) -> np.ndarray:
    mean = np.stack([t.vector for t in chosen]).mean(axis=0)
    return (mean / (float(np.linalg.norm(mean)) or 1.0)).astype(np.float32)


@dataclass(slots=True)
class _Summary:
    turns: list[_Turn]  # its sources, in the order said
    text: str
    reason: str  # "extractive" or "llm"


def _made(view: GraphView, session: str, summary: _Summary, turns: list[_Turn],
          people: list[str]) -> Decision:
    user = view.user_id
    # Reviewed from the start: it is the Editor's own, and a new one would mark its session new.
    memory = Memory(user_id=user, kind=SUMMARY, session_id=session, review_state="reviewed")
    chosen = summary.turns
    version = MemoryVersion(memory_id=memory.id, user_id=user, text=summary.text,
                            valid_from=turns[0].said, embedding=_vector(chosen))
    ops: list[StageOp] = [ch.AddMemory(memory), ch.AddVersion(version)]
    ops += [edge(view, EdgeType.FROM, memory.id, e, rule="summary") for t in chosen for e in t.episodes]
    evidence = {**_evidence(summary, turns), "people": len(people)}
    return Decision("summarise", memory.id, summary.reason, None, evidence, ops)


def _remade(view: GraphView, summary_id: str, summary: _Summary, turns: list[_Turn]) -> Decision | None:
    """The session grew: its summary reads the turns chosen now, and its sources follow."""
    old = view.current[summary_id]
    text, chosen = summary.text, summary.turns
    wanted = {e for t in chosen for e in t.episodes}
    held = {e.dst_id: e for e in view.open_edges(EdgeType.FROM) if e.src_id == summary_id}
    if text == old.text and wanted == set(held):
        return None
    ops: list[StageOp] = [Revise(summary_id, old.id, {"text": text, "embedding": _vector(chosen),
                                                      "valid_from": turns[0].said})]
    ops += [ch.CloseEdge(held[e].id) for e in sorted(set(held) - wanted)]
    ops += [edge(view, EdgeType.FROM, summary_id, e, rule="summary") for e in sorted(wanted - set(held))]
    return Decision("resummarise", summary_id, summary.reason, None, _evidence(summary, turns), ops)


def _evidence(summary: _Summary, turns: list[_Turn]) -> dict[str, int]:
    return {"turns": len(turns), "chosen": len(summary.turns), "chars": len(summary.text)}


def _mentions(view: GraphView, prior: Sequence[StageResult]) -> dict[str, set[str]]:
    """episode -> canonical entities the memories said in it mention (its turn, and the facts
    read from it), with this run's links and merges counted."""
    merged = {e.src_id: e.dst_id for e in view.open_edges(EdgeType.MERGED_INTO)}
    links = {m: set(es) for m, es in view.mentions.items()}
    for stage in prior:
        for d in stage.changing():
            for op in d.ops:
                if isinstance(op, ch.AddEdge) and op.edge.type == EdgeType.MENTIONS:
                    links.setdefault(op.edge.src_id, set()).add(op.edge.dst_id)
                elif isinstance(op, ch.AddEdge) and op.edge.type == EdgeType.MERGED_INTO:
                    merged[op.edge.src_id] = op.edge.dst_id
    out: dict[str, set[str]] = defaultdict(set)
    for memory_id, entities in links.items():
        if memory_id in view.memories and view.memories[memory_id].kind != SUMMARY:
            for episode in view.sources.get(memory_id, ()):
                out[episode] |= {follow(merged, e) for e in entities}
    return out

