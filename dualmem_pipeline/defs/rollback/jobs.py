"""Undo one Editor run exactly, from the UI's launchpad: ``run_id`` (and optionally ``user_id``,
``cascade``) as run config."""

from dagster import (
    AssetObservation,
    Config,
    MetadataValue,
    OpExecutionContext,
    in_process_executor,
    job,
    op,
)
from pydantic import Field

from dualmem_core.editor import Editor, EditorRun

from ..store.resources import StoreResource


class RollbackConfig(Config):
    run_id: str = Field(description="The Editor run to undo: the editor_run_id in publish's metadata.")
    user_id: str = Field(default="", description="Whose run it is; found from the run id when empty.")
    cascade: bool = Field(
        default=False, description="Also undo later runs that changed the same memories, newest first."
    )


@op
def rollback_editor_run(context: OpExecutionContext, config: RollbackConfig, store: StoreResource) -> None:
    """Applies the run's exact inverse from its journal, keeping what the Writer wrote since."""
    user_id = config.user_id or None
    undone = Editor(store.store).rollback(config.run_id, user_id=user_id, cascade=config.cascade)
    metadata = {
        "rolled_back_run_id": config.run_id,
        "rollback_run_id": undone.run_id,
        "operations": undone.operations,
        "skipped": len(undone.skipped),
        # What the undone run had decided, stage by stage (a rollback record counts nothing).
        "undone_counts": MetadataValue.json(
            EditorRun.from_record(store.store.get_run(undone.user_id, config.run_id)).counts),
    }
    # On publish's page, for the user's partition: the run it shows was undone, and by what.
    context.log_event(AssetObservation("publish", partition=undone.user_id, metadata=metadata))
    context.log.info(f"rolled back {config.run_id} for {undone.user_id}: {metadata}")


@job(executor_def=in_process_executor)
def rollback_job() -> None:
    """Undo one Editor run (``run_id`` in the run config)."""
    rollback_editor_run()
