"""The snapshot: one user's graph as Parquet, the Editor's input and its rollback point."""

from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache
from pathlib import Path

from dagster import AssetExecutionContext, MetadataValue, asset

from dualmem_core.editor import GraphView, StageResult, new_run_id
from dualmem_core.store.changes import ChangeSet
from dualmem_core.store.snapshot import pipeline_snapshot_dir, write_snapshot
from dualmem_core.timeutil import utcnow

from ...users import users_partitions
from ..io.run_folder import RUN_FOLDER_IO_MANAGER
from ..store.resources import StoreResource


@dataclass(frozen=True)
class Snapshot:
    """What every later asset of one Editor run reads: whose graph, where, under which run id.

    The run id is made here, once per snapshot, so rerunning one stage later reuses it and
    publishing that rerun is still the same Editor run.
    """

    user_id: str
    run_id: str  # the Editor run's id, in the store's run record and its rollback
    folder: str
    snapshot_id: str  # the Dagster run that took it
    taken_at: datetime | None = None  # when the run began: its recorded duration counts from here


def snapshot_root(context: AssetExecutionContext) -> Path:
    """``DUALMEM_SNAPSHOT_DIR``, else ``$DAGSTER_HOME/storage/snapshots``, else ``snapshots`` in the
    user's data directory: folders forget scrubs (``snapshot_dirs``), never the temporary
    instance of a ``dagster dev`` without ``DAGSTER_HOME``, which a forget elsewhere cannot know."""
    return pipeline_snapshot_dir()


@dataclass(frozen=True)
class EditorSoFar:
    """What each asset after the snapshot passes on: the snapshot, every stage result so far
    and, from ``change_set`` on, the combined change set. Each stage reads only the asset
    before it, so the lineage is one chain, and every asset of a run holds the same run id."""

    snapshot: Snapshot
    results: tuple[StageResult, ...] = ()
    changes: ChangeSet | None = None


@lru_cache(maxsize=2)
def load_view(folder: str) -> GraphView:
    """The snapshot's view, read once per process (every stage of a run reads the same one)."""
    return GraphView.from_snapshot(folder)


@asset(partitions_def=users_partitions, group_name="editor", kinds={"parquet"},
       io_manager_key=RUN_FOLDER_IO_MANAGER)
def graph_snapshot(context: AssetExecutionContext, store: StoreResource) -> Snapshot:
    """One user's whole graph (every version and edge) exported to Parquet for this run."""
    user_id = context.partition_key
    taken_at = utcnow()
    graph = store.store.export_graph(user_id)
    run_id = new_run_id()
    folder = write_snapshot(snapshot_root(context) / user_id.replace("/", "_") / run_id, graph,
                            store.store.dimension)
    context.add_output_metadata({
        "snapshot": MetadataValue.path(str(folder)),
        "editor_run_id": run_id,
        "episodes": len(graph.episodes),
        "memories": len(graph.memories),
        "new_memories": sum(m.review_state == "new" for m in graph.memories),
        "versions": len(graph.versions),
        "entities": len(graph.entities),
        "edges": len(graph.edges),
    })
    return Snapshot(user_id, run_id, str(folder), context.run.run_id, taken_at)
