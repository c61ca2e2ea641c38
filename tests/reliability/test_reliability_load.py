"""Load on both stores: threads remembering and recalling at once lose, double and raise nothing.

``DUALMEM_LOAD_SECONDS`` (default 5) and ``DUALMEM_LOAD_THREADS`` (default 4) size the run.
Throughput and p95 latency are printed, never asserted: this machine's load varies too much.
The same run as a script, with a table and a JSON file: ``python -m benchmarks.load``.
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

_spec = importlib.util.spec_from_file_location(
    "load_bench", Path(__file__).parents[2] / "benchmarks" / "load.py"
)
load_bench = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(load_bench)

SECONDS = float(os.environ.get("DUALMEM_LOAD_SECONDS", "5"))
THREADS = int(os.environ.get("DUALMEM_LOAD_THREADS", "4"))


def test_threads_remembering_and_recalling_at_once_lose_nothing(store, capsys):
    result = load_bench.run_load(store, threads=THREADS, seconds=SECONDS, users=2)
    with capsys.disabled():
        print(f"\n{load_bench.table([result])}")
    assert not result["errors"], result["errors"][:5]
    assert not result["lost"] and not result["doubled"] and not result["stray_episodes"], result
    assert result["remember"]["n"] > 0 and result["recall"]["n"] > 0
