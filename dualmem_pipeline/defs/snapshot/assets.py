"""The snapshot: one user's graph as Parquet, the Editor's input and its rollback point."""


import os
from pathlib import Path

from dagster import AssetExecutionContext, DynamicPartitionsDefinition, MetadataValue, asset

from dualmem_core.store.snapshot import write_snapshot

from ..store.resources import StoreResource

users_partitions = DynamicPartitionsDefinition(name="users")


def snapshot_root() -> Path:
    """``DUALMEM_SNAPSHOT_DIR``, else ``snapshots/`` under the Dagster home or the cwd."""
    configured = os.environ.get("DUALMEM_SNAPSHOT_DIR")
    if configured:
        return Path(configured)
    return Path(os.environ.get("DAGSTER_HOME", ".")) / "snapshots"


@asset(partitions_def=users_partitions, group_name="editor", kinds={"parquet"})
def graph_snapshot(context: AssetExecutionContext, store: StoreResource) -> None:
    """One user's whole graph (every version and edge) exported to Parquet for this run."""
    user_id = context.partition_key
    graph = store.store.export_graph(user_id)
    folder = snapshot_root() / user_id.replace("/", "_") / context.run.run_id
    write_snapshot(folder, graph, store.store.dimension)
    context.add_output_metadata({
        "path": MetadataValue.path(str(folder)),
        "episodes": len(graph.episodes),
        "memories": len(graph.memories),
        "versions": len(graph.versions),
        "entities": len(graph.entities),
        "edges": len(graph.edges),
    })
