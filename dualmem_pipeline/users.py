"""Whom the Editor works for: one dynamic partition per user of the store."""

from collections.abc import Iterable

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
    ``concurrency: runs:``, or the older ``run_queue:``): Dagster reads that file from DAGSTER_HOME
    when it is set, not from this folder."""
    try:
        run_queue = instance.get_concurrency_config().run_queue_config
        if run_queue is None:  # no run queue at all: no such limit either
            return False
        limits = run_queue.tag_concurrency_limits
    except Exception:  # no run queue at all (another run coordinator): no such limit either
        return False
    return any(limit.get("key") == "dagster/partition" and limit.get("limit") == 1
               and (limit.get("value") or {}).get("applyLimitPerUniqueValue") for limit in limits)


def sync_partitions(instance: DagsterInstance, user_ids: list[str]) -> list[str]:
    """Add a partition for each stored user the instance lacks; the ones added, in order."""
    assert users_partitions.name is not None  # defined with a name above
    known = set(instance.get_dynamic_partitions(users_partitions.name))
    added = [u for u in dict.fromkeys(user_ids) if u not in known and usable_partition_key(u)]
    if added:
        instance.add_dynamic_partitions(users_partitions.name, added)
    return added


def stale_partitions(known: Iterable[str], stored_users: Iterable[str]) -> list[str]:
    """The partitions whose user is no longer in the store (forgotten), sorted."""
    present = set(stored_users)
    return sorted(p for p in known if p not in present)


def delete_partitions(instance: DagsterInstance, user_ids: Iterable[str]) -> list[str]:
    """Delete these users' partitions where the instance has them; the ones deleted."""
    assert users_partitions.name is not None  # defined with a name above
    deleted = []
    for user_id in dict.fromkeys(user_ids):
        if instance.has_dynamic_partition(users_partitions.name, user_id):
            instance.delete_dynamic_partition(users_partitions.name, user_id)
            deleted.append(user_id)
    return deleted


def forget_partition(user_id: str) -> bool:
    """Delete a forgotten user's partition now from the instance in DAGSTER_HOME, without waiting
    for the sensor's next tick; False when DAGSTER_HOME is unset or the instance had none."""
    import os

    if not os.environ.get("DAGSTER_HOME"):
        return False
    with DagsterInstance.get() as instance:
        return bool(delete_partitions(instance, [user_id]))


def delete_user_runs(instance: DagsterInstance, user_id: str) -> tuple[int, int]:
    """Delete the user's finished runs (any job partitioned by user) and their event logs; the
    counts deleted and left in flight (a queued or running run is left alone: deleting its records
    under it would break it; it finds the user gone and a later purge takes it)."""
    records = instance.get_run_records(RunsFilter(tags={"dagster/partition": user_id}))
    in_flight = [r for r in records if r.dagster_run.status in _IN_FLIGHT]
    for record in records:
        if record.dagster_run.status not in _IN_FLIGHT:
            instance.delete_run(record.dagster_run.run_id)  # the run and every event it logged
    return len(records) - len(in_flight), len(in_flight)


def main() -> int:
    """``python -m dualmem_pipeline.users``: the sensor's partition changes, made now, in the
    instance in DAGSTER_HOME: a partition added per stored user, for ``dagster asset materialize
    --partition <user>`` before any sensor tick, and the partitions of users no longer in the store
    (forgotten) deleted. (Without DAGSTER_HOME, ``dagster dev`` keeps its instance in a folder
    deleted at exit: there is nothing to change, and the sensor's first tick does it.)"""
    import os
    import sys

    from dualmem_core import open_store
    from dualmem_core.errors import DualmemError
    from dualmem_core.settings import resolve_settings

    if not os.environ.get("DAGSTER_HOME"):
        print("DAGSTER_HOME is not set: no Dagster instance to add partitions to", file=sys.stderr)
        return 2
    try:
        with open_store(resolve_settings().store_url, create=False) as store:
            users = store.list_users()
    except DualmemError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    assert users_partitions.name is not None  # defined with a name above
    with DagsterInstance.get() as instance:
        added = sync_partitions(instance, users)
        deleted = delete_partitions(
            instance, stale_partitions(instance.get_dynamic_partitions(users_partitions.name), users))
    print(f"{len(added)} partition(s) added, {len(users)} user(s) in the store" + (
        f": {', '.join(added)}" if added else ""))
    if deleted:  # counted, not named: these ids were forgotten
        print(f"{len(deleted)} partition(s) deleted: their users are no longer in the store")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
