"""What a stage returns: decisions, each with its reason, evidence and the operations it asks for.

Stages speak in a slightly higher-level vocabulary than the store: ``Revise`` says "this memory's
open version should read differently". Two stages may revise the same memory (supersede ends
it, confidence rescores it), so ``combine`` folds all revisions of one version into a single
close-and-add pair before anything reaches the store, and puts every operation of decisions
that share a version into one guard group (they apply together or not at all).
"""

from __future__ import annotations

import dataclasses
import uuid
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..store import changes as ch
from ..store.models import Edge, EdgeType
from .view import GraphView


@dataclass(slots=True)
class Revise:
    """Replace a memory's open version by a copy with ``fields`` changed (closed, not overwritten)."""

    memory_id: str
    version_id: str
    fields: dict[str, Any]


# New memories (the summaries stage's) come with their first version.
StageOp = Revise | ch.AddEdge | ch.CloseEdge | ch.AddMemory | ch.AddVersion


@dataclass(slots=True)
class Decision:
    action: str  # "duplicate", "supersede", "merge", "relate", "rescore", "kept_apart", ...
    subject: str  # the memory or entity decided about
    reason: str  # the rule, or "llm"
    target: str | None = None  # the other memory or entity, when there is one
    evidence: dict[str, Any] = field(default_factory=dict)
    ops: list[StageOp] = field(default_factory=list)


@dataclass(slots=True)
class StageResult:
    stage: str
    decisions: list[Decision] = field(default_factory=list)
    llm_calls: int = 0
    llm_tokens: int = 0
    llm_failures: int = 0  # replies that were unusable (the pairs stayed apart)
    seconds: float = 0.0

    def counts(self) -> dict[str, int]:
        return dict(Counter(d.action for d in self.decisions))

    def changing(self) -> list[Decision]:
        return [d for d in self.decisions if d.ops]

    def sample(self, n: int = 20, shown: Callable[[Any], Any] = lambda v: v) -> list[dict[str, Any]]:
        """Rows for a table of decisions (changing ones first), for run metadata and the UI;
        ``shown`` says how an evidence value appears (the Dagster UI hides words)."""
        ordered = self.changing() + [d for d in self.decisions if not d.ops]
        return [
            {
                "action": d.action,
                "subject": d.subject,
                "target": d.target or "",
                "reason": d.reason,
                "evidence": ", ".join(f"{k}={shown(v)}" for k, v in sorted(d.evidence.items())),
            }
            for d in ordered[:n]
        ]


def edge(view: GraphView, type_: EdgeType, src: str, dst: str, **props: Any) -> ch.AddEdge:
    """An edge a run adds; ``created_by`` is stamped with the run id by ``combine``."""
    return ch.AddEdge(Edge(user_id=view.user_id, type=type_, src_id=src, dst_id=dst, props=props))


def combine(view: GraphView, results: list[StageResult], run_id: str) -> ch.ChangeSet:
    """One change set for the whole run: revisions folded per version, groups joined, new
    memories marked reviewed (each alone, so a memory forgotten meanwhile skips only itself)."""
    decisions = [(f"{r.stage}:{i}", d) for r in results for i, d in enumerate(r.changing())]
    parent: dict[str, str] = {g: g for g, _ in decisions}

    def find(g: str) -> str:
        while parent[g] != g:
            parent[g] = parent[parent[g]]
            g = parent[g]
        return g

    owner: dict[str, str] = {}  # version id -> the first group that revised it
    for group, d in decisions:
        for op in d.ops:
            if isinstance(op, Revise):
                if op.version_id in owner:
                    parent[find(group)] = find(owner[op.version_id])
                else:
                    owner[op.version_id] = group
    revised: dict[str, tuple[str, dict[str, Any]]] = {}  # version id -> (memory id, new fields)
    operations: list[ch.Operation] = []
    for group, d in decisions:
        for op in d.ops:
            if isinstance(op, Revise):
                revised.setdefault(op.version_id, (op.memory_id, {}))[1].update(op.fields)
            elif isinstance(op, ch.AddEdge):
                operations.append(ch.AddEdge(dataclasses.replace(op.edge, created_by=run_id), find(group)))
            elif isinstance(op, ch.AddMemory):  # the run's own, so its rollback removes them
                memory = dataclasses.replace(op.memory, created_by=run_id)
                operations.append(ch.AddMemory(memory, find(group)))
            elif isinstance(op, ch.AddVersion):
                version = dataclasses.replace(op.version, created_by=run_id)
                operations.append(ch.AddVersion(version, find(group)))
            else:
                operations.append(dataclasses.replace(op, group=find(group)))
    for version_id, (memory_id, changed) in revised.items():
        old = view.current[memory_id]
        # Derived, not random: combining the same decisions again gives the same change set.
        vid = f"ver_{uuid.uuid5(uuid.NAMESPACE_URL, f'{run_id}/{version_id}').hex}"
        if changed.get("text", old.text) != old.text and "search_text" not in changed:
            # The search text was built around the old text; the new one indexes itself.
            changed = {**changed, "search_text": None}
        # Otherwise the text and so its search text carry over (replace copies every field).
        new = dataclasses.replace(old, id=vid, tx_from=None, created_by=run_id, **changed)
        group = find(owner[version_id])
        operations += [ch.CloseVersion(version_id, group=group), ch.AddVersion(new, group=group)]
    for memory_id in view.new_memory_ids():
        operations.append(
            ch.SetReviewState(memory_id, "reviewed", expected="new", group=f"review:{memory_id}")
        )
    return ch.ChangeSet(view.user_id, run_id, operations)
