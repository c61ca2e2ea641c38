"""Dagster forgets a forgotten user: the sensor deletes the partition of a user no longer in the
store, so neither it nor the nightly schedule launches a run for that user again. The sensor's
count of new memories lives in its cursor and is reset only by a run that published."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from conftest import DIM
from dagster import (
    AddDynamicPartitionsRequest,
    DagsterInstance,
    RunRequest,
    SensorResult,
    SkipReason,
    build_schedule_context,
    build_sensor_context,
    instance_for_test,
)
from test_pipeline import EDITOR, MOVE, corrupt_confidence, run_editor, say

from dualmem_core import open_store
from dualmem_pipeline.defs.editor.assets import stage_assets
from dualmem_pipeline.defs.editor.schedules import nightly_editor_schedule
from dualmem_pipeline.defs.editor.sensors import new_memories_sensor, read_cursor
from dualmem_pipeline.defs.store.resources import StoreResource
from dualmem_pipeline.users import delete_partitions

NIGHT = datetime(2026, 3, 3, 3, tzinfo=UTC)


@pytest.fixture
def instance():
    with instance_for_test() as instance:  # a real instance in a temporary DAGSTER_HOME
        yield instance


@pytest.fixture
def url(tmp_path, monkeypatch) -> str:
    monkeypatch.setenv("DUALMEM_SNAPSHOT_DIR", str(tmp_path / "snaps"))
    monkeypatch.setenv("DUALMEM_EDITOR_NEW_MEMORIES", "2")
    return f"sqlite:///{tmp_path / 'memory.db'}"


class Sensor:
    """The sensor ticking as the daemon runs it: the cursor carried from tick to tick, and its
    partition requests applied to the instance (as ``dagster._daemon.sensor`` does)."""

    def __init__(self, instance: DagsterInstance, url: str) -> None:
        self.instance, self.store, self.cursor = instance, StoreResource(url=url, dimension=DIM), None

    def tick(self) -> SensorResult:
        with build_sensor_context(instance=self.instance, resources={"store": self.store},
                                  cursor=self.cursor) as context:
            result = new_memories_sensor(context)
        self.cursor = result.cursor
        for request in result.dynamic_partitions_requests:
            if isinstance(request, AddDynamicPartitionsRequest):
                new = [k for k in request.partition_keys
                       if not self.instance.has_dynamic_partition("users", k)]
                self.instance.add_dynamic_partitions("users", new)
            else:
                delete_partitions(self.instance, request.partition_keys)
        return result


def requested(result: SensorResult) -> list[str | None]:
    return sorted(r.partition_key for r in result.run_requests)


def nightly(instance: DagsterInstance, url: str) -> list[RunRequest | SkipReason]:
    with build_schedule_context(instance, scheduled_execution_time=NIGHT,
                                resources={"store": StoreResource(url=url, dimension=DIM)}) as context:
        return list(nightly_editor_schedule(context))


def test_a_forgotten_users_partition_is_deleted_and_gets_no_more_runs(instance, url) -> None:
    say(url, "ana", MOVE)
    say(url, "ben", MOVE)
    sensor = Sensor(instance, url)
    assert requested(sensor.tick()) == ["ana", "ben"]
    assert sorted(instance.get_dynamic_partitions("users")) == ["ana", "ben"]
    assert run_editor(instance, url, "ana").success  # ana has runs, tags and events in Dagster

    with open_store(url, dimension=DIM) as store:  # what `dualmem forget --everything` does
        store.delete_user("ana")
    result = sensor.tick()
    [delete] = result.dynamic_partitions_requests
    assert (delete.partitions_def_name, list(delete.partition_keys)) == ("users", ["ana"])
    assert instance.get_dynamic_partitions("users") == ["ben"]
    assert requested(result) == ["ben"]  # ben has not run yet
    assert "ana" not in read_cursor(sensor.cursor)[1]  # nor kept in the sensor's cursor

    assert [getattr(r, "partition_key", None) for r in nightly(instance, url)] == ["ben"]
    say(url, "ben", [("I work at Acme.", datetime(2026, 3, 5, tzinfo=UTC))])
    again = sensor.tick()
    assert "ana" not in requested(again) and again.dynamic_partitions_requests == []


def test_the_schedule_skips_a_forgotten_user_before_the_sensor_ticks(instance, url) -> None:
    say(url, "ana", MOVE)
    instance.add_dynamic_partitions("users", ["ana"])
    with open_store(url, dimension=DIM) as store:
        store.delete_user("ana")
    [skip] = nightly(instance, url)  # the sensor is off, or has not ticked since the forget
    assert isinstance(skip, SkipReason)


def test_a_blocked_publish_does_not_reset_the_count(instance, url) -> None:
    say(url, "u1", MOVE)
    sensor = Sensor(instance, url)
    assert requested(sensor.tick()) == ["u1"]
    broken = [a for a in EDITOR if a not in stage_assets[-1:]] + [corrupt_confidence]
    blocked = run_editor(instance, url, "u1", assets=broken, raise_on_error=False)
    assert not blocked.success and not blocked.asset_materializations_for_node("publish")
    assert requested(sensor.tick()) == ["u1"], "the snapshot was taken, but nothing was published"
    assert run_editor(instance, url, "u1").success
    assert requested(sensor.tick()) == []
    memories = read_cursor(sensor.cursor)[1]["u1"]
    assert memories > 0


def test_a_tick_reads_dagsters_event_log_once_for_all_users(instance, url, monkeypatch) -> None:
    """The publishes since the last tick, from the cursor: not one query per user."""
    for user in ("a", "b", "c", "d"):
        say(url, user, MOVE)
    sensor = Sensor(instance, url)
    sensor.tick()
    for user in ("a", "b"):
        assert run_editor(instance, url, user).success
    calls: list[object] = []
    fetch = instance.fetch_materializations
    monkeypatch.setattr(instance, "fetch_materializations",
                        lambda *a, **kw: calls.append(a) or fetch(*a, **kw))
    assert requested(sensor.tick()) == ["c", "d"]
    assert len(calls) == 1
    assert sorted(read_cursor(sensor.cursor)[1]) == ["a", "b"]
    calls.clear()
    assert requested(sensor.tick()) == ["c", "d"] and len(calls) == 1


def test_a_publish_recorded_before_snapshot_memories_counts_from_its_snapshot(instance, url) -> None:
    """A publish materialized by an older dualmem names its snapshot's run: that run's count holds."""
    from dagster import AssetKey, AssetMaterialization, AssetRecordsFilter

    from dualmem_pipeline.defs.editor.sensors import snapshot_memories

    say(url, "u1", MOVE)
    assert run_editor(instance, url, "u1").success
    [snap] = instance.fetch_materializations(
        AssetRecordsFilter(asset_key=AssetKey("graph_snapshot"), asset_partitions=["u1"]), limit=1).records
    instance.report_runless_asset_event(AssetMaterialization(
        "publish", partition="u1", metadata={"snapshot_id": snap.run_id}))
    [old] = instance.fetch_materializations(
        AssetRecordsFilter(asset_key=AssetKey("publish"), asset_partitions=["u1"]), limit=1).records
    assert "snapshot_memories" not in old.asset_materialization.metadata
    with open_store(url, dimension=DIM) as store:
        assert snapshot_memories(instance, old) == store.counts("u1")["memories"] > 0
