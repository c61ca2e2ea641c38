"""Stage 5, score confidence and salience. The whole formula:

    doubt      = (1 - base) * 0.6 ** (sessions - 1) * 0.85 ** (sources - sessions)
    confidence = clamp((1 - doubt) * 0.75 ** contradictions)
    salience   = clamp(0.5 + 0.2 * core + 0.3 * (1 - exp(-access_count / 10)))

* ``base`` is the confidence the Writer gave the memory (its first version), so scores are
  recomputed from evidence each run rather than compounded run over run.
* ``sessions``/``sources``: distinct sessions and episodes that said it (a duplicate's sources
  count for its canonical memory, and so do later messages that retell a relation:
  ``restated.py``, whose ``FROM`` edges this stage adds), and, for a relation to a person or
  pet, the later messages that name them while it held (``Restatements.named``: corroboration,
  not provenance, so no edge). Being told again in another conversation is strong
  corroboration; a repeat within one conversation is weak.
* ``contradictions``: live facts with the same subject, predicate and object but the opposite
  polarity, valid at the same time (a supersession is not a contradiction: it is a change).
* salience starts where the Writer put every memory (0.5): what was said verbatim is as worth
  recalling as what was extracted from it. Core predicates (who someone is, where they live
  and work, their people) count more than passing preferences, and so does the message that
  said one (``core``: a core predicate, or an observation one was extracted from; boosting the
  fact alone pushed the message down, which on unseen conversations is often the only place the
  rest of what was said survives); recall use counts too, saturating.
* clamp keeps both in [0.05, 0.99]. A change smaller than ``min_score_change`` is not written, so
  a rerun with nothing new is a fixpoint.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence

from ..store import EdgeType
from ..store import changes as ch
from .config import EditorConfig
from .decisions import Decision, Revise, StageResult
from .restated import restatements
from .view import GraphView, object_key, subject_key

STAGE = "confidence"
CORE_PREDICATES = frozenset(
    {
        "name",
        "nickname",
        "lives_in",
        "works_at",
        "job_title",
        "spouse",
        "partner",
        "relationship_status",
        "child",
        "parent",
        "sibling",
        "pet",
        "birthday",
        "age",
        "allergy",
        "diet",
    }
)


def score(view: GraphView, config: EditorConfig, prior: Sequence[StageResult] = ()) -> StageResult:
    result = StageResult(STAGE)
    retold = restatements(view, prior)  # later messages retelling a relation: its sources
    result.decisions += retold.decisions
    sources = {m: set(eps) for m, eps in view.sources.items()}
    status = {m: v.status for m, v in view.current.items()}
    for stage in (*prior, result):
        for d in stage.changing():
            for op in d.ops:
                if isinstance(op, ch.AddEdge) and op.edge.type == EdgeType.FROM:
                    sources.setdefault(op.edge.src_id, set()).add(op.edge.dst_id)
                elif isinstance(op, Revise) and "status" in op.fields:
                    status[op.memory_id] = op.fields["status"]
    # What said each memory, and for a relation what named its person while it held.
    told = {m: sources.get(m, set()) | retold.named.get(m, set()) for m in sources.keys() | retold.named}
    polarity = defaultdict(list)
    for m, v in view.current.items():
        if v.predicate and status[m] == "active":
            polarity[(subject_key(v.subject), v.predicate, object_key(v.object))].append(m)
    # A message that said something core (where the user lives, who their people are) is as
    # salient as the fact taken from it: when extraction got only part of it, the words are
    # what recall has.
    core_episodes = {
        ep
        for m, v in view.current.items()
        if v.predicate in CORE_PREDICATES and status[m] in ("active", "superseded")
        for ep in told.get(m, ())
    }
    for memory_id, v in sorted(view.current.items()):
        if status[memory_id] not in ("active", "superseded"):
            continue
        eps = told.get(memory_id, set())
        sessions = {_session(view, e) for e in eps}
        contradictions = 0
        if v.predicate:
            for other in polarity[(subject_key(v.subject), v.predicate, object_key(v.object))]:
                o = view.current[other]
                if o.negated != v.negated and o.valid_from < v.valid_to and v.valid_from < o.valid_to:
                    contradictions += 1
        confidence = _confidence(view.base_confidence(memory_id), len(sessions), len(eps), contradictions)
        core = v.predicate in CORE_PREDICATES or (
            view.memories[memory_id].kind == "observation" and bool(eps & core_episodes)
        )
        salience = _salience(core, view.memories[memory_id].access_count)
        changed = {}
        if abs(confidence - v.confidence) >= config.min_score_change:
            changed["confidence"] = confidence
        if abs(salience - v.salience) >= config.min_score_change:
            changed["salience"] = salience
        if changed:
            evidence = {
                "sessions": len(sessions),
                "sources": len(eps),
                "contradictions": contradictions,
                "recalled": view.memories[memory_id].access_count,
                **{k: f"{getattr(v, k):.2f}->{x:.2f}" for k, x in changed.items()},
            }
            result.decisions.append(
                Decision("rescore", memory_id, "formula", None, evidence, [Revise(memory_id, v.id, changed)])
            )
    return result


def _session(view: GraphView, episode_id: str) -> str:
    ep = view.episodes.get(episode_id)
    return episode_id if ep is None else (ep.session_id or ep.id)


def _confidence(base: float, sessions: int, sources: int, contradictions: int) -> float:
    sessions, sources = max(sessions, 1), max(sources, 1)
    doubt = (1 - base) * 0.6 ** (sessions - 1) * 0.85 ** max(sources - sessions, 0)
    return round(_clamp((1 - doubt) * 0.75**contradictions), 4)


def _salience(core: bool, access_count: int) -> float:
    used = 0.3 * (1 - math.exp(-access_count / 10))
    return round(_clamp(0.5 + 0.2 * core + used), 4)


def _clamp(x: float) -> float:
    return min(max(x, 0.05), 0.99)
