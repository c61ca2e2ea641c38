"""`dualmem forget --everything` reaches Dagster at once through the ``dualmem.on_forget`` entry point:
the user's partition is deleted before any sensor tick (so neither the sensor nor the schedule
launches a run for them), ``--purge-runs`` deletes their runs and those runs' event logs, and a
failing hook is reported without undoing the forget.

The venv was installed from an older pyproject.toml, so its metadata may lack the entry point: the
``registered`` fixture writes the entry points pyproject.toml declares into a distribution on
sys.path, which ``importlib.metadata`` reads as it reads an installed one.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
from dagster import AssetKey, AssetRecordsFilter, RunsFilter, instance_for_test
from test_pipeline import MOVE, run_editor, say
from test_pipeline_forget import Sensor, nightly, requested

from dualmem_core.cli import main
from dualmem_core.integrations.forget_hooks import GROUP
from dualmem_pipeline.forget_hook import on_forget

ROOT = Path(__file__).resolve().parents[2]
DECLARED = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["entry-points"]


def broken_hook(user_id: str, *, purge_runs: bool = False) -> str:
    raise RuntimeError(f"cannot reach the other system for {user_id}")


def register(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, groups: dict[str, dict[str, str]]) -> None:
    """An installed-looking ``dualmem`` distribution with these entry points, first on sys.path."""
    info = tmp_path / "site" / "dualmem-0.1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: dualmem\nVersion: 0.1.0\n")
    (info / "entry_points.txt").write_text("".join(
        f"[{group}]\n" + "".join(f"{name} = {value}\n" for name, value in points.items())
        for group, points in groups.items()))
    monkeypatch.syspath_prepend(str(info.parent))


@pytest.fixture
def registered(tmp_path, monkeypatch) -> None:
    register(tmp_path, monkeypatch, {GROUP: DECLARED[GROUP]})


@pytest.fixture
def instance():
    with instance_for_test() as instance:  # a real instance; DAGSTER_HOME points at it meanwhile
        yield instance


@pytest.fixture
def url(tmp_path, monkeypatch) -> str:
    monkeypatch.setenv("DUALMEM_SNAPSHOT_DIR", str(tmp_path / "snaps"))
    monkeypatch.setenv("DUALMEM_EDITOR_NEW_MEMORIES", "2")
    return f"sqlite:///{tmp_path / 'memory.db'}"


def forget(url: str, user: str, *flags: str) -> int:
    return main(["forget", "--store", url, "--user", user, "--everything", "--yes", *flags])


def test_pyproject_registers_the_pipelines_hook() -> None:
    assert DECLARED[GROUP] == {"dagster": "dualmem_pipeline.forget_hook:on_forget"}


def test_the_cli_forget_deletes_the_partition_and_no_run_follows(registered, instance, url, capsys) -> None:
    say(url, "ana", MOVE)
    say(url, "ben", MOVE)
    sensor = Sensor(instance, url)
    assert requested(sensor.tick()) == ["ana", "ben"]
    assert run_editor(instance, url, "ana").success
    [ana_run] = instance.get_run_records(RunsFilter(tags={"dagster/partition": "ana"}))

    assert forget(url, "ana") == 0
    assert "Dagster: partition deleted" in capsys.readouterr().out
    assert instance.get_dynamic_partitions("users") == ["ben"]  # before any tick
    assert instance.get_run_records(RunsFilter(tags={"dagster/partition": "ana"}))  # no purge asked
    result = sensor.tick()
    assert result.dynamic_partitions_requests == [] and requested(result) == ["ben"]
    assert [getattr(r, "partition_key", None) for r in nightly(instance, url)] == ["ben"]

    assert forget(url, "ana", "--purge-runs") == 0  # again, now purging the runs
    assert "no partition to delete; 1 run(s) deleted" in capsys.readouterr().out
    assert instance.get_run_records(RunsFilter(tags={"dagster/partition": "ana"})) == []
    assert instance.all_logs(ana_run.dagster_run.run_id) == []
    published = instance.fetch_materializations(
        AssetRecordsFilter(asset_key=AssetKey("publish"), asset_partitions=["ana"]), limit=5).records
    assert published == []


def test_purge_runs_needs_everything(url, capsys) -> None:
    assert main(["forget", "--store", url, "--user", "ana", "--source-id", "m1", "--purge-runs"]) == 2
    assert "--purge-runs" in capsys.readouterr().err


def test_a_failing_hook_is_reported_and_the_forget_stands(tmp_path, monkeypatch, instance, url,
                                                          capsys) -> None:
    register(tmp_path, monkeypatch, {GROUP: {
        "broken": "test_pipeline_forget_hook:broken_hook", **DECLARED[GROUP]}})
    say(url, "ana", MOVE)
    instance.add_dynamic_partitions("users", ["ana"])
    assert forget(url, "ana") == 0
    out, err = capsys.readouterr()
    assert "a forget hook failed: broken: RuntimeError: cannot reach the other system for ana" in err
    assert "Dagster: partition deleted" in out  # the other hook still ran
    assert main(["recall", "--store", url, "--user", "ana", "where do I live"]) == 0
    assert "no memories of ana match" in capsys.readouterr().out


def test_without_dagster_home_the_hook_does_nothing(monkeypatch) -> None:
    monkeypatch.delenv("DAGSTER_HOME", raising=False)
    assert on_forget("ana", purge_runs=True) is None
