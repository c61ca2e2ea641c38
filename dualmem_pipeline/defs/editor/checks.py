"""The checks that stand between a change set and the store: ``publish`` runs only if they pass.

The invariants are ``dualmem_core.editor.invariants``; a violation this run would cause fails its
check with severity ERROR and blocks publish. One the snapshot already had (say, a successor
the user has since asked to forget) fails with WARN: it is shown, and the run still publishes,
since refusing would stop the Editor for that user for good without repairing anything.
"""

from collections.abc import Iterator
from typing import Any

from dagster import (
    AssetCheckExecutionContext,
    AssetCheckResult,
    AssetCheckSeverity,
    AssetCheckSpec,
    AssetIn,
    MetadataValue,
    multi_asset_check,
)

from dualmem_core.editor.invariants import INVARIANTS, check_change_set

from ...users import users_partitions
from ..snapshot.assets import EditorSoFar, load_view

SHOWN = 20  # violations listed in a check's metadata


@multi_asset_check(
    specs=[
        AssetCheckSpec(
            name,
            asset="change_set",
            blocking=True,
            description=INVARIANTS[name],
            # A partitioned check loads only its user's change set; without it, every user's.
            # (In preview in Dagster 1.13, hence its PreviewWarning.)
            partitions_def=users_partitions,
        )
        for name in INVARIANTS
    ],
    ins={"checked": AssetIn("change_set")},
)
def change_set_invariants(
    context: AssetCheckExecutionContext, checked: EditorSoFar
) -> Iterator[AssetCheckResult]:
    """The change set applied to the snapshot in memory, and every invariant checked on the result."""
    user_id = context.op_execution_context.partition_key
    assert checked.changes is not None  # change_set's output always carries its change set
    found = check_change_set(load_view(checked.snapshot.folder).graph, checked.changes, user_id)
    for name in INVARIANTS:
        caused = [v for v in found[name] if not v.preexisting]
        metadata: dict[str, Any] = {
            "editor_run_id": checked.snapshot.run_id,
            "caused_by_run": len(caused),
            "preexisting": len(found[name]) - len(caused),
            "violations": MetadataValue.json(
                [{"subject": v.subject, "message": v.message, "preexisting": v.preexisting}
                 for v in found[name][:SHOWN]]
            ),
        }
        yield AssetCheckResult(
            check_name=name,
            asset_key="change_set",
            passed=not found[name],
            severity=AssetCheckSeverity.WARN if found[name] and not caused else AssetCheckSeverity.ERROR,
            metadata=metadata,
        )
