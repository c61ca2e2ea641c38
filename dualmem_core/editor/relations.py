"""Stage 4, mine relations: typed, time-stamped ``RELATED`` edges between entities.

Two sources, both by rule:

* a structured triple whose subject and object are both entities the memory mentions
  ("Sarah works at Google") gives ``Sarah -[works_at]-> Google``, valid while the fact is (the
  supersede stage's new end included);
* entities named together in at least ``co_mentions`` live memories with no triple between
  them give ``mentioned_with`` with the count.

Hub entities (mentioned by more than ``hub_degree`` memories) are skipped: they relate to
everything and say nothing. Facts about the speaker ("user lives in Portland") have no entity
on the user's side yet, so they give no edge. The desired edges are recomputed and compared
with the open ones, so a rerun adds nothing and a changed validity replaces its edge.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from itertools import combinations
from typing import Any

from ..store import EdgeType
from ..store import changes as ch
from ..store.models import WRITER, Edge
from ..timeutil import FAR_FUTURE
from .config import EditorConfig
from .decisions import Decision, Revise, StageOp, StageResult, edge
from .view import GraphView, follow, object_key

STAGE = "relations"


def mine_relations(view: GraphView, config: EditorConfig, prior: Sequence[StageResult] = ()) -> StageResult:
    """``prior``: this run's earlier stages (merges and new validity are taken into account)."""
    result = StageResult(STAGE)
    root = {e.src_id: e.dst_id for e in view.open_edges(EdgeType.MERGED_INTO)}
    revised: dict[str, dict[str, Any]] = {}
    copies = set()
    for stage in prior:
        for d in stage.changing():
            if d.action == "merge" and d.target:
                root[d.subject] = d.target
            if d.action == "duplicate":
                copies.add(d.subject)
            for op in d.ops:
                if isinstance(op, Revise):
                    revised.setdefault(op.memory_id, {}).update(op.fields)

    def canon(entity_id: str) -> str:
        return follow(root, entity_id)

    degree: Counter[str] = Counter()
    for entity_id, memory_ids in view.mentioned_by.items():
        degree[canon(entity_id)] += len(memory_ids)
    desired: dict[tuple[str, str, str], dict[str, Any]] = {}
    co: Counter[tuple[str, str]] = Counter()
    for memory_id, version in view.current.items():
        fields = revised.get(memory_id, {})
        status = fields.get("status", version.status)
        if status == "duplicate" or memory_id in copies:
            continue
        named: dict[str, str] = {}  # every name the memory's entities go by -> the canonical entity
        for e in view.mentions.get(memory_id, ()):
            if e in view.entities and degree[canon(e)] <= config.hub_degree:
                for name in (view.entities[e].name, *view.entities[e].aliases):
                    named.setdefault(object_key(name), canon(e))
        mentioned = set(named.values())
        pair = _triple_pair(version, named)
        if pair is not None:
            valid_to = fields.get("valid_to", version.valid_to)
            assert version.predicate is not None  # _triple_pair gives no pair without one
            key = (*pair, version.predicate)
            props = {
                "relation": version.predicate,
                "memory_id": memory_id,
                "rule": "triple",
                "valid_from": version.valid_from.isoformat(),
                "valid_to": None if valid_to == FAR_FUTURE else valid_to.isoformat(),
            }
            if key not in desired or desired[key]["valid_from"] < props["valid_from"]:
                desired[key] = props  # the latest statement of the relation speaks for it
        elif status == "active" and 1 < len(mentioned) <= 12:
            co.update(combinations(sorted(mentioned), 2))
    for (a, b), count in co.items():
        if count >= config.co_mentions and not _relations_between(desired, a, b):
            desired[(a, b, "mentioned_with")] = {
                "relation": "mentioned_with",
                "count": count,
                "rule": "co-mention",
            }
    existing: dict[tuple[str, str, str], Edge] = {}
    for related in view.open_edges(EdgeType.RELATED):
        existing[(related.src_id, related.dst_id, related.props.get("relation", ""))] = related
    for key, props in sorted(desired.items()):
        old = existing.get(key)
        if old is not None and old.props == props:
            continue
        ops: list[StageOp] = [edge(view, EdgeType.RELATED, key[0], key[1], **props)]
        if old is not None:
            ops.insert(0, ch.CloseEdge(old.id))
        names = f"{view.entities[key[0]].name} -[{key[2]}]-> {view.entities[key[1]].name}"
        result.decisions.append(
            Decision(
                "relate" if old is None else "update",
                key[0],
                props["rule"],
                key[1],
                {"relation": names, "valid_to": props.get("valid_to")},
                ops,
            )
        )
    for key, old in sorted(existing.items()):
        if key not in desired and old.created_by != WRITER:
            result.decisions.append(
                Decision(
                    "unrelate",
                    key[0],
                    "no longer supported",
                    key[1],
                    {"relation": key[2]},
                    [ch.CloseEdge(old.id)],
                )
            )
    return result


def _triple_pair(version, named: dict[str, str]) -> tuple[str, str] | None:
    if not version.predicate or not version.object or version.negated:
        return None
    src, dst = named.get(object_key(version.subject)), named.get(object_key(version.object))
    return (src, dst) if src and dst and src != dst else None


def _relations_between(desired: dict, a: str, b: str) -> set[str]:
    return {r for (x, y, r) in desired if {x, y} == {a, b}}
