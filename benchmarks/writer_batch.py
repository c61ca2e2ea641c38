"""Batched remember throughput on SQLite: lists of 50 fresh messages onto a preloaded store.

The store is the writer benchmark's (``benchmarks/writer.py``: its messages, its preload, the
hashing embedder), read from a database that ``benchmarks/writer.py --keep DIR`` saved (or
preloaded here and saved there when DIR has none), copied so every run starts from the same
file. Then ``--calls`` lists of 50 new messages are remembered (after 3 untimed ones) and timed
one by one. Besides the wall clock it reports the CPU time of the calling thread and of the
whole process (the background checkpoint thread, BLAS threads): on a shared machine the wall
clock follows the load average (printed too), the CPU times much less.

``--phases`` also splits the calling thread's CPU time of a list among the steps of ``remember``
(extraction, the vector neighbours, the store write and its parts), timing each step's function
with ``time.thread_time`` around it: a profiler's own cost (cProfile quadrupled it) falls on
the small Python calls of the extractor and skews the ranking. The wrappers cost about a
microsecond a call, so a run with ``--phases`` is not one to compare rates with.

Run:  python -m benchmarks.writer_batch [--sizes 10000,100000] [--keep DIR] [--calls 40]
                                        [--phases] [--out benchmarks/results/writer-batch.json]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import shutil
import tempfile
import time
from collections import defaultdict
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import numpy as np

import benchmarks.store as sb
import benchmarks.writer as wb
import dualmem_core.store.base as store_base
import dualmem_core.writer.writer as writer_module
from dualmem_core import Writer
from dualmem_core.providers import HashingEmbedder
from dualmem_core.store import Store, open_store
from dualmem_core.store.sqlite.writes import Writes

WARMUP_CALLS = 3
# (owner, attribute, label): the steps of a batched remember that --phases times; an indented
# label is part of the step above it.
PHASES: list[tuple[Any, str, str]] = [
    (Writer, "_extract", "rule extraction"),
    (writer_module, "drop_exact_duplicates", "exact duplicates"),
    (writer_module, "embed_and_link", "embedding + SIMILAR_TO links"),
    (Store, "nearest_memories", "  nearest stored vectors"),
    (writer_module, "link_entities", "entity links"),
    (Store, "write", "store write"),
    (store_base, "check_batch", "  batch checks"),
    (Writes, "_read_state", "  reference look-ups"),
    (Writes, "_insert_batch", "  row inserts (with indexes, FTS trigger)"),
    (Writes, "_extend_cache", "  cache updates"),
]


@contextlib.contextmanager
def timed_phases(spent: defaultdict[str, float]) -> Iterator[None]:
    """Every step of ``PHASES`` adds its calling thread's CPU seconds to ``spent[label]``."""
    def timed(function: Any, label: str) -> Any:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            started = time.thread_time()
            try:
                return function(*args, **kwargs)
            finally:
                spent[label] += time.thread_time() - started
        return wrapper

    originals = [(owner, name, owner.__dict__[name]) for owner, name, _ in PHASES]
    try:
        for (owner, name, label), (_, _, original) in zip(PHASES, originals, strict=True):
            setattr(owner, name, timed(original, label))
        yield
    finally:
        for owner, name, original in originals:
            setattr(owner, name, original)


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


def bench(db: Path, n: int, calls: int, seed: int, phases: bool = False) -> dict:
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
            spent: defaultdict[str, float] = defaultdict(float)
            process_started = time.process_time()
            with timed_phases(spent) if phases else contextlib.nullcontext():
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
            "loadavg_1min": [load_before, os.getloadavg()[0]],
            **({"phase_ms_per_list": {label: spent[label] / calls * 1000 for _, _, label in PHASES},
                "thread_cpu_ms_per_list": sum(thread_cpu) / calls * 1000} if phases else {})}


def render(r: dict) -> str:
    return (f"N={r['n']:,}: {r['calls']} lists of {wb.PER_CALL}: {r['messages_per_s']:,.0f} messages/s"
            f" (call p50 {r['call_p50_ms']:.1f} ms, p95 {r['call_p95_ms']:.1f} ms),"
            f" {r['messages_per_thread_cpu_s']:,.0f} per CPU-second of the calling thread,"
            f" {r['messages_per_process_cpu_s']:,.0f} per CPU-second of the process;"
            f" {r['new_memories']:,} new memories; load average {r['loadavg_1min'][0]:.2f}"
            f" -> {r['loadavg_1min'][1]:.2f}" + render_phases(r))


def render_phases(r: dict) -> str:
    if "phase_ms_per_list" not in r:
        return ""
    total = r["thread_cpu_ms_per_list"]
    lines = [f"\n  CPU of the calling thread per list of {wb.PER_CALL}: {total:.1f} ms"]
    lines += [f"\n  {label:<44} {ms:5.1f} ms {100 * ms / total:3.0f}%"
              for label, ms in r["phase_ms_per_list"].items()]
    top = sum(ms for label, ms in r["phase_ms_per_list"].items() if not label.startswith(" "))
    rest = "the rest (the Writer's own records and ids)"
    lines.append(f"\n  {rest:<44} {total - top:5.1f} ms {100 * (total - top) / total:3.0f}%")
    return "".join(lines)


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--sizes", default="10000,100000", help="memories of the one user")
    p.add_argument("--keep", type=Path, default=Path(tempfile.gettempdir()) / "dualmem-kept",
                   help="kept preloads (benchmarks/writer.py --keep)")
    p.add_argument("--calls", type=int, default=40, help="timed lists of 50")
    p.add_argument("--seed", type=int, default=7, help="the preload's, as benchmarks/writer.py")
    p.add_argument("--phases", action="store_true",
                   help="also split the thread's CPU time among remember's steps (slower)")
    p.add_argument("--out", default="benchmarks/results/writer-batch.json")
    args = p.parse_args(argv)
    report: dict = {"machine": sb.machine_info(), "config": vars(args), "runs": []}
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    for n in (int(s) for s in args.sizes.split(",")):
        # Fresh messages from another stream than the preload's: few repeat a stored text.
        report["runs"].append(bench(kept_database(args.keep, n, args.seed), n, args.calls, args.seed + 1,
                                    args.phases))
        print(render(report["runs"][-1]), flush=True)
        out.write_text(json.dumps(report, indent=2, default=str) + "\n")
    sb.log(f"wrote {out}")


if __name__ == "__main__":
    main()
