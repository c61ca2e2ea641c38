"""The Editor's stages as assets, in order, then the combined change set and its publication.

Every decision is made in ``dualmem_core.editor``; each asset here only loads its input, calls
the core, and shows what was decided in the asset's metadata. The assets form one chain,
snapshot -> five stages -> change_set -> publish, each reading only the one before it (an
``EditorSoFar`` carrying the snapshot and the results so far): rerunning a stage makes the
later ones stale, as they read its result.
"""

import importlib
import importlib.metadata
import os
from collections import Counter
from typing import Any

from dagster import (
    AssetExecutionContext,
    AssetIn,
    AssetsDefinition,
    MaterializeResult,
    MetadataValue,
    TableColumn,
    TableRecord,
    TableSchema,
    asset,
)

from dualmem_core.editor import (
    STAGES,
    Editor,
    GraphView,
    Judge,
    Revise,
    StageResult,
    combine,
    run_stage,
)
from dualmem_core.editor.layer_switch import editor_config
from dualmem_core.store import changes as ch

from ...users import users_partitions
from ..io.run_folder import RUN_FOLDER_IO_MANAGER
from ..providers.resources import LLMResource
from ..snapshot.assets import EditorSoFar, Snapshot, load_view
from ..store.resources import StoreResource

SAMPLE_ROWS = 20
# What a stage computes changes with dualmem's code: a new version marks its assets' results as
# made by older code in the UI (code_version).
try:
    CODE_VERSION = importlib.metadata.version("dualmem")
except importlib.metadata.PackageNotFoundError:  # a checkout on PYTHONPATH, not installed
    CODE_VERSION = "unknown"
TEXT_CHARS = 80  # of a memory's text (or an entity's name) beside its id in the sample table
# Metadata lives in Dagster's event log, which no forget reaches: the sample shows texts only
# where this is "1", a deployment that accepts forgotten texts staying in Dagster's history.
SHOW_TEXTS = "DUALMEM_DAGSTER_TEXTS"


def shows_texts() -> bool:
    return os.environ.get(SHOW_TEXTS, "").strip() == "1"


def text_of(view: GraphView, record_id: str) -> str:
    """A memory's current text, or an entity's name, cut to ``TEXT_CHARS``; "" for neither."""
    if record_id in view.current:
        text = view.current[record_id].text
    elif record_id in view.entities:
        text = view.entities[record_id].name
    else:
        return ""
    return text if len(text) <= TEXT_CHARS else text[: TEXT_CHARS - 1] + "…"


def number_only(value: Any) -> Any:
    """An evidence value as the UI shows it by default: numbers only. Its words (an object, an
    entity's name) come from what the user said, and would outlive a forget in Dagster's event log."""
    return value if isinstance(value, int | float) else "…"


def sample_table(result: StageResult, view: GraphView) -> MetadataValue:
    texts = shows_texts()
    rows = result.sample(SAMPLE_ROWS, shown=(lambda v: v) if texts else number_only)
    names = ["action", "subject", "target", "reason", "evidence"]
    if texts:
        names[2:2] = ["subject_text"]
        names[4:4] = ["target_text"]
        rows = [{**r, "subject_text": text_of(view, r["subject"]), "target_text": text_of(view, r["target"])}
                for r in rows]
    schema = TableSchema(columns=[TableColumn(name) for name in names])
    return MetadataValue.table([TableRecord({n: r[n] for n in names}) for r in rows], schema=schema)


def run_metadata(snapshot: Snapshot) -> dict[str, Any]:
    return {"editor_run_id": snapshot.run_id, "snapshot_id": snapshot.snapshot_id}


def stage_metadata(result: StageResult, snapshot: Snapshot, judge: Judge) -> dict[str, Any]:
    return {
        **run_metadata(snapshot),
        "decisions": len(result.decisions),
        "changing": len(result.changing()),
        "counts": MetadataValue.json(result.counts()),
        "sample": sample_table(result, load_view(snapshot.folder)),
        "llm_calls": result.llm_calls,
        "llm_tokens": result.llm_tokens,
        "llm_failures": judge.failures,
        "seconds": result.seconds,
    }


def layer_metadata(result: StageResult) -> dict[str, Any]:
    """For a stage that makes layer memories, what it made, and one of their texts when texts are
    shown (``SHOW_TEXTS``), taken from its decision (the new memory is not in the snapshot):
    the summaries stage, how many summaries it made or remade; the topics stage, how many topics
    it made and how many it grew with new turns. For the intentions stage: how many plans it
    kept, how many of those have a due time, and how many it closed (no texts: counts say what
    the stage did)."""
    counts = result.counts()
    if result.stage == "intentions":
        dated = sum(1 for d in result.decisions if d.action == "intend" and d.evidence.get("due"))
        return {"intentions": counts.get("intend", 0), "intentions_with_due_time": dated,
                "intentions_done": counts.get("done", 0), "intentions_dropped": counts.get("dropped", 0)}
    if result.stage == "summaries":
        return {"summaries": len(result.changing()), "sample_summary": _sample_text(result)}
    if result.stage == "topics":
        return {"topics": counts.get("topic", 0), "topics_grown": counts.get("retopic", 0),
                "sample_topic": _sample_text(result)}
    return {}


def _sample_text(result: StageResult) -> MetadataValue:
    """The text of the first layer memory the stage made or rewrote: "…" when texts are not
    shown, "" when it wrote none."""
    texts = [op.version.text for d in result.changing() for op in d.ops if isinstance(op, ch.AddVersion)]
    texts += [op.fields["text"] for d in result.changing() for op in d.ops
              if isinstance(op, Revise) and "text" in op.fields]
    return MetadataValue.md(texts[0] if texts and shows_texts() else ("…" if texts else ""))


def stage_asset(name: str) -> AssetsDefinition:
    """The asset of one stage: it reads the asset before it (the snapshot, for the first)."""
    before = (["graph_snapshot", *STAGES])[STAGES.index(name)]
    # The stage module's own first docstring line says what it does: it shows in the UI.
    doc = importlib.import_module(f"dualmem_core.editor.{name}").__doc__
    assert doc is not None  # every stage module opens with a docstring
    summary = doc.strip().splitlines()[0]

    @asset(
        name=name,
        description=summary,
        partitions_def=users_partitions,
        group_name="editor",
        ins={"previous": AssetIn(before)},
        kinds={"python"},
        code_version=CODE_VERSION,
        io_manager_key=RUN_FOLDER_IO_MANAGER,
    )
    def _stage(context: AssetExecutionContext, llm: LLMResource, previous: Any) -> EditorSoFar:
        so_far = EditorSoFar(previous) if isinstance(previous, Snapshot) else previous
        judge = Judge(llm.llm)
        view = load_view(so_far.snapshot.folder)
        result = run_stage(name, view, list(so_far.results), editor_config(), judge)
        metadata = stage_metadata(result, so_far.snapshot, judge)
        context.add_output_metadata({**metadata, **layer_metadata(result)})
        return EditorSoFar(so_far.snapshot, (*so_far.results, result))

    return _stage


stage_assets = [stage_asset(name) for name in STAGES]


@asset(partitions_def=users_partitions, group_name="editor", ins={"so_far": AssetIn(STAGES[-1])},
       kinds={"python"}, code_version=CODE_VERSION, io_manager_key=RUN_FOLDER_IO_MANAGER)
def change_set(context: AssetExecutionContext, so_far: EditorSoFar) -> EditorSoFar:
    """Every stage's decisions folded into one change set for the user, checked before publish."""
    snapshot = so_far.snapshot
    changes = combine(load_view(snapshot.folder), list(so_far.results), snapshot.run_id)
    kinds = Counter(type(op).__name__ for op in changes.operations)
    context.add_output_metadata({
        **run_metadata(snapshot),
        "operations": len(changes.operations),
        "groups": len({op.group for op in changes.operations}),
        "by_operation": MetadataValue.json(dict(sorted(kinds.items()))),
    })
    return EditorSoFar(snapshot, so_far.results, changes)


@asset(partitions_def=users_partitions, group_name="editor", kinds={"python"}, code_version=CODE_VERSION)
def publish(
    context: AssetExecutionContext, store: StoreResource, change_set: EditorSoFar
) -> MaterializeResult:
    """The change set the checks passed, applied to the store in one transaction under the run id
    (once per run)."""
    snapshot = change_set.snapshot
    view = load_view(snapshot.folder)
    # The stage results give the run's record (counts, model calls); the change set applied is
    # the one the blocking checks examined, as they examined it.
    run = Editor(store.store).publish(
        view, list(change_set.results), snapshot.run_id, snapshot=snapshot.folder,
        started_at=snapshot.taken_at, changes=change_set.changes,
    )
    return MaterializeResult(metadata={
        **run_metadata(snapshot),
        # What the sensor counts new memories from: only a run that got this far resets it.
        "snapshot_memories": len(view.memories),
        "dagster/row_count": run.operations,  # operations applied
        "operations": run.operations,
        "skipped": len(run.skipped),
        "skipped_reasons": MetadataValue.json(run.skipped[:SAMPLE_ROWS]),
        "started_at": (MetadataValue.timestamp(snapshot.taken_at) if snapshot.taken_at
                       else MetadataValue.text("–")),
        "applied_at": (MetadataValue.timestamp(run.applied_at) if run.applied_at
                       else MetadataValue.text("nothing to publish")),
        "counts": MetadataValue.json(run.counts),
        "llm_calls": run.llm_calls,
        "llm_tokens": run.llm_tokens,
        "llm_failures": run.llm_failures,
        "duration_s": run.duration_s,
    })
