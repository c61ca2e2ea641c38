"""The fast rate of the dual-rate trigger: a user's Editor runs once enough new memories arrive.

"Since the last run" is measured against the memory count the latest ``graph_snapshot`` of the
user recorded, so a run from any trigger (this sensor, the nightly schedule, the UI) resets it.

The sensor is on from the first start (``default_status``): its first tick adds a partition for
every user already in the store (after ``dualmem demo`` or an import), so there is something to
run without adding partitions by hand. It can be switched off in the UI like any sensor.
"""

import os
from typing import cast

from dagster import (
    AssetKey,
    AssetRecordsFilter,
    DagsterInstance,
    DefaultSensorStatus,
    RunRequest,
    SensorEvaluationContext,
    SensorResult,
    sensor,
)

from ...users import editor_run_in_flight, one_run_per_user, usable_partition_key, users_partitions
from ..store.resources import StoreResource
from . import jobs

DEFAULT_NEW_MEMORIES = 20


def new_memories_threshold() -> int:
    """``DUALMEM_EDITOR_NEW_MEMORIES``: how many new memories start a user's run (default 20)."""
    raw = os.environ.get("DUALMEM_EDITOR_NEW_MEMORIES", "").strip()
    return max(int(raw), 1) if raw else DEFAULT_NEW_MEMORIES


def memories_at_last_snapshot(instance: DagsterInstance, user_id: str) -> int:
    records = instance.fetch_materializations(
        AssetRecordsFilter(asset_key=AssetKey("graph_snapshot"), asset_partitions=[user_id]), limit=1
    ).records
    if not records:
        return 0
    materialization = records[0].asset_materialization
    assert materialization is not None  # fetch_materializations returns materialization records
    value = materialization.metadata.get("memories")
    # graph_snapshot records its memory count as an int
    return int(cast(int, value.value)) if value is not None else 0


@sensor(job=jobs.editor_job, minimum_interval_seconds=60, default_status=DefaultSensorStatus.RUNNING)
def new_memories_sensor(context: SensorEvaluationContext, store: StoreResource) -> SensorResult:
    """Adds a partition per new user; requests a user's run once N memories arrived since the last."""
    threshold = new_memories_threshold()
    if not one_run_per_user(context.instance):  # said at every tick until fixed: runs may overlap
        context.log.warning("this Dagster instance does not limit runs to one per user: with "
                             "DAGSTER_HOME set, copy dualmem's dagster.yaml into $DAGSTER_HOME")
    assert users_partitions.name is not None  # defined with a name in users.py
    known = set(context.instance.get_dynamic_partitions(users_partitions.name))
    users = [u for u in store.store.list_users() if usable_partition_key(u)]
    requests = []
    for user_id in users:
        memories = store.store.counts(user_id)["memories"]
        arrived = memories - memories_at_last_snapshot(context.instance, user_id)
        if arrived >= threshold and not editor_run_in_flight(context.instance, user_id, jobs.editor_job.name):
            requests.append(RunRequest(run_key=f"new:{user_id}:{memories}", partition_key=user_id,
                                       tags={"dualmem/trigger": "new_memories"}))
    added = [u for u in users if u not in known]
    return SensorResult(
        run_requests=requests,
        dynamic_partitions_requests=[users_partitions.build_add_request(added)] if added else [],
    )
