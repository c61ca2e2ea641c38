"""Store benchmark: batched load, search latency, inline writes and memory, per backend and size.

For each backend (embedded SQLite, local Neo4j 5.26) and size N: load N memories of one user
(Memory + MemoryVersion with a clustered 384-d embedding + Episode + FROM edge) in batches of
1,000 beside a small second tenant in the same clusters; then time Neo4j's index wait, vector
top-10 search (user filter; + valid_at; the small tenant) with recall@10, text top-10 search
(2-4 words) and a 1-memory write (the Writer's inline path), and read this process's and the
Neo4j server's RSS.

Run:  python -m benchmarks.store [--sizes 1000,10000,100000] [--backends sqlite,neo4j]
                                 [--queries 200] [--out benchmarks/results/store.json]
Tables go to stdout, progress to stderr; the JSON is rewritten after every (backend, size).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections import namedtuple
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from importlib import metadata
from pathlib import Path

import numpy as np
from neo4j import GraphDatabase

from dualmem_core import FAR_FUTURE, open_store
from dualmem_core.local_neo4j import LocalNeo4j, ensure_built
from dualmem_core.store import Edge, EdgeType, Entity, Episode, Memory, MemoryVersion, WriteBatch
from dualmem_core.store.models import SearchFilter

DIM, K, BATCH, WARMUP = 384, 10, 1000, 20
CENTROIDS, SPREAD, QUERY_NOISE = 200, 0.6, 0.2  # same-cluster cosine ~0.74, query-source ~0.98
VOCAB, ZIPF = 3000, 1.0
USER, OTHER, OTHER_SIZE, SINGLE_WRITES = "bench-user", "bench-other", 200, 55
T0 = datetime(2026, 1, 1, tzinfo=UTC)
VALID_AT = T0 - timedelta(days=365)  # about 45% of the versions are valid then
NEO4J_HEAP, NEO4J_PAGECACHE = "4g", "2g"  # 100k x 384 float32 is ~150 MB of vectors + HNSW graph


def log(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def unit(a: np.ndarray) -> np.ndarray:
    return a / np.linalg.norm(a, axis=-1, keepdims=True)


Data = namedtuple("Data", "user ids vectors texts valid_from valid_to")  # one user's memories


def make_words(rng: np.random.Generator) -> list[str]:
    syllables = [c + v for c in "bcdfghklmnprstvz" for v in "aeiou"]
    return list(rng.choice([a + b for a in syllables for b in syllables], VOCAB, replace=False))


def make_data(user: str, n: int, rng: np.random.Generator, words: list[str], centroids: np.ndarray) -> Data:
    labels = rng.integers(0, len(centroids), n)
    vectors = unit(centroids[labels] + SPREAD * unit(rng.standard_normal((n, DIM), np.float32)))
    probs = 1.0 / np.arange(1, len(words) + 1) ** ZIPF  # word frequencies follow Zipf's law
    lengths = rng.integers(6, 15, n)
    tokens = rng.choice(len(words), size=int(lengths.sum()), p=probs / probs.sum())
    texts = [" ".join(words[t] for t in tokens[e - m:e])
             for e, m in zip(np.cumsum(lengths), lengths, strict=True)]
    valid_from = [T0 - timedelta(days=float(d)) for d in rng.uniform(0, 730, n)]
    closed, span = rng.random(n) < 0.25, rng.uniform(30, 365, n)
    valid_to = [f + timedelta(days=float(s)) if c else FAR_FUTURE
                for f, s, c in zip(valid_from, span, closed, strict=True)]
    return Data(user, [f"mem_{rng.bytes(16).hex()}" for _ in range(n)], vectors, texts, valid_from, valid_to)


def batch_of(d: Data, lo: int, hi: int) -> WriteBatch:
    """Episode + Memory + MemoryVersion + FROM edge for memories lo..hi-1."""
    b = WriteBatch()
    for i in range(lo, hi):
        ep = Episode(user_id=d.user, text=d.texts[i], observed_at=d.valid_from[i])
        b.episodes.append(ep)
        b.memories.append(Memory(user_id=d.user, id=d.ids[i]))
        b.versions.append(MemoryVersion(memory_id=d.ids[i], user_id=d.user, text=d.texts[i],
                                        valid_from=d.valid_from[i], valid_to=d.valid_to[i],
                                        embedding=d.vectors[i]))
        b.edges.append(Edge(user_id=d.user, type=EdgeType.FROM, src_id=d.ids[i], dst_id=ep.id))
    return b


def vector_queries(d: Data, rng: np.random.Generator, count: int, pool=None) -> tuple[list, list]:
    """(source memory id, noisy unit copy of its vector) for ``count`` random stored vectors."""
    src = rng.choice(len(d.ids) if pool is None else pool, count)
    noisy = unit(d.vectors[src] + QUERY_NOISE * unit(rng.standard_normal((count, DIM), np.float32)))
    return [d.ids[s] for s in src], list(noisy)


def text_queries(d: Data, rng: np.random.Generator, count: int) -> list[str]:
    """2-4 distinct words of a random stored text."""
    texts = [list(dict.fromkeys(d.texts[i].split())) for i in rng.integers(0, len(d.texts), count)]
    return [" ".join(rng.choice(w, size=min(len(w), int(rng.integers(2, 5))), replace=False)) for w in texts]


def make_inputs(n: int, queries: int, seed: int) -> dict:
    """Everything one size needs, identical for every backend."""
    rng = np.random.default_rng(seed + n)
    words, centroids = make_words(rng), unit(rng.standard_normal((CENTROIDS, DIM), np.float32))
    d, other = make_data(USER, n, rng, words, centroids), make_data(OTHER, OTHER_SIZE, rng, words, centroids)
    valid = np.flatnonzero([f <= VALID_AT < t for f, t in zip(d.valid_from, d.valid_to, strict=True)])
    other_batch = batch_of(other, 0, OTHER_SIZE)  # the other tenant also has entities its memories MENTION
    ents = other_batch.entities = [Entity(user_id=OTHER, name=f"entity {i}") for i in range(20)]
    other_batch.edges += [Edge(user_id=OTHER, type=EdgeType.MENTIONS, src_id=m, dst_id=ents[j].id)
                          for m in other.ids for j in rng.choice(20, size=2, replace=False)]
    count = queries + WARMUP
    return {"user": d, "other_batch": other_batch, "vec": vector_queries(d, rng, count),
            "vec_valid": vector_queries(d, rng, count, valid), "vec_other": vector_queries(other, rng, count),
            "text": text_queries(d, rng, count),
            "single": make_data(USER, SINGLE_WRITES, rng, words, centroids)}


def pcts(ms: list[float]) -> dict[str, float]:
    a = np.asarray(ms)
    return {"n": len(a), **{f"p{q}_ms": float(np.percentile(a, q)) for q in (50, 95, 99)},
            "mean_ms": float(a.mean())}


def timed(fn, *args) -> tuple[float, object]:
    t = time.perf_counter()
    out = fn(*args)
    return (time.perf_counter() - t) * 1000, out


def run_queries(search, items: list, flt: SearchFilter, wanted: list[str] | None = None) -> dict:
    """Latency of ``search(item, flt, K)`` after WARMUP calls; recall@K when ``wanted`` ids are given."""
    for item in items[:WARMUP]:
        search(item, flt, K)
    times, found, hits = [], 0, 0
    for i, item in enumerate(items[WARMUP:], WARMUP):
        ms, result = timed(search, item, flt, K)
        times.append(ms)
        hits += len(result)
        found += wanted is not None and wanted[i] in {h.memory.id for h in result}
    stats = {**pcts(times), "mean_hits": hits / len(times)}
    return stats | ({"recall_at_10": found / len(times)} if wanted is not None else {})


def load(store, d: Data, timeout: float) -> dict:
    """Write d in batches of BATCH; throughput counts write() time, wall also batch building."""
    times, loaded, start = [], 0, time.perf_counter()
    for lo in range(0, len(d.ids), BATCH):
        batch = batch_of(d, lo, min(len(d.ids), lo + BATCH))
        times.append(timed(store.write, batch)[0] / 1000)
        loaded += len(batch.memories)
        if len(times) % 10 == 0:
            log(f"  loaded {loaded:,} ({loaded / sum(times):,.0f} memories/s, last batch {times[-1]:.2f} s)")
        if time.perf_counter() - start > timeout:
            log(f"  load timeout after {loaded:,} memories")
            break
    write_s = sum(times)
    return {"memories": loaded, "records": 4 * loaded, "write_s": write_s,
            "wall_s": time.perf_counter() - start, "memories_per_s": loaded / write_s,
            "records_per_s": 4 * loaded / write_s,
            "batch_p50_s": float(np.median(times)), "batch_max_s": max(times), "aborted": loaded < len(d.ids)}


def rss_mb(pid: int | str = "self") -> dict[str, float]:
    lines = Path(f"/proc/{pid}/status").read_text().splitlines()
    kb = {ln.split(":")[0]: int(ln.split()[1]) for ln in lines if ln.startswith(("VmRSS", "VmHWM"))}
    return {"rss_mb": kb["VmRSS"] / 1024, "peak_mb": kb["VmHWM"] / 1024}


@contextmanager
def opened(backend: str, tmp: Path) -> Iterator[tuple[object, object]]:
    """(store, server or None) on a fresh SQLite file or a fresh Neo4j data directory."""
    if backend == "sqlite":
        with open_store(f"sqlite:///{tmp / 'bench.db'}", dimension=DIM) as store:
            yield store, None
        return
    ensure_built()
    server = LocalNeo4j(tmp / "neo4j", heap=NEO4J_HEAP, pagecache=NEO4J_PAGECACHE)
    try:  # stopped whatever happens, the store's own errors included
        with open_store(server.start(timeout=300), dimension=DIM) as store:
            yield store, server
    finally:
        server.stop()


def neo4j_call(server, query: str) -> list[dict]:
    with GraphDatabase.driver(server.uri, auth=None) as driver:
        return [r.data() for r in driver.execute_query(query).records]


def bench(backend: str, n: int, data: dict, load_timeout: float) -> dict:
    d, flt = data["user"], SearchFilter(USER)
    out: dict = {"backend": backend, "n": n, "other_tenant_memories": OTHER_SIZE, "loadavg": os.getloadavg(),
                 "python_rss_before_mb": rss_mb()["rss_mb"]}  # inputs held, no store open yet
    tmp = Path(tempfile.mkdtemp(prefix=f"dualmem-bench-{backend}-"))
    try:
        with opened(backend, tmp) as (store, server):
            if server is not None:
                out["server_version"] = neo4j_call(server, "CALL dbms.components()")[0]["versions"][0]
            store.write(data["other_batch"])
            log(f"{backend} N={n:,}: loading")
            out["load"] = load(store, d, load_timeout)
            if out["load"]["aborted"]:
                return out
            if server is not None:
                out["index_wait_s"] = timed(neo4j_call, server, "CALL db.awaitIndexes(3600)")[0] / 1000
            out["cold_vector_query_ms"] = timed(store.vector_search, data["vec"][1][0], flt, K)[0]
            log(f"{backend} N={n:,}: queries")
            for key, (wanted, vectors), f in (
                    ("vector", data["vec"], flt),
                    ("vector_valid_at", data["vec_valid"], SearchFilter(USER, valid_at=VALID_AT)),
                    ("vector_small_tenant", data["vec_other"], SearchFilter(OTHER))):
                out[key] = run_queries(store.vector_search, vectors, f, wanted)
            out["text"] = run_queries(store.text_search, data["text"], flt)
            single = data["single"]
            ms = [timed(store.write, batch_of(single, i, i + 1))[0] for i in range(len(single.ids))]
            out["write_1"] = pcts(ms[5:])  # the first five warm up
            peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
            out["python_rss"] = rss_mb() | {"ru_maxrss_mb": peak_kb / 1024}
            if server is not None:
                out["server_rss"] = rss_mb(server.pid)
        if backend == "sqlite":
            out["db_file_mb"] = sum(f.stat().st_size for f in tmp.glob("bench.db*")) / 2**20
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return out


def render(r: dict) -> str:
    ld, version = r["load"], f"  Neo4j {r['server_version']}" if "server_version" in r else ""
    lines = [f"== {r['backend']}  N={r['n']:,}  (+ other tenant of {r['other_tenant_memories']} memories)"
             f"{version}  loadavg {r['loadavg'][0]:.1f}",
             f"load {ld['memories']:,} memories: {ld['wall_s']:.1f} s wall, {ld['write_s']:.1f} s in write,"
             f" {ld['memories_per_s']:,.0f} memories/s, {ld['records_per_s']:,.0f} records/s;"
             f" batch of {BATCH}: p50 {ld['batch_p50_s']:.2f} s, max {ld['batch_max_s']:.2f} s"]
    if ld["aborted"]:
        return "\n".join([*lines, "LOAD ABORTED (timeout): nothing else measured", ""])
    wait = f"index wait {r['index_wait_s']:.2f} s, " if "index_wait_s" in r else ""
    lines += [f"{wait}first (cold) vector query {r['cold_vector_query_ms']:.1f} ms",
              f"{'operation':<30}{'p50 ms':>9}{'p95 ms':>9}{'p99 ms':>9}{'mean ms':>9}  note"]
    for label, key in (("vector top-10", "vector"), ("vector top-10 + valid_at", "vector_valid_at"),
                       ("vector top-10, small tenant", "vector_small_tenant"), ("text top-10", "text"),
                       ("write 1 memory (4 records)", "write_1")):
        s = r[key]
        note = (f"recall@10 {s['recall_at_10']:.3f}" if "recall_at_10" in s else
                f"hits/query {s['mean_hits']:.1f}" if "mean_hits" in s else "")
        cells = "".join(f"{s[c]:>9.2f}" for c in ("p50_ms", "p95_ms", "p99_ms", "mean_ms"))
        lines.append(f"{label:<30}{cells}  {note}")
    py, srv = r["python_rss"], r.get("server_rss")
    mem = (f"python RSS {py['rss_mb']:,.0f} MB ({r['python_rss_before_mb']:,.0f} MB before the store opened,"
           f" process peak so far {py['peak_mb']:,.0f} MB)") + (
        f"; Neo4j server RSS {srv['rss_mb']:,.0f} MB (peak {srv['peak_mb']:,.0f} MB)" if srv else
        f"; SQLite files {r['db_file_mb']:,.0f} MB")
    return "\n".join([*lines, mem, ""])


def machine_info() -> dict:
    java = shutil.which("java") and subprocess.run(["java", "-version"], capture_output=True,
                                                   text=True).stderr.split("\n")[0]
    return {"cpu_count": os.cpu_count(), "platform": platform.platform(), "python": sys.version.split()[0],
            "date": datetime.now(UTC).isoformat(timespec="seconds"), "sqlite": sqlite3.sqlite_version,
            "numpy": np.__version__, "neo4j_driver": metadata.version("neo4j"), "java": java,
            "neo4j_heap": NEO4J_HEAP, "neo4j_pagecache": NEO4J_PAGECACHE}


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--sizes", default="1000,10000,100000")
    p.add_argument("--backends", default="sqlite,neo4j")
    p.add_argument("--queries", type=int, default=200)
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--load-timeout", type=float, default=1800.0, help="seconds before a load gives up")
    p.add_argument("--out", default="benchmarks/results/store.json")
    args = p.parse_args(argv)
    report = {"machine": machine_info(), "runs": [], "config": {
        **vars(args), "dimension": DIM, "k": K, "batch": BATCH, "warmup": WARMUP, "centroids": CENTROIDS,
        "spread": SPREAD, "query_noise": QUERY_NOISE, "vocab": VOCAB, "zipf": ZIPF,
        "valid_at": VALID_AT.isoformat(), "other_tenant_memories": OTHER_SIZE}}
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    for n in (int(s) for s in args.sizes.split(",")):
        data = make_inputs(n, args.queries, args.seed)
        for backend in args.backends.split(","):
            report["runs"].append(bench(backend, n, data, args.load_timeout))
            print(render(report["runs"][-1]), flush=True)
            out.write_text(json.dumps(report, indent=2) + "\n")
    log(f"wrote {out}")


if __name__ == "__main__":
    main()
