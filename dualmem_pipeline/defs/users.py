"""Whom the Editor works for: one dynamic partition per user of the store."""

from dagster import DagsterInstance, DagsterRunStatus, DynamicPartitionsDefinition, RunsFilter

from dualmem_core import InvalidInput
from dualmem_core.store.validate import check_user_id

users_partitions = DynamicPartitionsDefinition(name="users")

_IN_FLIGHT = [
    DagsterRunStatus.QUEUED,
    DagsterRunStatus.NOT_STARTED,
    DagsterRunStatus.STARTING,
    DagsterRunStatus.STARTED,
]


def editor_run_in_flight(instance: DagsterInstance, user_id: str, job_name: str) -> bool:
    """Whether a run of ``job_name`` for this user's partition is queued or running."""
    runs = instance.get_run_records(
        RunsFilter(job_name=job_name, tags={"dagster/partition": user_id}, statuses=_IN_FLIGHT), limit=1
    )
    return bool(runs)


def usable_partition_key(user_id: str) -> bool:
    """The store's user id rule already keeps out what Dagster refuses in partition keys
    (``...``, control characters); only ids stored before that rule can fail it."""
    try:
        check_user_id(user_id)
    except InvalidInput:
        return False
    return True


def one_run_per_user(instance: DagsterInstance) -> bool:
    """Whether the instance queues a user's second run behind the first (``dagster.yaml``'s
    run_queue): Dagster reads that file from DAGSTER_HOME when it is set, not from this folder."""
    try:
        limits = instance.get_concurrency_config().run_queue_config.tag_concurrency_limits
    except Exception:  # no run queue at all (another run coordinator): no such limit either
        return False
    return any(limit.get("key") == "dagster/partition" and limit.get("limit") == 1
               and (limit.get("value") or {}).get("applyLimitPerUniqueValue") for limit in limits)
