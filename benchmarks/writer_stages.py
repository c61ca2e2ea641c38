"""Where the Writer's time goes: remember and recall split into their stages, per call.

The store is preloaded as the writer benchmark does it (``benchmarks/writer.py``: its message
generator, lists of 50, the deterministic embedder), then three kinds of call are timed with a
stopwatch around each stage: ``remember`` of one message, ``remember`` of a list of 50 (the
batched path), and ``recall`` (k=5). A stage is a method of the Writer, its embedder or its store
(or a function recall calls), wrapped in this process only; a stage's time is exclusive (a stage
called inside another is taken out of the outer one), and "rest" is the call's time outside every
stage (building the batch, fusion and ranking, Python). Per stage the table gives its mean, p50
and p95 over the calls (a stage's p95 need not fall in the call's p95) and its share of the mean
call. The wrapping costs about a microsecond a stage call. "searches" is one statement on Neo4j
(vector, text and, for a question about the present whose predicates were read, the cue list).
On Neo4j the neighbour search is split three ways: the vector cache's refresh (the clock read,
and the rows written since), its scoring (``UserVectors.nearest``), and what is left around
them ("neighbour search": the driver session and the cache's lock).

Run:  python -m benchmarks.writer_stages [--sizes 10000,100000] [--backends sqlite,neo4j]
                                         [--calls 200] [--server-warmup 1000]
                                         [--out benchmarks/results/writer-stages.json]
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import tempfile
import time
from collections.abc import Callable
from datetime import timedelta
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

import benchmarks.store as sb
import benchmarks.writer as wb
import dualmem_core.writer.writer as writer_module
from dualmem_core import Writer
from dualmem_core.providers import HashingEmbedder
from dualmem_core.store.clusters import HeadGroups
from dualmem_core.store.neo4j.vectors import UserVectors

# (stage, where: "writer" | "embedder" | "store" | "module" | a class below, attribute); a missing
# one is skipped (the vector copy exists on the embedded store only, the vector cache's refresh and
# its scoring on Neo4j only: they split Neo4j's neighbour search into its round trip and its product).
REMEMBER = [
    ("extraction", "writer", "_extract"),
    ("embedding", "embedder", "embed"),
    ("duplicate lookup", "store", "find_by_content_hash"),
    ("neighbour search", "store", "nearest_memories"),
    ("neighbour: cache refresh", "vector cache", "refresh"),
    ("neighbour: scoring", "user vectors", "nearest"),
    ("neighbour: group sort", "groups", "sort"),
    ("entity lookup", "store", "find_entities"),
    ("write: inserts", "store", "_checked_insert"),
    ("write: vector copy", "store", "_extend_cache"),
    ("write: checks, commit", "store", "write"),
]
RECALL = [
    ("user's names", "module", "self_names"),
    ("question reading", "module", "read_question"),
    ("embedding", "embedder", "embed"),
    ("searches", "store", "hybrid_search"),
    ("expansion", "store", "expand"),
    ("fact lookup", "store", "list_facts"),
    ("supersession edges", "store", "get_edges"),
    ("sources", "store", "sources_of"),
]


class Stopwatch:
    """Exclusive time per stage for the call being timed."""

    def __init__(self) -> None:
        self.spent: dict[str, float] = {}
        self._stack: list[list] = []  # [stage, start, time spent in stages inside it]
        self._undo: list[tuple[Any, str, Any, bool]] = []

    def wrap(self, owner: Any, attribute: str, stage: str) -> None:
        original = getattr(owner, attribute, None)
        if original is None:
            return
        had_own = attribute in vars(owner)

        def timed(*args: Any, **kwargs: Any) -> Any:
            frame = [stage, time.perf_counter(), 0.0]
            self._stack.append(frame)
            try:
                return original(*args, **kwargs)
            finally:
                elapsed = time.perf_counter() - frame[1]
                self._stack.pop()
                if self._stack:
                    self._stack[-1][2] += elapsed
                self.spent[stage] = self.spent.get(stage, 0.0) + (elapsed - frame[2]) * 1000

        self._undo.append((owner, attribute, original, had_own))
        setattr(owner, attribute, timed)

    def restore(self) -> None:
        for owner, attribute, original, had_own in reversed(self._undo):
            if had_own:
                setattr(owner, attribute, original)
            else:
                delattr(owner, attribute)
        self._undo.clear()

    def time(self, fn: Callable[[], Any]) -> dict[str, float]:
        self.spent = {}
        started = time.perf_counter()
        fn()
        total = (time.perf_counter() - started) * 1000
        return {**self.spent, "rest": total - sum(self.spent.values()), "total": total}


def wrapped(writer: Writer, stages: list[tuple[str, str, str]]) -> Stopwatch:
    watch = Stopwatch()
    owners = {"writer": writer, "embedder": writer.embedder, "store": writer.store, "module": writer_module,
              "vector cache": getattr(writer.store, "_vectors", None), "user vectors": UserVectors,
              "groups": HeadGroups}
    for stage, where, attribute in stages:
        watch.wrap(owners[where], attribute, stage)
    return watch


def timed_stages(writer: Writer, stages: list, calls: list[Callable[[], Any]]) -> dict:
    """Per stage: mean, p50, p95 (ms) over the calls after the first WARMUP, and share of the mean."""
    watch = wrapped(writer, stages)
    try:
        for call in calls[: sb.WARMUP]:
            call()
        rows = [watch.time(call) for call in calls[sb.WARMUP :]]
    finally:
        watch.restore()
    names = [s for s, *_ in stages if any(s in r for r in rows)] + ["rest", "total"]
    mean_total = float(np.mean([r["total"] for r in rows]))
    out = {}
    for name in names:
        values = [r.get(name, 0.0) for r in rows]
        p50, p95 = np.percentile(values, [50, 95])
        out[name] = {"mean_ms": float(np.mean(values)), "p50_ms": float(p50), "p95_ms": float(p95),
                     "share": float(np.mean(values)) / mean_total, "called_in": sum(name in r for r in rows)}
    out["calls"] = len(rows)
    return out


def bench(backend: str, n: int, calls: int, seed: int, server_warmup: int = 0) -> dict:
    rng, seen = random.Random(seed + n), set()
    out: dict = {"backend": backend, "n": n}
    tmp = Path(tempfile.mkdtemp(prefix=f"dualmem-stages-{backend}-"))
    try:
        with sb.opened(backend, tmp) as (store, server):
            writer = Writer(store, embedder=HashingEmbedder(wb.DIM))
            sb.log(f"{backend} N={n:,}: preload")
            out["preload"] = wb.preload(writer, n, rng, seen)
            if server is not None:
                sb.neo4j_call(server, "CALL db.awaitIndexes(3600)")
                wb.warm_server(writer, rng, server_warmup)
            count = calls + sb.WARMUP
            fresh = [m for m in (wb.message(rng) for _ in range(60 * count)) if m[1] not in seen]
            singles, rest = fresh[:count], fresh[count:]
            lists = [rest[i * wb.PER_CALL:(i + 1) * wb.PER_CALL]
                     for i in range(max(count // 5, sb.WARMUP + 10))]
            clock = iter(range(10**9))

            def one(m: tuple[str, str]) -> Callable[[], Any]:
                i = next(clock)
                return partial(writer.remember, m[1], role=m[0], user_id=wb.USER, session_id="live",
                               source_id=f"live{i}", at=wb.T0 + timedelta(minutes=i))

            def many(batch: list) -> Callable[[], Any]:
                i = next(clock)
                return partial(writer.remember, [
                    {"role": role, "content": text, "source_id": f"batch{i}-{j}",
                     "at": wb.T0 + timedelta(minutes=i, seconds=j)} for j, (role, text) in enumerate(batch)
                ], user_id=wb.USER, session_id="live-batch")

            sb.log(f"{backend} N={n:,}: stages of remember x{len(singles)}, x{len(lists)} lists,"
                   f" recall x{count}")
            out["remember_1"] = timed_stages(writer, REMEMBER, [one(m) for m in singles])
            out[f"remember_{wb.PER_CALL}"] = timed_stages(writer, REMEMBER, [many(b) for b in lists if b])
            asks = [wb.fill(rng, rng.choice(wb.ASK)) for _ in range(count)]
            out["recall"] = timed_stages(writer, RECALL, [
                partial(writer.recall, q, user_id=wb.USER, k=wb.K, record_access=False) for q in asks])
            out["counts"] = store.counts(wb.USER)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return out


def render(r: dict) -> str:
    held = ", ".join(f"{v:,} {k}" for k, v in r["counts"].items() if v)
    lines = [f"== {r['backend']}  N={r['n']:,}  ({held})"]
    for key, label in (("remember_1", "remember, one message"),
                       (f"remember_{wb.PER_CALL}", f"remember, a list of {wb.PER_CALL} messages"),
                       ("recall", f"recall, k={wb.K}")):
        stages = r[key]
        lines.append(f"-- {label}: {stages['calls']} calls")
        lines.append(f"   {'stage':<24}{'mean ms':>9}{'p50 ms':>9}{'p95 ms':>9}{'share':>8}")
        for name, s in stages.items():
            if name == "calls":
                continue
            share = "" if name == "total" else f"{100 * s['share']:>7.0f}%"
            lines.append(f"   {name:<24}{s['mean_ms']:>9.2f}{s['p50_ms']:>9.2f}{s['p95_ms']:>9.2f}{share:>8}")
    return "\n".join([*lines, ""])


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--sizes", default="10000,100000", help="memories of the one user")
    p.add_argument("--backends", default="sqlite")
    p.add_argument("--calls", type=int, default=200, help="timed calls of each kind (lists: a fifth)")
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--server-warmup", type=int, default=1000, help="untimed recalls on Neo4j first")
    p.add_argument("--out", default="benchmarks/results/writer-stages.json")
    args = p.parse_args(argv)
    report: dict = {"machine": sb.machine_info(), "config": vars(args), "runs": []}
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    for n in (int(s) for s in args.sizes.split(",")):
        for backend in args.backends.split(","):
            report["runs"].append(bench(backend, n, args.calls, args.seed, args.server_warmup))
            print(render(report["runs"][-1]), flush=True)
            out.write_text(json.dumps(report, indent=2, default=str) + "\n")
    sb.log(f"wrote {out}")


if __name__ == "__main__":
    main()
