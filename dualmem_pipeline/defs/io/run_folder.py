"""Where the Editor's asset outputs live: in the run's own snapshot folder, not Dagster's storage.

A stage's output holds decision texts (revised versions, evidence). Dagster's default IO manager
would pickle it under ``$DAGSTER_HOME/storage``, out of reach of ``dualmem forget``. Here every
output is pickled into ``<snapshot folder>/decisions/<asset>.pickle``, which forget deletes
(``dualmem_core.store.snapshot.scrub_snapshots``); Dagster's storage keeps only a pointer file
holding that path (a user id and a run id, no text).
"""

import os
import pickle
from pathlib import Path
from typing import TYPE_CHECKING, cast
from urllib.parse import quote

from dagster import ConfigurableIOManager, DagsterInstance, InputContext, OutputContext

from dualmem_core.store.snapshot import DECISIONS

if TYPE_CHECKING:  # the snapshot asset's module imports this one
    from ..snapshot.assets import Snapshot

# The resource key the Editor's assets name (``io_manager_key``); bound in ``defs/resources.py``.
RUN_FOLDER_IO_MANAGER = "run_folder_io_manager"


class RunFolderIOManager(ConfigurableIOManager):
    """Pickles each output into its Editor run's snapshot folder; a forget deletes them there."""

    def _pointer(self, instance: DagsterInstance, asset: str, partition: str) -> Path:
        return Path(instance.storage_directory()) / "dualmem_outputs" / asset / quote(partition, safe="")

    def handle_output(self, context: OutputContext, obj: object) -> None:
        asset, partition = context.asset_key.to_user_string(), context.asset_partition_key
        instance = context.step_context.instance
        # A Snapshot names its run's folder; every later output carries the snapshot it read.
        snapshot = cast("Snapshot", getattr(obj, "snapshot", obj))
        path = Path(snapshot.folder) / DECISIONS / f"{asset}.pickle"
        _write(path, pickle.dumps(obj))
        _write(self._pointer(instance, asset, partition), str(path).encode())
        context.add_output_metadata({"stored_in": str(path)})

    def load_input(self, context: InputContext) -> object:
        upstream = context.upstream_output
        assert upstream is not None  # every input it loads is an Editor asset's output
        asset, partition = upstream.asset_key.to_user_string(), context.asset_partition_key
        path = self._path(context.instance, asset, partition)
        if not path.exists():
            raise FileNotFoundError(
                f"{asset} of {partition} is gone from {path}: a forget removed the run's decisions "
                "(or its snapshot was deleted); materialize graph_snapshot and the stages again")
        return pickle.loads(path.read_bytes())

    def _path(self, instance: DagsterInstance, asset: str, partition: str) -> Path:
        pointer = self._pointer(instance, asset, partition)
        if not pointer.exists():
            raise FileNotFoundError(f"{asset} has not been materialized for {partition}")
        return Path(pointer.read_text())


def _write(path: Path, data: bytes) -> None:
    """Write to a temporary name and rename it over: a crash leaves the old file or the new one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(path.name + ".tmp")
    temporary.write_bytes(data)
    os.replace(temporary, path)
