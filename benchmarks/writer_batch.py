"""Batched remember throughput on SQLite: lists of 50 fresh messages onto a preloaded store.

The store is the writer benchmark's (``benchmarks/writer.py``: its messages, its preload, the
hashing embedder), read from a database that ``benchmarks/writer.py --keep DIR`` saved (or
preloaded here and saved there when DIR has none), copied so every run starts from the same
file. Then ``--calls`` lists of 50 new messages are remembered (after 3 untimed ones) and timed
one by one. Besides the wall clock it reports the CPU time of the calling thread and of the
whole process (the background checkpoint thread, BLAS threads): on a shared machine the wall
clock follows the load average (printed too), the CPU times much less.

Run:  python -m benchmarks.writer_batch [--sizes 10000,100000] [--keep DIR] [--calls 40]
                                        [--out benchmarks/results/writer-batch.json]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import tempfile
import time
from datetime import timedelta
from pathlib import Path

import numpy as np

import benchmarks.store as sb
import benchmarks.writer as wb
from dualmem_core import Writer
from dualmem_core.providers import HashingEmbedder
from dualmem_core.store import open_store

WARMUP_CALLS = 3


def kept_database(keep: Path, n: int, seed: int) -> Path:
    """The kept preload of ``n`` memories, made (and kept) first when missing."""
    db, info = wb.kept_paths(keep, n, seed, "hashing")
    if not db.exists():
        tmp = Path(tempfile.mkdtemp(prefix="dualmem-batch-preload-"))
        try:
            with open_store(f"sqlite:///{tmp / 'bench.db'}", dimension=wb.DIM) as store:
                writer = Writer(store, embedder=HashingEmbedder(wb.DIM))
                sb.log(f"N={n:,}: preload into {db}")
                wb.keep_preload(tmp / "bench.db", db, info,
                                wb.preload(writer, n, random.Random(seed + n), set()))
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    return db


def bench(db: Path, n: int, calls: int, seed: int) -> dict:
    rng = random.Random(seed)
    lists = [[{"role": role, "content": text, "source_id": f"batch{c}-{j}",
               "at": wb.T0 + timedelta(minutes=c, seconds=j)}
              for j, (role, text) in enumerate(wb.message(rng) for _ in range(wb.PER_CALL))]
             for c in range(calls + WARMUP_CALLS)]
    tmp = Path(tempfile.mkdtemp(prefix="dualmem-batch-"))
    try:
        shutil.copyfile(db, tmp / "bench.db")
        with open_store(f"sqlite:///{tmp / 'bench.db'}", dimension=wb.DIM) as store:
            writer = Writer(store, embedder=HashingEmbedder(wb.DIM))
            for batch in lists[:WARMUP_CALLS]:
                writer.remember(batch, user_id=wb.USER, session_id="warmup")
            load_before, wall, thread_cpu, memories = os.getloadavg()[0], [], [], 0
            process_started = time.process_time()
            for batch in lists[WARMUP_CALLS:]:
                started, cpu_started = time.perf_counter(), time.thread_time()
                result = writer.remember(batch, user_id=wb.USER, session_id="live-batch")
                wall.append(time.perf_counter() - started)
                thread_cpu.append(time.thread_time() - cpu_started)
                memories += len(result.memory_ids)
            process_cpu = time.process_time() - process_started
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    messages = calls * wb.PER_CALL
    return {"n": n, "calls": calls, "messages": messages, "new_memories": memories,
            "messages_per_s": messages / sum(wall), "messages_per_thread_cpu_s": messages / sum(thread_cpu),
            "messages_per_process_cpu_s": messages / process_cpu,
            "call_p50_ms": float(np.percentile(wall, 50)) * 1000,
            "call_p95_ms": float(np.percentile(wall, 95)) * 1000,
            "loadavg_1min": [load_before, os.getloadavg()[0]]}


def render(r: dict) -> str:
    return (f"N={r['n']:,}: {r['calls']} lists of {wb.PER_CALL}: {r['messages_per_s']:,.0f} messages/s"
            f" (call p50 {r['call_p50_ms']:.1f} ms, p95 {r['call_p95_ms']:.1f} ms),"
            f" {r['messages_per_thread_cpu_s']:,.0f} per CPU-second of the calling thread,"
            f" {r['messages_per_process_cpu_s']:,.0f} per CPU-second of the process;"
            f" {r['new_memories']:,} new memories; load average {r['loadavg_1min'][0]:.2f}"
            f" -> {r['loadavg_1min'][1]:.2f}")


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--sizes", default="10000,100000", help="memories of the one user")
    p.add_argument("--keep", type=Path, default=Path(tempfile.gettempdir()) / "dualmem-kept",
                   help="kept preloads (benchmarks/writer.py --keep)")
    p.add_argument("--calls", type=int, default=40, help="timed lists of 50")
    p.add_argument("--seed", type=int, default=7, help="the preload's, as benchmarks/writer.py")
    p.add_argument("--out", default="benchmarks/results/writer-batch.json")
    args = p.parse_args(argv)
    report: dict = {"machine": sb.machine_info(), "config": vars(args), "runs": []}
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    for n in (int(s) for s in args.sizes.split(",")):
        # Fresh messages from another stream than the preload's: few repeat a stored text.
        report["runs"].append(bench(kept_database(args.keep, n, args.seed), n, args.calls, args.seed + 1))
        print(render(report["runs"][-1]), flush=True)
        out.write_text(json.dumps(report, indent=2, default=str) + "\n")
    sb.log(f"wrote {out}")


if __name__ == "__main__":
    main()
