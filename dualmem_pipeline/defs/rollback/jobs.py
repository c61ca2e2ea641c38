"""Undo one Editor run exactly, from the UI's launchpad: the user's partition, and ``run_id`` (and
optionally ``cascade``) as run config.

The job is partitioned by user like the Editor's assets, so ``dagster.yaml``'s one-run-per-user
limit (on the ``dagster/partition`` tag) queues a rollback behind that user's Editor run, and the
other way round. A run launched without a partition still works as before (the user is then
``user_id``, or found from the run id) but is outside that limit, and says so in its log.
"""

from dagster import (
    AssetObservation,
    Config,
    Failure,
    MetadataValue,
    OpExecutionContext,
    in_process_executor,
    job,
    op,
)
from pydantic import Field

from dualmem_core.editor import Editor, EditorRun

from ...users import users_partitions
from ..store.resources import StoreResource


class RollbackConfig(Config):
    run_id: str = Field(description="The Editor run to undo: the editor_run_id in publish's metadata.")
    user_id: str = Field(
        default="", description="Whose run it is; the run's partition, or found from the run id, when empty."
    )
    cascade: bool = Field(
        default=False, description="Also undo later runs that changed the same memories, newest first."
    )


@op
def rollback_editor_run(context: OpExecutionContext, config: RollbackConfig, store: StoreResource) -> None:
    """Applies the run's exact inverse from its journal, keeping what the Writer wrote since."""
    partition = context.partition_key if context.has_partition_key else None
    if partition and config.user_id and config.user_id != partition:
        raise Failure(f"user_id {config.user_id!r} is not this run's partition {partition!r}: "
                      "leave user_id empty, or launch the rollback for that user's partition")
    if partition is None:
        context.log.warning("no user partition: the one-run-per-user limit does not cover this "
                            "rollback; launch it for the user's partition instead")
    user_id = config.user_id or partition
    undone = Editor(store.store).rollback(config.run_id, user_id=user_id, cascade=config.cascade)
    metadata: dict[str, str | int | MetadataValue] = {
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


@job(partitions_def=users_partitions, executor_def=in_process_executor)
def rollback_job() -> None:
    """Undo one Editor run of the partition's user (``run_id`` in the run config)."""
    rollback_editor_run()
