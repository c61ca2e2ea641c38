"""The Dagster layer: definitions load, and the snapshot asset exports a user's graph to Parquet."""

from __future__ import annotations

from builders import Builder
from conftest import DIM, vec
from dagster import DagsterInstance, materialize

from dualmem_core import open_store
from dualmem_core.store.snapshot import read_snapshot
from dualmem_pipeline.definitions import defs
from dualmem_pipeline.defs.snapshot.assets import graph_snapshot
from dualmem_pipeline.defs.store.resources import StoreResource


def test_definitions_load():
    assert defs.resolve_asset_graph().get_all_asset_keys()
    assert "store" in defs.resources


def test_graph_snapshot_writes_the_users_graph(store_url, user, tmp_path, monkeypatch):
    monkeypatch.setenv("DUALMEM_SNAPSHOT_DIR", str(tmp_path / "snaps"))
    with open_store(store_url, dimension=DIM) as store:
        b = Builder(user)
        b.memory("Maya lives in Portland", vec(1), episode=b.episode("I moved to Portland"))
        store.write(b.batch)
        expected = store.export_graph(user)
    instance = DagsterInstance.ephemeral()
    instance.add_dynamic_partitions("users", [user])
    result = materialize([graph_snapshot], partition_key=user, instance=instance,
                         resources={"store": StoreResource(url=store_url, dimension=DIM)})
    assert result.success
    [materialization] = result.asset_materializations_for_node("graph_snapshot")
    assert materialization.metadata["versions"].value == 1
    folder = materialization.metadata["path"].value
    snapshot = read_snapshot(folder)
    assert [v.id for v in snapshot.versions] == [v.id for v in expected.versions]
    assert [e.id for e in snapshot.edges] == [e.id for e in expected.edges]
