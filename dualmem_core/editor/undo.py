"""What a rollback needs of a run: the memories and entities it touched (recorded when it is
published, so a later rollback can check for overlapping runs) and its journal turned into the
exact inverse operations.

Separate from ``editor.py``, which decides when to publish and roll back, so that how a run is
undone can be read on its own.
"""

from __future__ import annotations

from datetime import datetime

from ..errors import InvalidInput
from ..store import changes as ch
from .decisions import Revise, StageResult

_UNDO_KIND = {"AddMemory": "memory", "AddVersion": "version", "AddEntity": "entity", "AddEdge": "edge"}


def _touched(results: list[StageResult]) -> list[str]:
    """Memories and entities a run changes: what a later rollback checks for overlaps."""
    ids = set()
    for r in results:
        for d in r.changing():
            for op in d.ops:
                if isinstance(op, Revise):
                    ids.add(op.memory_id)
                elif isinstance(op, ch.AddEdge):
                    ids |= {op.edge.src_id, op.edge.dst_id}
                ids.add(d.subject)
    return sorted(ids)


def _inverse(record: ch.RunRecord) -> list[ch.Operation]:
    ops: list[ch.Operation] = []
    for entry in record.journal:
        group = f"undo:{entry['group']}"
        match entry["op"]:
            case "AddMemory" | "AddVersion" | "AddEntity" | "AddEdge":
                ops.append(ch.RemoveCreated(_UNDO_KIND[entry["op"]], entry["id"], record.run_id, group=group))
            case "CloseVersion":
                ops.append(
                    ch.ReopenVersion(entry["id"], datetime.fromisoformat(entry["closed_at"]), group=group)
                )
            case "CloseEdge":
                ops.append(
                    ch.ReopenEdge(entry["id"], datetime.fromisoformat(entry["closed_at"]), group=group)
                )
            case "SetReviewState":
                ops.append(
                    ch.SetReviewState(entry["id"], entry["previous"], expected=entry["state"], group=group)
                )
            case other:
                raise InvalidInput(f"run {record.run_id} has a journal entry {other!r} that cannot be undone")
    return ops
