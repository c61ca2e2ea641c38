"""A batch's neighbour search on one BLAS thread or on all of them, idle and beside a busy core.

Builds the Neo4j store's client-side vector cache (``store/neo4j/vectors.py``) from the
writer benchmark's generated messages (deterministic hashing embedder, added 65 at a time as a
preload adds them), then times ``nearest`` (k=5 above the Writer's threshold) for batches of 50
new messages' vectors, four ways: with the search's one-thread block (``store/blas.py``) or
without it, and with the machine otherwise idle or with one process spinning on a core (as a
Neo4j server's background work after a commit does). Prints a table and writes JSON.

Run:  python -m benchmarks.neighbour_threads [--sizes 20000,100000] [--batches 24]
                                             [--out benchmarks/results/neighbour-threads.json]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import multiprocessing
import random
import time
from pathlib import Path

import numpy as np

import benchmarks.store as sb
import benchmarks.writer as wb
import dualmem_core.store.neo4j.vectors as neo4j_vectors
from dualmem_core.providers import HashingEmbedder
from dualmem_core.writer.writer import WriterConfig

CHUNK = 65  # vectors a preload call adds (50 messages and their facts)


def _spin(stop) -> None:
    while not stop.is_set():
        pass


@contextlib.contextmanager
def busy_core(on: bool):
    """One other process spinning on a core for the block, if ``on``."""
    if not on:
        yield
        return
    stop = multiprocessing.Event()
    worker = multiprocessing.Process(target=_spin, args=(stop,), daemon=True)
    worker.start()
    try:
        time.sleep(0.2)
        yield
    finally:
        stop.set()
        worker.join()


def build(n: int, batches: int, seed: int) -> tuple[neo4j_vectors.UserVectors, list[np.ndarray]]:
    rng = random.Random(seed + n)
    embedder = HashingEmbedder(wb.DIM)
    unique: dict[str, None] = {}
    while len(unique) < n:  # exact repeats would be one memory in a store
        unique[wb.message(rng)[1]] = None
    texts = list(unique)
    vectors = np.asarray(embedder.embed(texts), dtype=np.float32)
    cache = neo4j_vectors.UserVectors(wb.DIM, "bench", 0)
    for start in range(0, n, CHUNK):
        end = min(start + CHUNK, n)
        cache.apply([(f"v{i}", f"m{i}", True, vectors[i]) for i in range(start, end)])
    seen = set(texts)
    fresh = [t for t in (wb.message(rng)[1] for _ in range(batches * wb.PER_CALL * 2)) if t not in seen]
    queries = []
    for b in range(batches):
        block = np.asarray(embedder.embed(fresh[b * wb.PER_CALL:(b + 1) * wb.PER_CALL]), dtype=np.float32)
        queries.append(block / np.linalg.norm(block, axis=1, keepdims=True))
    return cache, queries


def timed(cache: neo4j_vectors.UserVectors, queries: list[np.ndarray], one_thread: bool) -> dict:
    config = WriterConfig()
    original = neo4j_vectors.one_thread
    if not one_thread:
        neo4j_vectors.one_thread = contextlib.nullcontext
    try:
        cache.nearest(queries[0], config.similar_links, config.similar_threshold)  # groups fitted
        ms = []
        for q in queries:
            started = time.perf_counter()
            cache.nearest(q, config.similar_links, config.similar_threshold)
            ms.append((time.perf_counter() - started) * 1000)
    finally:
        neo4j_vectors.one_thread = original
    return {"mean_ms": float(np.mean(ms)), **sb.pcts(ms)}


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--sizes", default="20000,100000")
    p.add_argument("--batches", type=int, default=24)
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--out", default="benchmarks/results/neighbour-threads.json")
    args = p.parse_args(argv)
    report: dict = {"machine": sb.machine_info(), "config": vars(args), "runs": []}
    print(f"{'rows':>8} {'other core':>11} {'BLAS threads':>13} {'mean ms':>8} {'p50 ms':>7} {'p95 ms':>7}")
    for n in (int(s) for s in args.sizes.split(",")):
        sb.log(f"building {n:,} rows")
        cache, queries = build(n, args.batches, args.seed)
        for busy in (False, True):
            with busy_core(busy):
                for one in (False, True):
                    r = timed(cache, queries, one)
                    run = {"rows": n, "busy_core": busy, "one_thread": one, **r}
                    report["runs"].append(run)
                    print(f"{n:>8,} {'busy' if busy else 'idle':>11} {'1' if one else 'all':>13} "
                          f"{r['mean_ms']:>8.1f} {r['p50_ms']:>7.1f} {r['p95_ms']:>7.1f}", flush=True)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=2, default=str) + "\n")
    sb.log(f"wrote {out}")


if __name__ == "__main__":
    main()
