"""A first ``dagster dev`` after ``dualmem demo`` or an import has partitions to run: the sensor
is on from the start and adds every stored user at its first tick; the shipped instance config
queues one run per user, sends no telemetry and shows no community popup."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import yaml
from conftest import DIM
from dagster import DagsterInstance, DefaultSensorStatus, build_sensor_context, instance_for_test

from dualmem_core import Writer, open_store
from dualmem_core.providers import HashingEmbedder
from dualmem_pipeline.definitions import build_definitions
from dualmem_pipeline.defs.editor.sensors import new_memories_sensor
from dualmem_pipeline.defs.store.resources import StoreResource
from dualmem_pipeline.users import one_run_per_user

SHIPPED = Path(__file__).resolve().parents[2] / "dagster.yaml"


def test_the_sensor_is_on_from_the_first_start() -> None:
    sensor = build_definitions().resolve_sensor_def("new_memories_sensor")
    assert sensor.default_status == DefaultSensorStatus.RUNNING


def test_its_first_tick_adds_every_stored_user(tmp_path) -> None:
    url = f"sqlite:///{tmp_path / 'memory.db'}"
    with open_store(url, dimension=DIM) as store:  # what an import leaves: users, no Dagster state
        writer = Writer(store, embedder=HashingEmbedder(DIM))
        for user in ("ana", "ben", "chloe"):
            writer.remember("I live in Lisbon.", user_id=user, at=datetime(2026, 1, 5, tzinfo=UTC))
    with instance_for_test() as instance:
        assert instance.get_dynamic_partitions("users") == []
        resources = {"store": StoreResource(url=url, dimension=DIM)}
        with build_sensor_context(instance=instance, resources=resources) as context:
            first = new_memories_sensor(context)
    [added] = first.dynamic_partitions_requests
    assert (added.partitions_def_name, sorted(added.partition_keys)) == ("users", ["ana", "ben", "chloe"])


def test_the_shipped_config_queues_one_run_per_user_and_phones_nobody_home() -> None:
    overrides = yaml.safe_load(SHIPPED.read_text())
    with instance_for_test(overrides=overrides) as instance:
        assert one_run_per_user(instance)
        assert not instance.telemetry_enabled
        assert not instance.nux_enabled  # the "Join the Dagster community" popup
    with instance_for_test() as instance:  # Dagster's defaults: the sensor warns at each tick
        assert not one_run_per_user(instance)


def test_with_dagster_home_set_the_copied_file_applies(tmp_path, monkeypatch, capfd) -> None:
    """What the README says to do: Dagster then reads $DAGSTER_HOME/dagster.yaml, not ours."""
    home = tmp_path / "dagster_home"
    home.mkdir()
    monkeypatch.setenv("DAGSTER_HOME", str(home))
    url = f"sqlite:///{tmp_path / 'memory.db'}"
    open_store(url, dimension=DIM).close()
    with DagsterInstance.get() as instance:
        assert not one_run_per_user(instance)
        with build_sensor_context(instance=instance,
                                  resources={"store": StoreResource(url=url, dimension=DIM)}) as context:
            new_memories_sensor(context)
    assert "copy dualmem's dagster.yaml into $DAGSTER_HOME" in capfd.readouterr().err
    (home / "dagster.yaml").write_text(SHIPPED.read_text())
    with DagsterInstance.get() as instance:
        assert one_run_per_user(instance) and not instance.telemetry_enabled


def test_partitions_can_be_synced_for_the_dagster_cli_without_a_tick(tmp_path, monkeypatch, capsys) -> None:
    from dualmem_pipeline import users

    monkeypatch.delenv("DAGSTER_HOME", raising=False)
    assert users.main() == 2
    home = tmp_path / "dagster_home"
    home.mkdir()
    (home / "dagster.yaml").write_text(SHIPPED.read_text())
    url = f"sqlite:///{tmp_path / 'memory.db'}"
    monkeypatch.setenv("DAGSTER_HOME", str(home))
    monkeypatch.setenv("DUALMEM_STORE", url)
    with open_store(url, dimension=DIM) as store:
        Writer(store, embedder=HashingEmbedder(DIM)).remember("Hi.", user_id="ana")
    with DagsterInstance.get() as instance:
        instance.add_dynamic_partitions("users", ["old"])
    assert users.main() == 0
    out = capsys.readouterr().out
    assert "1 partition(s) added, 1 user(s) in the store: ana" in out
    assert "1 partition(s) deleted: their users are no longer in the store" in out  # "old"
    assert users.main() == 0 and "0 partition(s) added" in capsys.readouterr().out  # idempotent
    with DagsterInstance.get() as instance:
        assert instance.get_dynamic_partitions("users") == ["ana"]
    assert users.forget_partition("ana") and not users.forget_partition("ana")  # after a forget
    with DagsterInstance.get() as instance:
        assert instance.get_dynamic_partitions("users") == []
    monkeypatch.delenv("DAGSTER_HOME")
    assert not users.forget_partition("ana")
