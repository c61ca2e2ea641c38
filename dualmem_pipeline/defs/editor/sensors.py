"""The fast rate of the dual-rate trigger: a user's Editor runs once enough new memories arrive.

"Since the last run" is measured against the memory count of the snapshot that the user's latest
*published* run read (``publish`` records it as ``snapshot_memories``), so a run from any trigger
(this sensor, the nightly schedule, the UI) resets it once it publishes, and a run whose publish
was blocked (or failed) resets nothing: its memories are still new, and still count.

The sensor keeps those counts in its cursor with the storage id of the last ``publish`` it read,
so a tick reads Dagster's event log once for every user (the publishes since the last tick), not
once per user. The store is read once for its users and once per user for their memory count:
one store read per tick needs a store method that counts every user's new memories at once
(docs/editor.md says so).

The sensor is on from the first start (``default_status``): its first tick adds a partition for
every user already in the store (after ``dualmem demo`` or an import), so there is something to
run without adding partitions by hand. A partition whose user is no longer in the store
(``dualmem forget --everything``) is deleted at the next tick, so no trigger launches a run for
a forgotten user and the id leaves Dagster's partition list. It can be switched off in the UI like
any sensor.
"""

import json
import os
from typing import cast

from dagster import (
    AddDynamicPartitionsRequest,
    AssetKey,
    AssetRecordsFilter,
    DagsterInstance,
    DefaultSensorStatus,
    DeleteDynamicPartitionsRequest,
    EventLogRecord,
    RunRequest,
    SensorEvaluationContext,
    SensorResult,
    sensor,
)

from ...users import (
    editor_run_in_flight,
    one_run_per_user,
    stale_partitions,
    usable_partition_key,
    users_partitions,
)
from ..store.resources import StoreResource
from . import jobs

DEFAULT_NEW_MEMORIES = 20
PAGE = 1000  # publish records read per event-log query while catching up


def new_memories_threshold() -> int:
    """``DUALMEM_EDITOR_NEW_MEMORIES``: how many new memories start a user's run (default 20)."""
    raw = os.environ.get("DUALMEM_EDITOR_NEW_MEMORIES", "").strip()
    return max(int(raw), 1) if raw else DEFAULT_NEW_MEMORIES


def _int_metadata(record: EventLogRecord, key: str) -> int | None:
    materialization = record.asset_materialization
    value = materialization.metadata.get(key) if materialization is not None else None
    return int(cast(int, value.value)) if value is not None else None


def snapshot_memories(instance: DagsterInstance, record: EventLogRecord) -> int:
    """The memory count of the snapshot a ``publish`` materialization applied. A publish recorded
    before ``snapshot_memories`` existed names its snapshot's Dagster run (``snapshot_id``): that
    run's ``graph_snapshot`` has the count."""
    count = _int_metadata(record, "snapshot_memories")
    if count is not None:
        return count
    materialization = record.asset_materialization
    snapshot_run = materialization.metadata.get("snapshot_id") if materialization is not None else None
    partition = record.partition_key
    if snapshot_run is None or partition is None:
        return 0
    for snap in instance.fetch_materializations(
        AssetRecordsFilter(asset_key=AssetKey("graph_snapshot"), asset_partitions=[partition]), limit=20
    ).records:
        if snap.run_id == snapshot_run.value:
            return _int_metadata(snap, "memories") or 0
    return 0


def read_cursor(raw: str | None) -> tuple[int | None, dict[str, int]]:
    """(storage id of the last publish read, each user's memories at its last published snapshot)."""
    if not raw:
        return None, {}
    data = json.loads(raw)
    return data.get("after"), {str(k): int(v) for k, v in data.get("published", {}).items()}


def catch_up(instance: DagsterInstance, after: int | None, published: dict[str, int]) -> int | None:
    """Fold every ``publish`` since ``after`` into ``published``; the new ``after``."""
    while True:
        page = instance.fetch_materializations(
            AssetRecordsFilter(asset_key=AssetKey("publish"), after_storage_id=after),
            limit=PAGE, ascending=True,
        )
        for record in page.records:
            after = record.storage_id
            if record.partition_key is not None:
                published[record.partition_key] = snapshot_memories(instance, record)
        if not page.has_more or not page.records:
            return after


@sensor(job=jobs.editor_job, minimum_interval_seconds=60, default_status=DefaultSensorStatus.RUNNING)
def new_memories_sensor(context: SensorEvaluationContext, store: StoreResource) -> SensorResult:
    """Adds a partition per new user and deletes the partitions of users no longer stored; requests a
    user's run once N memories arrived since the last published run."""
    threshold = new_memories_threshold()
    if not one_run_per_user(context.instance):  # said at every tick until fixed: runs may overlap
        context.log.warning("this Dagster instance does not limit runs to one per user: with "
                             "DAGSTER_HOME set, copy dualmem's dagster.yaml into $DAGSTER_HOME")
    assert users_partitions.name is not None  # defined with a name in users.py
    known = set(context.instance.get_dynamic_partitions(users_partitions.name))
    stored = store.store.list_users()
    users = [u for u in stored if usable_partition_key(u)]
    after, published = read_cursor(context.cursor)
    after = catch_up(context.instance, after, published)
    gone = stale_partitions(known, stored)
    present = set(stored)
    for user_id in [u for u in published if u not in present]:
        del published[user_id]  # forgotten: a user of that id later starts from nothing
    requests = []
    for user_id in users:
        memories = store.store.counts(user_id)["memories"]
        arrived = memories - published.get(user_id, 0)
        if arrived >= threshold and not editor_run_in_flight(context.instance, user_id, jobs.editor_job.name):
            requests.append(RunRequest(run_key=f"new:{user_id}:{memories}", partition_key=user_id,
                                       tags={"dualmem/trigger": "new_memories"}))
    added = [u for u in users if u not in known]
    partition_requests: list[AddDynamicPartitionsRequest | DeleteDynamicPartitionsRequest] = []
    if added:
        partition_requests.append(users_partitions.build_add_request(added))
    if gone:
        context.log.info(f"deleting {len(gone)} partition(s) of users no longer in the store")
        partition_requests.append(users_partitions.build_delete_request(gone))
    return SensorResult(
        run_requests=requests,
        dynamic_partitions_requests=partition_requests,
        cursor=json.dumps({"after": after, "published": published}, sort_keys=True),
    )
