"""Load: N threads remembering and recalling at once on one store, for a bounded time.

Every thread shares one ``Writer`` (as a server would) and works on one of a few users, so
threads contend on the same user's records. Half the calls remember one chat message (its own
source id), half recall a question (k=5). Afterwards every message sent must be stored as
exactly one episode with its text (nothing lost, nothing doubled) and no call may have raised.
Reported per store: calls per second, p50/p95 latency of each call, what was lost, doubled or
raised. Embeddings: the deterministic ``HashingEmbedder``; facts: the rule extractor.

Before the clock starts each user gets SEED_MESSAGES messages and WARMUP_CALLS remember and
recall calls (a fresh Neo4j takes seconds over its first queries); they are checked too.

Run:  python -m benchmarks.load [--backends sqlite,neo4j] [--threads 4] [--seconds 5] [--users 2]
                                [--warmup 3] [--neo4j-uri bolt://...] [--out benchmarks/results/load.json]
Without --neo4j-uri a local Neo4j is started in a temp dir (and stopped). The same load runs
--warmup seconds first, on other users, unmeasured but checked (a fresh JVM is slow at first).
Exits 1 if anything was lost, doubled or raised.
``tests/reliability/test_reliability_load.py`` runs ``run_load`` on both stores.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import tempfile
import threading
import time
import uuid
from collections import Counter
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np

from dualmem_core import Writer, open_store
from dualmem_core.store import DEFAULT_DIMENSION, Store

T0 = datetime(2025, 6, 1, tzinfo=UTC)
PLACES = "Portland Seattle Denver Austin Boston Chicago Lisbon Berlin Dublin Kyoto Seoul Oslo".split()
NAMES = "Lena Marco Hana Omar Priya Tomas Ingrid Ravi Sofia Kenji Amara Lucas".split()
FOODS = "ramen tacos sushi pho paella falafel dumplings curry".split()
SAY = [
    "I moved to {place} last week.",
    "My sister {name} lives in {place}.",
    "I love {food}.",
    "{name} and I had {food} in {place} yesterday.",
    "I work at {place} Labs as an engineer.",
]
ASK = [
    "Where does the user live?",
    "What food does the user like?",
    "Who is {name}?",
    "Tell me about {place}.",
]
SEED_MESSAGES = 20  # per user, before the clock starts, so the first recalls find something
WARMUP_CALLS = 3  # single remembers and recalls per user before the clock starts


def _fill(template: str, rng: random.Random) -> str:
    return template.format(place=rng.choice(PLACES), name=rng.choice(NAMES), food=rng.choice(FOODS))


def _latency(ms: list[float], seconds: float) -> dict:
    if not ms:
        return {"n": 0, "per_s": 0.0, "p50_ms": None, "p95_ms": None}
    a = np.asarray(ms)
    return {
        "n": len(ms),
        "per_s": round(len(ms) / seconds, 2),
        "p50_ms": round(float(np.percentile(a, 50)), 1),
        "p95_ms": round(float(np.percentile(a, 95)), 1),
    }


def run_load(store: Store, *, threads: int = 4, seconds: float = 5.0, users: int = 2, seed: int = 0) -> dict:
    """Remember and recall from ``threads`` threads for ``seconds``; check every message is stored once."""
    writer = Writer(store)
    tag = uuid.uuid4().hex[:8]
    user_ids = [f"load-{tag}-{i}" for i in range(users)]
    sent: dict[str, dict[str, str]] = {u: {} for u in user_ids}  # user -> source id -> text
    rng = random.Random(seed)
    for u in user_ids:
        seeded = [
            {"content": _fill(rng.choice(SAY), rng), "source_id": f"seed-{i}", "at": T0 + timedelta(hours=i)}
            for i in range(SEED_MESSAGES)
        ]
        writer.remember(seeded, user_id=u)
        sent[u].update({m["source_id"]: m["content"] for m in seeded})
        for i in range(WARMUP_CALLS):  # a fresh server plans each query once: not what is measured
            text = _fill(rng.choice(SAY), rng)
            writer.remember(
                text, user_id=u, source_id=f"warm-{i}", at=T0 + timedelta(hours=SEED_MESSAGES + i)
            )
            sent[u][f"warm-{i}"] = text
            writer.recall(_fill(rng.choice(ASK), rng), user_id=u, k=5)
    latencies: dict[str, list[float]] = {"remember": [], "recall": []}
    errors: list[str] = []
    lock, start = threading.Lock(), threading.Barrier(threads + 1)
    deadline = [0.0]

    def work(index: int) -> None:
        local = random.Random(seed * 1000 + index)
        user = user_ids[index % users]
        mine: dict[str, str] = {}
        times: dict[str, list[float]] = {"remember": [], "recall": []}
        start.wait()
        i = 0
        while time.perf_counter() < deadline[0]:
            i += 1
            began = time.perf_counter()
            try:
                if local.random() < 0.5:
                    source_id, text = f"t{index}-{i}", _fill(local.choice(SAY), local)
                    at = T0 + timedelta(days=1, seconds=index * 100_000 + i)
                    writer.remember(text, user_id=user, source_id=source_id, at=at)
                    mine[source_id] = text
                    kind = "remember"
                else:
                    writer.recall(_fill(local.choice(ASK), local), user_id=user, k=5)
                    kind = "recall"
            except Exception as exc:  # noqa: BLE001 - every failure is counted and reported
                with lock:
                    errors.append(f"thread {index}: {type(exc).__name__}: {exc}")
                continue
            times[kind].append((time.perf_counter() - began) * 1000)
        with lock:
            sent[user].update(mine)
            for kind, ms in times.items():
                latencies[kind].extend(ms)

    pool = [threading.Thread(target=work, args=(i,), name=f"load-{i}") for i in range(threads)]
    for thread in pool:
        thread.start()
    deadline[0] = time.perf_counter() + seconds
    began = time.perf_counter()
    start.wait()
    for thread in pool:
        thread.join()
    elapsed = time.perf_counter() - began
    lost, doubled, stray = [], [], 0
    for u, messages in sent.items():
        episodes = store.episodes_by_source(u, list(messages))
        found = Counter(e.source_id for e in episodes)
        texts = {e.source_id: e.text for e in episodes}
        lost += [f"{u}/{s}" for s in messages if found[s] == 0 or texts[s] != messages[s]]
        doubled += [f"{u}/{s}" for s, n in found.items() if n > 1]
        stray += store.counts(u)["episodes"] - len(episodes)  # episodes nobody sent
    total = len(latencies["remember"]) + len(latencies["recall"])
    return {
        "store": "sqlite" if store.url.startswith("sqlite") else "neo4j",
        "threads": threads,
        "users": users,
        "seconds": round(elapsed, 2),
        "calls_per_s": round(total / elapsed, 2),
        "remember": _latency(latencies["remember"], elapsed),
        "recall": _latency(latencies["recall"], elapsed),
        "messages_checked": sum(len(m) for m in sent.values()),
        "lost": lost,
        "doubled": doubled,
        "stray_episodes": stray,
        "errors": errors,
    }


COLUMNS = [  # (heading, width, cell)
    ("store", -7, lambda r: r["store"]),
    ("thr", 3, lambda r: r["threads"]),
    ("sec", 5, lambda r: r["seconds"]),
    ("calls/s", 8, lambda r: r["calls_per_s"]),
    ("remember/s", 10, lambda r: r["remember"]["per_s"]),
    ("rem p50", 8, lambda r: r["remember"]["p50_ms"]),
    ("rem p95", 8, lambda r: r["remember"]["p95_ms"]),
    ("recall/s", 9, lambda r: r["recall"]["per_s"]),
    ("rec p50", 8, lambda r: r["recall"]["p50_ms"]),
    ("rec p95", 8, lambda r: r["recall"]["p95_ms"]),
    ("checked", 8, lambda r: r["messages_checked"]),
    ("lost", 5, lambda r: len(r["lost"])),
    ("dup", 4, lambda r: len(r["doubled"])),
    ("errors", 6, lambda r: len(r["errors"])),
]


def table(results: list[dict]) -> str:
    """One row per store; latencies in ms."""

    def line(cells: list) -> str:
        return " ".join(
            f"{'-' if c is None else c!s:{'<' if w < 0 else '>'}{abs(w)}}"
            for c, (_, w, _) in zip(cells, COLUMNS, strict=True)
        )

    head = line([h for h, _, _ in COLUMNS])
    rows = [line([cell(r) for _, _, cell in COLUMNS]) for r in results]
    return "\n".join([head, "-" * len(head), *rows, "(latencies in ms)"])


@contextmanager
def _opened(backend: str, tmp: Path, neo4j_uri: str | None):
    if backend == "sqlite":
        with open_store(f"sqlite:///{tmp / 'load.db'}", dimension=DEFAULT_DIMENSION) as store:
            yield store
        return
    if neo4j_uri:
        with open_store(neo4j_uri, dimension=DEFAULT_DIMENSION) as store:
            yield store
        return
    from dualmem_core.local_neo4j import LocalNeo4j, ensure_built

    ensure_built()
    server = LocalNeo4j(tmp / "neo4j")
    try:
        with open_store(server.start(timeout=300), dimension=DEFAULT_DIMENSION) as store:
            yield store
    finally:
        server.stop()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--backends", default="sqlite,neo4j")
    parser.add_argument("--threads", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--users", type=int, default=2)
    parser.add_argument(
        "--warmup", type=float, default=3.0, help="seconds of the same load first, unmeasured"
    )
    parser.add_argument("--neo4j-uri", default=os.environ.get("NEO4J_URI"))
    parser.add_argument("--out", type=Path, default=Path("benchmarks/results/load.json"))
    args = parser.parse_args(argv)
    results = []
    for backend in args.backends.split(","):
        with tempfile.TemporaryDirectory(prefix=f"dualmem-load-{backend}-") as tmp:
            with _opened(backend, Path(tmp), args.neo4j_uri) as store:
                print(f"{backend}: {args.threads} threads for {args.seconds} s", file=sys.stderr, flush=True)
                warm = run_load(store, threads=args.threads, seconds=args.warmup, users=args.users, seed=1)
                results.append(run_load(store, threads=args.threads, seconds=args.seconds, users=args.users))
                results[-1]["warmup"] = {
                    k: warm[k] for k in ("seconds", "calls_per_s", "lost", "doubled", "errors")
                }
    print(table(results))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    meta = {
        "run_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "cpus": os.cpu_count(),
        "loadavg_after": [round(x, 2) for x in os.getloadavg()],
    }
    args.out.write_text(json.dumps({"machine": meta, "results": results}, indent=2) + "\n")
    failed = any(
        r["lost"]
        or r["doubled"]
        or r["stray_episodes"]
        or r["errors"]
        or any(r["warmup"][k] for k in ("lost", "doubled", "errors"))
        for r in results
    )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
