"""Editor benchmark: a full run at several sizes and an incremental run of new memories on big graphs.

Each scenario runs in its own process on a fresh embedded store (peak RSS is that process's, so an
incremental row includes the full run on its base before it):

* ``full:N``: N memories, none reviewed yet, one Editor run over all of them;
* ``incremental:N``: N memories edited by a first full run (timed too, reported as ``full``),
  then ``--new`` memories arrive and one more Editor run reviews them.

The graph is one user's chat history in miniature: facts with triples about a few hundred
people (single-valued ones that change over time, multi-valued ones that accumulate), about 5%
of them said again with a small change of wording (duplicates to find), the raw message of each
as an observation, entities with MENTIONS edges, hashing-embedder vectors. No model is called.

The last lines print each row's seconds per stage and, with two or more ``--incremental`` sizes, how
each stage of the incremental run grew from the smallest graph to the bigger ones (also in the
JSON, ``incremental_growth``): a stage that grows with the graph is named (issue 37).

Run:  python -m benchmarks.editor [--full 1000,10000] [--incremental 10000,100000] [--new 1000]
                                  [--out benchmarks/results/editor.json]
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np

from dualmem_core import Editor, open_store
from dualmem_core.editor.stages import STAGES
from dualmem_core.providers import HashingEmbedder
from dualmem_core.store import Edge, EdgeType, Entity, Episode, Memory, MemoryVersion, WriteBatch

USER, DIM, BATCH = "bench-editor", 384, 2000
T0 = datetime(2024, 1, 1, tzinfo=UTC)
PEOPLE = [
    f"{first} {last}"
    for first in (
        "Ana",
        "Ben",
        "Chloe",
        "Dev",
        "Eli",
        "Fay",
        "Gus",
        "Hana",
        "Ivan",
        "Jade",
        "Kofi",
        "Lena",
        "Milo",
        "Nora",
        "Omar",
        "Pia",
        "Quinn",
        "Rosa",
        "Sami",
        "Tara",
    )
    for last in (
        "Abbott",
        "Brandt",
        "Costa",
        "Dunn",
        "Ekman",
        "Fox",
        "Gill",
        "Holt",
        "Ito",
        "Jung",
        "Kerr",
        "Lund",
        "Moss",
        "Nash",
        "Ortiz",
    )
]
CITIES = [
    "Portland",
    "Denver",
    "Austin",
    "Boston",
    "Seattle",
    "Chicago",
    "Atlanta",
    "Phoenix",
    "Dallas",
    "Miami",
    "Tucson",
    "Omaha",
    "Fresno",
    "Tulsa",
    "Reno",
    "Boise",
    "Salem",
    "Eugene",
    "Provo",
    "Ogden",
]
ORGS = ["Acme", "Globex", "Initech", "Umbrella", "Hooli", "Vandelay", "Stark", "Wayne", "Tyrell", "Cyberdyne"]
HOBBIES = [
    "hiking",
    "chess",
    "pottery",
    "cycling",
    "baking",
    "jazz",
    "climbing",
    "sailing",
    "knitting",
    "tennis",
]


def log(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def statements(n: int, rng: np.random.Generator, start: int) -> list[tuple[str, str, str, str, datetime]]:
    """n (text, subject, predicate, object, valid_from) facts; about 5% re-tell an earlier one."""
    out: list[tuple[str, str, str, str, datetime]] = []
    for i in range(n):
        when = T0 + timedelta(hours=3 * (start + i))
        if out and rng.random() < 0.05:
            text, s, p, o, _ = out[int(rng.integers(len(out)))]
            out.append((text.rstrip(".") + "!", s, p, o, when))
            continue
        person = PEOPLE[int(rng.integers(len(PEOPLE)))]
        kind = rng.random()
        if kind < 0.35:
            o = CITIES[int(rng.integers(len(CITIES)))]
            out.append((f"{person} lives in {o}.", person, "lives_in", o, when))
        elif kind < 0.6:
            o = ORGS[int(rng.integers(len(ORGS)))]
            out.append((f"{person} works at {o}.", person, "works_at", o, when))
        else:
            o = HOBBIES[int(rng.integers(len(HOBBIES)))]
            out.append((f"{person} likes {o}.", person, "likes", o, when))
    return out


def build(
    n: int,
    start: int,
    reviewed: bool,
    rng: np.random.Generator,
    entity_ids: dict[str, str],
    embedder: HashingEmbedder,
) -> list[WriteBatch]:
    """n memories (half facts, half the observations they came from) in write batches."""
    batches, facts = [], statements(n // 2, rng, start)
    state = "reviewed" if reviewed else "new"
    for lo in range(0, len(facts), BATCH // 2):
        b = WriteBatch()
        chunk = facts[lo : lo + BATCH // 2]
        said = [f"Guess what: {text[0].lower()}{text[1:]}" for text, *_ in chunk]
        vectors = embedder.embed([t for t, *_ in chunk] + said)
        for j, ((text, s, p, o, when), message) in enumerate(zip(chunk, said, strict=True)):
            ep = Episode(
                user_id=USER, text=message, observed_at=when, session_id=f"s{(start + lo + j) // 20}"
            )
            b.episodes.append(ep)
            for kind, body, vec, triple in (
                ("fact", text, vectors[j], (s, p, o)),
                ("observation", message, vectors[len(chunk) + j], (None,) * 3),
            ):
                m = Memory(user_id=USER, kind=kind, review_state=state)
                b.memories.append(m)
                b.versions.append(
                    MemoryVersion(
                        memory_id=m.id,
                        user_id=USER,
                        text=body,
                        valid_from=when,
                        embedding=np.asarray(vec, dtype=np.float32),
                        subject=triple[0],
                        predicate=triple[1],
                        object=triple[2],
                        confidence=0.7,
                    )
                )
                b.edges.append(Edge(user_id=USER, type=EdgeType.FROM, src_id=m.id, dst_id=ep.id))
                for name, type_ in ((s, "person"), (o, "place" if p == "lives_in" else "thing")):
                    if name not in entity_ids:
                        entity = Entity(user_id=USER, name=name, type=type_)
                        b.entities.append(entity)
                        entity_ids[name] = entity.id
                    b.edges.append(
                        Edge(user_id=USER, type=EdgeType.MENTIONS, src_id=m.id, dst_id=entity_ids[name])
                    )
        batches.append(b)
    return batches


def scenario(kind: str, size: int, new: int, folder: Path) -> list[dict]:
    rng, embedder = np.random.default_rng(7), HashingEmbedder(DIM)
    entity_ids: dict[str, str] = {}
    rows = []
    with open_store(f"sqlite:///{folder / 'editor.db'}") as store:
        started = time.perf_counter()
        for batch in build(size, 0, False, rng, entity_ids, embedder):
            store.write(batch)
        rows.append(_measure(store, "full", size, size, time.perf_counter() - started))
        if kind == "incremental":
            started = time.perf_counter()
            for batch in build(new, size, False, rng, entity_ids, embedder):
                store.write(batch)
            rows.append(_measure(store, "incremental", size + new, new, time.perf_counter() - started))
    return rows


def _measure(store, kind: str, memories: int, new: int, load_s: float) -> dict:
    t = time.perf_counter()
    store.export_graph(USER)
    export_s = time.perf_counter() - t
    t, load, collector = time.perf_counter(), _loadavg()[:1], _CollectorClock()
    cpu = time.process_time()
    with collector:
        run = Editor(store).run(USER)
    run_s, cpu_s = time.perf_counter() - t, time.process_time() - cpu
    return {
        "scenario": kind,
        "memories": memories,
        "new": new,
        "load_s": round(load_s, 2),
        "export_s": round(export_s, 2),
        "run_s": round(run_s, 2),
        # this process's CPU seconds in the run, and those of them the cycle collector took: on a
        # shared machine the wall-clock seconds follow the load, these much less
        "cpu_s": round(cpu_s, 2),
        "gc_s": round(collector.seconds, 2),
        "stage_s": {s.stage: s.seconds for s in run.stages},
        "operations": run.operations,
        "counts": run.counts,
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
        # the machine's 1-minute load average as the run began and ended: the stages' seconds
        # (and their growth) are wall-clock, comparable only under a similar load
        "load_1min": [*load, *_loadavg()[:1]],
    }


class _CollectorClock:
    """CPU seconds the cycle collector spends while it is entered (``gc.callbacks``): its full
    passes rescan every live object, so a run holding a big snapshot pays for the store in them."""

    def __init__(self) -> None:
        self.seconds, self._started = 0.0, 0.0

    def _tick(self, phase: str, info: dict) -> None:
        if phase == "start":
            self._started = time.process_time()
        else:
            self.seconds += time.process_time() - self._started

    def __enter__(self) -> _CollectorClock:
        gc.callbacks.append(self._tick)
        return self

    def __exit__(self, *exc: object) -> None:
        gc.callbacks.remove(self._tick)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--full", default="1000,10000")
    ap.add_argument("--incremental", default="10000,100000")
    ap.add_argument("--new", type=int, default=1000)
    ap.add_argument("--out", default="benchmarks/results/editor.json")
    ap.add_argument("--one", help=argparse.SUPPRESS)  # "kind:size": run one scenario in this process
    args = ap.parse_args()
    if args.one:
        kind, size = args.one.split(":")
        with tempfile.TemporaryDirectory() as folder:
            print(json.dumps(scenario(kind, int(size), args.new, Path(folder))))
        return
    incremental = [int(n) for n in args.incremental.split(",") if n]
    plan = [("full", int(n)) for n in args.full.split(",") if n and int(n) not in incremental]
    plan += [("incremental", n) for n in incremental]  # each also measures a full run on its base
    rows = []
    for kind, size in plan:
        log(f"{kind} {size} ...")
        out = subprocess.run(
            [sys.executable, "-m", "benchmarks.editor", "--one", f"{kind}:{size}", "--new", str(args.new)],
            capture_output=True,
            text=True,
        )
        if out.returncode != 0:
            sys.exit(f"{kind} {size} failed:\n{out.stderr}")
        for row in json.loads(out.stdout.strip().splitlines()[-1]):
            rows.append(row)
            log(f"  {row}")
    print("| run | memories | new | snapshot export | whole Editor run (export, stages, publish) "
          "| its CPU time | of it, the cycle collector | operations | peak RSS |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for r in rows:
        print(
            f"| {r['scenario']} | {r['memories']:,} | {r['new']:,} | {r['export_s']:.1f} s "
            f"| {r['run_s']:.1f} s | {r['cpu_s']:.1f} s | {r['gc_s']:.1f} s | {r['operations']:,} "
            f"| {r['peak_rss_mb']:,} MB |"
        )
    print()
    print("seconds per stage (" + ", ".join(STAGES) + "):")
    for r in rows:
        print(f"  {r['scenario']:<11} {r['memories']:>7,}: {_stages(r['stage_s'])}; "
              f"stages total {sum(r['stage_s'].values()):.1f} s; load {_load(r)}")
    growth = incremental_growth(rows)
    for g in growth:
        print(g["line"])
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(
        json.dumps(
            {
                "machine": platform.platform(),
                "cpus": os.cpu_count(),
                "rows": rows,
                "incremental_growth": [{k: v for k, v in g.items() if k != "line"} for g in growth],
                "load_average": list(_loadavg()),
            },
            indent=2,
        )
        + "\n"
    )


def _load(row: dict) -> str:
    return " -> ".join(f"{x:.1f}" for x in row.get("load_1min", ())) or "unknown"


def _stages(seconds: dict[str, float]) -> str:
    return ", ".join(f"{s} {seconds.get(s, 0.0):.1f} s" for s in STAGES)


def incremental_growth(rows: list[dict]) -> list[dict]:
    """How each stage's seconds of an incremental run (the same ``--new`` memories) grow from the
    smallest graph to each bigger one. An incremental run should cost what is new, so a stage
    whose time grows as fast as the graph or faster (``grows_with_graph``: more than half the
    graph's growth, and more than a second) reads the whole graph; one that grows faster than
    it (``faster_than_graph``: 1.5 times the graph's growth) reads the whole graph per new
    memory or per member: issue 37, where supersede went from 0.1 s at 11k to 76.9 s at 101k."""
    runs = sorted((r for r in rows if r["scenario"] == "incremental"), key=lambda r: r["memories"])
    out = []
    for big in runs[1:]:
        small = runs[0]
        graph = big["memories"] / small["memories"]
        ratios = {s: big["stage_s"].get(s, 0.0) / max(small["stage_s"].get(s, 0.0), 0.01) for s in STAGES}
        slow = [s for s in STAGES if big["stage_s"].get(s, 0.0) > 1.0]
        flagged = [s for s in slow if ratios[s] > max(2.0, graph / 2)]
        faster = [s for s in slow if ratios[s] > 1.5 * graph]
        run = big["run_s"] / max(small["run_s"], 0.01)
        # CPU seconds grow as the work does whatever the machine's load: the figure to judge by
        cpu = big.get("cpu_s", 0.0) / max(small.get("cpu_s", 0.0), 0.01)
        line = (f"incremental growth {small['memories']:,} -> {big['memories']:,} memories (x{graph:.1f}): "
                + ", ".join(f"{s} x{ratios[s]:.1f}" for s in STAGES)
                + f"; whole run x{run:.1f} (CPU x{cpu:.1f})"
                + f"; grows with the graph: {', '.join(flagged) or 'none'}"
                + f"; faster than the graph: {', '.join(faster) or 'none'}")
        out.append({"from": small["memories"], "to": big["memories"], "graph": round(graph, 2),
                    "stages": {s: round(r, 2) for s, r in ratios.items()}, "run": round(run, 2),
                    "cpu": round(cpu, 2),
                    "grows_with_graph": flagged, "faster_than_graph": faster, "line": line})
    return out


def _loadavg() -> tuple[float, ...]:
    try:
        return tuple(round(x, 2) for x in os.getloadavg())
    except OSError:
        return ()


if __name__ == "__main__":
    main()
