"""A user's graph as Arrow tables and Parquet files: the Editor's input and its rollback point."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Sequence
from dataclasses import fields
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from ..errors import InvalidInput
from .forgetting import neighbour_texts
from .models import Edge, EdgeType, Entity, Episode, Memory, MemoryVersion, UserGraph

TABLES = ("episodes", "memories", "versions", "entities", "edges")
_RECORDS = {"episodes": Episode, "memories": Memory, "versions": MemoryVersion,
            "entities": Entity, "edges": Edge}
_TS = pa.timestamp("us", tz="UTC")


def _arrow_type(table: str, name: str, dimension: int) -> pa.DataType:
    if name.endswith(("_at", "_from", "_to")):
        return _TS
    if name == "embedding":
        return pa.list_(pa.float32(), dimension)
    if name == "aliases":
        return pa.list_(pa.string())
    if name in ("confidence", "salience"):
        return pa.float64()
    if name == "access_count":
        return pa.int64()
    if name == "negated":
        return pa.bool_()
    return pa.string()


def schema(table: str, dimension: int) -> pa.Schema:
    """The Arrow schema of one snapshot table: one column per field of its record."""
    return pa.schema([(f.name, _arrow_type(table, f.name, dimension))
                      for f in fields(_RECORDS[table])])


def _cell(name: str, value: Any) -> object:
    if name == "embedding":
        return None if value is None else np.asarray(value, dtype=np.float32)
    if name == "props":
        return json.dumps(value, sort_keys=True)
    if name == "aliases":
        return list(value)
    if name == "type" and isinstance(value, EdgeType):
        return value.value
    return value


def graph_to_tables(graph: UserGraph, dimension: int) -> dict[str, pa.Table]:
    tables = {}
    for table in TABLES:
        sch = schema(table, dimension)
        records = getattr(graph, table)
        columns = {name: [_cell(name, getattr(r, name)) for r in records] for name in sch.names}
        tables[table] = pa.table(columns, schema=sch)
    return tables


def tables_to_graph(user_id: str, tables: dict[str, pa.Table]) -> UserGraph:
    graph = UserGraph(user_id)
    for table in TABLES:
        record = _RECORDS[table]
        records = []
        for row in tables[table].to_pylist():
            if table == "versions" and row["embedding"] is not None:
                row["embedding"] = np.asarray(row["embedding"], dtype=np.float32)
            if table == "entities":
                row["aliases"] = tuple(row["aliases"] or ())
            if table == "edges":
                row["type"], row["props"] = EdgeType(row["type"]), json.loads(row["props"])
            records.append(record(**row))
        setattr(graph, table, records)
    return graph


def write_snapshot(folder: str | Path, graph: UserGraph, dimension: int) -> Path:
    """Write one Parquet file per table into ``folder``; returns the folder."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    meta = {b"dualmem.user_id": graph.user_id.encode(), b"dualmem.dimension": str(dimension).encode()}
    for table, data in graph_to_tables(graph, dimension).items():
        pq.write_table(data.replace_schema_metadata(meta), folder / f"{table}.parquet")
    return folder


def read_snapshot(folder: str | Path) -> UserGraph:
    folder = Path(folder)
    missing = [t for t in TABLES if not (folder / f"{t}.parquet").exists()]
    if missing:
        raise InvalidInput(f"{folder} is not a dualmem snapshot: {', '.join(missing)} missing")
    tables = {t: pq.read_table(folder / f"{t}.parquet") for t in TABLES}
    user_id = tables["episodes"].schema.metadata[b"dualmem.user_id"].decode()
    return tables_to_graph(user_id, tables)


# -- forgetting --------------------------------------------------------------------------------

ENV_SNAPSHOT_DIR = "DUALMEM_SNAPSHOT_DIR"


def configured_snapshot_dir() -> Path | None:
    """``DUALMEM_SNAPSHOT_DIR``: where the pipeline and the Editor write snapshots, and so where
    forget scrubs them."""
    configured = os.environ.get(ENV_SNAPSHOT_DIR, "").strip()
    return Path(configured) if configured else None


# Where a run's Dagster asset outputs (pickled decisions, texts included) sit in its snapshot
# folder (dualmem_pipeline's IO manager): pickles cannot be redacted, so a forget deletes them.
DECISIONS = "decisions"


def dagster_snapshot_dir() -> Path | None:
    """``$DAGSTER_HOME/storage/snapshots``: where the pipeline writes snapshots (and its assets'
    outputs) when ``DUALMEM_SNAPSHOT_DIR`` is unset, named here so that forget scrubs it too."""
    home = os.environ.get("DAGSTER_HOME", "").strip()
    return Path(home) / "storage" / "snapshots" if home else None


def default_snapshot_dir() -> Path:
    """``snapshots`` in the user's data directory (beside the default store): where the pipeline
    writes when neither ``DUALMEM_SNAPSHOT_DIR`` nor ``DAGSTER_HOME`` is set. ``dagster dev``
    then keeps its instance in a temporary folder, which a forget run elsewhere cannot know."""
    from platformdirs import user_data_dir

    return Path(user_data_dir("dualmem")) / "snapshots"


def pipeline_snapshot_dir() -> Path:
    """Where the Dagster pipeline writes snapshots: ``DUALMEM_SNAPSHOT_DIR``, else
    ``$DAGSTER_HOME/storage/snapshots``, else ``default_snapshot_dir()``; forget scrubs all three."""
    return configured_snapshot_dir() or dagster_snapshot_dir() or default_snapshot_dir()


def snapshot_dirs(*extra: str | Path | None) -> list[Path]:
    """Where snapshots of users live: ``DUALMEM_SNAPSHOT_DIR`` (the Dagster pipeline writes there
    when it is set), ``$DAGSTER_HOME/storage/snapshots`` and ``default_snapshot_dir()`` (where
    it writes otherwise), and any folders given (an Editor's ``snapshot_dir``), existing ones only."""
    configured = os.environ.get(ENV_SNAPSHOT_DIR, "").strip()
    found = [Path(p) for p in (configured, dagster_snapshot_dir(), default_snapshot_dir(), *extra) if p]
    return [p for p in dict.fromkeys(p.resolve() for p in found) if p.is_dir()]


def user_snapshot_folders(root: Path, user_id: str) -> list[Path]:
    """Every snapshot folder of one user under ``root`` (the pipeline's ``user/run`` layout
    with '/' in user ids made '_', and the Editor's own)."""
    folders = []
    for name in dict.fromkeys((user_id, user_id.replace("/", "_"))):
        base = root / name
        if base.is_dir():
            folders += [f for f in sorted(base.iterdir()) if (f / "episodes.parquet").exists()]
    return folders


def scrub_snapshots(roots: list[Path], user_id: str, deleted_ids: set[str], *,
                    everything: bool = False, said: Sequence[str] = ()) -> int:
    """Take forgotten records out of every snapshot of the user under ``roots``: rows with a
    deleted id, versions of deleted memories, edges touching deleted records, and the search
    texts that hold one of the forgotten messages ``said`` (as the stores reset them), and the
    run's pickled decisions (``DECISIONS``: an Editor run in flight reruns its stages). With
    ``everything`` the user's snapshot folders go entirely. Returns how many files changed.

    Each file is rewritten to a temporary name and renamed over the old one, so a crash leaves
    either the old file or the new one; the old bytes are not kept anywhere by this code.
    """
    changed = 0
    for root in roots:
        for folder in user_snapshot_folders(root, user_id):
            if everything:
                changed += sum(1 for _ in folder.glob("*.parquet"))
                shutil.rmtree(folder)
                continue
            for table in TABLES:
                changed += _scrub_file(folder / f"{table}.parquet", table, deleted_ids)
            changed += _scrub_search_texts(folder / "versions.parquet", neighbour_texts(list(said)))
            if (deleted_ids or said) and (folder / DECISIONS).is_dir():
                changed += sum(1 for f in (folder / DECISIONS).iterdir() if f.is_file())
                shutil.rmtree(folder / DECISIONS)
        if everything:
            for name in dict.fromkeys((user_id, user_id.replace("/", "_"))):
                if (root / name).is_dir() and not any((root / name).iterdir()):
                    (root / name).rmdir()
    return changed


def _scrub_search_texts(path: Path, said: list[str]) -> int:
    if not path.exists() or not said:
        return 0
    data = pq.read_table(path)
    if "search_text" not in data.column_names:
        return 0
    column = data["search_text"].to_pylist()
    kept = [None if t is not None and any(s in t for s in said) else t for t in column]
    if kept == column:
        return 0
    index = data.column_names.index("search_text")
    data = data.set_column(index, "search_text", pa.array(kept, data.schema.field(index).type))
    temporary = path.with_suffix(".parquet.tmp")
    pq.write_table(data, temporary)
    os.replace(temporary, path)
    return 1


def _scrub_file(path: Path, table: str, deleted: set[str]) -> int:
    if not path.exists() or not deleted:
        return 0
    data = pq.read_table(path)
    gone = pa.array(sorted(deleted), pa.string())
    columns = {"versions": ("id", "memory_id"), "edges": ("id", "src_id", "dst_id")}.get(table, ("id",))
    hit = None
    for column in columns:
        mask = pc.is_in(data[column], value_set=gone)
        hit = mask if hit is None else pc.or_(hit, mask)
    if hit is None or not pc.any(hit).as_py():
        return 0
    kept = data.filter(pc.invert(hit))
    temporary = path.with_suffix(".parquet.tmp")
    pq.write_table(kept.replace_schema_metadata(data.schema.metadata), temporary)
    os.replace(temporary, path)
    return 1
