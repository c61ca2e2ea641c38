"""What the Dagster layer writes, and what a forget leaves of it: nothing of a forgotten message
in any file under ``DAGSTER_HOME`` (event logs, run storage, asset outputs) nor in the snapshot
folder, wherever ``DUALMEM_SNAPSHOT_DIR`` points (or with it unset, inside Dagster's storage)."""

from __future__ import annotations

import pickle
from datetime import UTC, datetime
from pathlib import Path

import pytest
from conftest import DIM
from dagster import instance_for_test, materialize
from leaks import every_file, found_in

from dualmem_core import Writer, open_store
from dualmem_pipeline.defs.editor.assets import change_set, publish, stage_assets
from dualmem_pipeline.defs.editor.checks import change_set_invariants
from dualmem_pipeline.defs.io.run_folder import RunFolderIOManager
from dualmem_pipeline.defs.providers.resources import LLMResource
from dualmem_pipeline.defs.snapshot.assets import graph_snapshot
from dualmem_pipeline.defs.store.resources import StoreResource

EDITOR = [graph_snapshot, *stage_assets, change_set, change_set_invariants, publish]
FORGOTTEN = "I live in Seattle by the Quokka7731 ferry."  # superseded below: a revision holds it
MEMORY = "user lives in Seattle"  # the memory the rules make of it
BOB = [(FORGOTTEN, "bob-19", datetime(2026, 1, 5, 18, tzinfo=UTC)),
       ("I moved to Portland last week.", "bob-20", datetime(2026, 3, 2, 18, tzinfo=UTC))]


def needles(text: str) -> list[bytes]:
    """The text as UTF-8 and as every pickle protocol writes it (opcode and length stripped)."""
    raw = text.encode()
    pickled = [pickle.dumps(text, protocol=p) for p in range(pickle.HIGHEST_PROTOCOL + 1)]
    assert all(raw in p for p in pickled), "pickles hold ASCII text as it is: one needle covers them"
    return [raw, text.encode("unicode_escape")]


def holding(roots: list[Path], text: str) -> list[Path]:
    return sorted({p for p in every_file(*roots)
                   if any(n in p.read_bytes() for n in needles(text)) or found_in(p, [text])})


@pytest.mark.parametrize("snapshot_dir", ["outside", "unset"])
def test_forget_leaves_nothing_in_dagster_storage_or_the_snapshots(tmp_path, monkeypatch, snapshot_dir):
    home, snaps = tmp_path / "dagster_home", tmp_path / "snaps"
    home.mkdir()
    if snapshot_dir == "outside":
        monkeypatch.setenv("DUALMEM_SNAPSHOT_DIR", str(snaps))
    else:  # the pipeline's default: snapshots/ in the instance's storage
        monkeypatch.delenv("DUALMEM_SNAPSHOT_DIR", raising=False)
    url = f"sqlite:///{tmp_path / 'store' / 'memory.db'}"
    with open_store(url, dimension=DIM) as store:
        for text, source_id, when in BOB:
            Writer(store).remember(text, user_id="bob", session_id=source_id, at=when, source_id=source_id)

    with instance_for_test(temp_dir=str(home)) as instance:  # sets DAGSTER_HOME, as `dagster dev` has it
        instance.add_dynamic_partitions("users", ["bob"])
        resources = {"store": StoreResource(url=url, dimension=DIM), "llm": LLMResource(),
                     "run_folder_io_manager": RunFolderIOManager()}
        result = materialize(EDITOR, partition_key="bob", instance=instance, resources=resources)
        assert result.success
        roots = [home, snaps] if snapshot_dir == "outside" else [home]
        assert holding(roots, FORGOTTEN) and holding(roots, MEMORY), "the scan sees them before"

        with open_store(url, dimension=DIM) as store:  # as `dualmem forget --user bob --source-id bob-19`
            receipt = Writer(store).forget(user_id="bob", source_ids=["bob-19"])
        assert receipt.episode_ids
        # Nor a word of it: the place shows in the supersede sample's evidence unless hidden.
        for text in (FORGOTTEN, "Quokka7731", MEMORY, "Seattle"):
            assert holding(roots, text) == [], text

        # A run that decided before the forget cannot publish its decisions: they are gone.
        stale = materialize(EDITOR, partition_key="bob", instance=instance, resources=resources,
                            selection=["publish"], raise_on_error=False)
        [failure] = stale.get_step_failure_events()
        assert "a forget removed the run's decisions" in failure.step_failure_data.error.to_string()


def test_texts_shown_in_stage_samples_outlive_a_forget_in_dagsters_event_log(tmp_path, monkeypatch):
    """Why DUALMEM_DAGSTER_TEXTS is off by default: metadata is Dagster's, and forget cannot edit it."""
    monkeypatch.setenv("DUALMEM_DAGSTER_TEXTS", "1")
    monkeypatch.setenv("DUALMEM_SNAPSHOT_DIR", str(tmp_path / "snaps"))
    home, url = tmp_path / "dagster_home", f"sqlite:///{tmp_path / 'memory.db'}"
    home.mkdir()
    with open_store(url, dimension=DIM) as store:
        for text, source_id, when in BOB:
            Writer(store).remember(text, user_id="bob", session_id=source_id, at=when, source_id=source_id)
    with instance_for_test(temp_dir=str(home)) as instance:
        instance.add_dynamic_partitions("users", ["bob"])
        materialize(EDITOR, partition_key="bob", instance=instance,
                    resources={"store": StoreResource(url=url, dimension=DIM), "llm": LLMResource(),
                               "run_folder_io_manager": RunFolderIOManager()})
        with open_store(url, dimension=DIM) as store:
            Writer(store).forget(user_id="bob", source_ids=["bob-19"])
        left = holding([home, tmp_path / "snaps"], MEMORY)
    assert left and all(p.is_relative_to(home) and p.suffix == ".db" for p in left), left


def test_without_snapshot_dir_or_dagster_home_snapshots_go_where_forget_looks(monkeypatch, tmp_path):
    """``dagster dev`` without DAGSTER_HOME keeps its instance in a temporary folder that a forget
    run elsewhere cannot know: the pipeline then writes to the user data directory's
    ``snapshots``, one of the folders forget scrubs."""
    from dualmem_core.store.snapshot import default_snapshot_dir, pipeline_snapshot_dir, snapshot_dirs

    monkeypatch.delenv("DUALMEM_SNAPSHOT_DIR", raising=False)
    monkeypatch.delenv("DAGSTER_HOME", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    root = pipeline_snapshot_dir()
    assert root == default_snapshot_dir() == tmp_path / "dualmem" / "snapshots"
    root.mkdir(parents=True)
    assert root.resolve() in snapshot_dirs()
