"""Scanning files for text that must be gone: the forget tests of the store and of the pipeline."""

from __future__ import annotations

from pathlib import Path

import pyarrow.parquet as pq


def every_file(*roots: Path) -> list[Path]:
    return [p for root in roots for p in root.rglob("*") if p.is_file()]


def found_in(path: Path, needles: list[str]) -> list[str]:
    """Needles in the file's bytes, and for Parquet (compressed) in its decoded rows as well."""
    raw = path.read_bytes()
    hits = [n for n in needles if n.encode() in raw]
    if path.suffix == ".parquet":
        decoded = repr(pq.read_table(path).to_pylist())
        hits += [n for n in needles if n in decoded and n not in hits]
    return hits
