"""The Editor's stages as assets, in order, then the combined change set and its publication.

Every decision is made in ``dualmem_core.editor``; each asset here only loads its inputs, calls
the core, and shows what was decided in the asset's metadata.
"""

import importlib
from collections import Counter
from typing import Any

from dagster import (
    AssetExecutionContext,
    AssetIn,
    AssetsDefinition,
    MetadataValue,
    TableColumn,
    TableRecord,
    TableSchema,
    asset,
)

from dualmem_core.editor import STAGES, Editor, EditorConfig, Judge, StageResult, combine, run_stage
from dualmem_core.store.changes import ChangeSet

from ..io.run_folder import RunFolderIOManager
from ..providers.resources import LLMResource
from ..snapshot.assets import Snapshot, load_view
from ..store.resources import StoreResource
from ..users import users_partitions

SAMPLE_ROWS = 20
_SAMPLE_SCHEMA = TableSchema(
    columns=[TableColumn(name) for name in ("action", "subject", "target", "reason", "evidence")]
)


def run_metadata(snapshot: Snapshot) -> dict[str, Any]:
    return {"editor_run_id": snapshot.run_id, "snapshot_id": snapshot.snapshot_id}


def stage_metadata(result: StageResult, snapshot: Snapshot, judge: Judge) -> dict[str, Any]:
    return {
        **run_metadata(snapshot),
        "decisions": len(result.decisions),
        "changing": len(result.changing()),
        "counts": MetadataValue.json(result.counts()),
        "sample": MetadataValue.table(
            [TableRecord(row) for row in result.sample(SAMPLE_ROWS)], schema=_SAMPLE_SCHEMA
        ),
        "llm_calls": result.llm_calls,
        "llm_tokens": result.llm_tokens,
        "llm_failures": judge.failures,
        "seconds": result.seconds,
    }


def stage_asset(name: str) -> AssetsDefinition:
    """The asset of one stage: it reads the snapshot and the results of every stage before it."""
    before = STAGES[: STAGES.index(name)]
    # The stage module's own first docstring line says what it does: it shows in the UI.
    summary = importlib.import_module(f"dualmem_core.editor.{name}").__doc__.strip().splitlines()[0]

    @asset(
        name=name,
        description=summary,
        partitions_def=users_partitions,
        group_name="editor",
        ins={"graph_snapshot": AssetIn(), **{b: AssetIn() for b in before}},
        kinds={"python"},
        io_manager_def=RunFolderIOManager(),
    )
    def _stage(context: AssetExecutionContext, llm: LLMResource, **inputs: Any) -> StageResult:
        snapshot: Snapshot = inputs["graph_snapshot"]
        judge = Judge(llm.llm)
        prior = [inputs[b] for b in before]
        result = run_stage(name, load_view(snapshot.folder), prior, EditorConfig(), judge)
        context.add_output_metadata(stage_metadata(result, snapshot, judge))
        return result

    return _stage


stage_assets = [stage_asset(name) for name in STAGES]
_ALL_STAGES = {"graph_snapshot": AssetIn(), **{name: AssetIn() for name in STAGES}}


@asset(partitions_def=users_partitions, group_name="editor", ins=_ALL_STAGES, kinds={"python"},
       io_manager_def=RunFolderIOManager())
def change_set(context: AssetExecutionContext, **inputs: Any) -> ChangeSet:
    """Every stage's decisions folded into one change set for the user, checked before publish."""
    snapshot: Snapshot = inputs["graph_snapshot"]
    changes = combine(load_view(snapshot.folder), [inputs[name] for name in STAGES], snapshot.run_id)
    kinds = Counter(type(op).__name__ for op in changes.operations)
    context.add_output_metadata({
        **run_metadata(snapshot),
        "operations": len(changes.operations),
        "groups": len({op.group for op in changes.operations}),
        "by_operation": MetadataValue.json(dict(sorted(kinds.items()))),
    })
    return changes


@asset(
    partitions_def=users_partitions,
    group_name="editor",
    ins=_ALL_STAGES,
    deps=[change_set],
    kinds={"python"},
)
def publish(context: AssetExecutionContext, store: StoreResource, **inputs: Any) -> None:
    """The change set applied to the store in one transaction under the run id (once per run)."""
    snapshot: Snapshot = inputs["graph_snapshot"]
    results: list[StageResult] = [inputs[name] for name in STAGES]
    # Editor.publish combines the results again (the same operations as the checked change set
    # but for fresh ids of revised versions) and records the run's counts and touched ids.
    run = Editor(store.store).publish(
        load_view(snapshot.folder), results, snapshot.run_id, snapshot=snapshot.folder,
        started_at=snapshot.taken_at,
    )
    context.add_output_metadata({
        **run_metadata(snapshot),
        "operations": run.operations,
        "skipped": len(run.skipped),
        "skipped_reasons": MetadataValue.json(run.skipped[:SAMPLE_ROWS]),
        "applied_at": run.applied_at.isoformat() if run.applied_at else "nothing to publish",
        "counts": MetadataValue.json(run.counts),
        "llm_calls": run.llm_calls,
        "llm_tokens": run.llm_tokens,
        "llm_failures": run.llm_failures,
        "duration_s": run.duration_s,
    })
