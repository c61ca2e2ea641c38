"""Tools around memory rather than on it: the demo, the evaluation, a local Neo4j."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def demo(args: argparse.Namespace) -> int:
    from ..demo import run_demo

    result = run_demo(args.store, Path(args.out) if args.out else None)
    evaluation = result.evaluation.results[0]
    print(
        f"dualmem demo: the evaluation fixture through the Writer and the Editor on {result.store_url} "
        f"(embedder {evaluation.embedder}, {evaluation.seconds:.1f} s)"
    )
    print("\n".join(result.lines))
    return 0


def evaluate(args: argparse.Namespace) -> int:
    from ..evaluation.report import markdown
    from ..evaluation.run import run_evaluation

    embedders = [e.strip() for e in args.embedder.split(",") if e.strip()] if args.embedder else None
    parts = tuple(p.strip() for p in args.part.split(",") if p.strip())
    evaluation = run_evaluation(args.out, store_url=args.store, embedders=embedders, parts=parts)
    print(markdown(evaluation.results).split("### Missed")[0].rstrip())
    print(
        f"\nReport: {evaluation.paths['markdown']}, {evaluation.paths['chart']}, {evaluation.paths['json']}, "
        f"{evaluation.paths['table']}"
    )
    if evaluation.failures:
        print("Below thresholds: " + "; ".join(evaluation.failures), file=sys.stderr)
        return 1 if args.check else 0
    return 0


def neo4j(args: argparse.Namespace) -> int:
    from ..local_neo4j import main_start, main_stop

    data = Path(args.data).expanduser()
    if args.action == "stop":
        return 0 if main_stop(data) else 1
    main_start(data, args.port, args.foreground, heap=args.heap, pagecache=args.pagecache)
    if not args.foreground:
        print(f"stop it with: dualmem neo4j stop --data {data}", file=sys.stderr)
    return 0


def register(commands: argparse._SubParsersAction) -> None:
    p = commands.add_parser(
        "demo",
        help="the main job: the evaluation fixture through the Writer and the Editor, scored",
        description="Load the gold-labelled fixture's conversations through the Writer, run the "
        "Editor once per user, ask the fixture's questions before and after, score it all, write "
        "the report, and show two questions answered now and in the past. Offline; under a minute.",
    )
    p.add_argument(
        "--store",
        help="store URL (default: DUALMEM_STORE, else an embedded demo "
        "file in the user's data directory); e.g. sqlite:///demo.db or "
        "bolt://127.0.0.1:7687. Only the fixture users' memories are replaced.",
    )
    p.add_argument("--out", help="report folder (default: demo/ in the user's data directory)")
    p.set_defaults(run=demo)

    p = commands.add_parser(
        "eval",
        help="measure memory quality on the gold-labelled fixture",
        description="Load the evaluation fixture through the Writer, run the "
        "Editor, ask every question before and after, and write a report "
        "(report.md, metrics.png, metrics.json, metrics.csv). Offline: no model is called.",
    )
    p.add_argument("--out", default="eval-report", help="report folder (default: ./eval-report)")
    p.add_argument(
        "--store",
        help="store URL (default: a fresh SQLite file per embedder in --out); "
        "the fixture users' memories in it are replaced",
    )
    p.add_argument(
        "--embedder",
        help="comma-separated: recorded (all-MiniLM-L6-v2 vectors committed "
        "with the fixture), hashing (deterministic); default: both when recorded exists",
    )
    p.add_argument("--part", default="tune,dev,heldout", help="fixture parts (default: tune,dev,heldout)")
    p.add_argument(
        "--check", action="store_true", help="exit 1 when a metric misses fixtures/thresholds.json"
    )
    p.set_defaults(run=evaluate)

    p = commands.add_parser(
        "neo4j",
        help="run a local Neo4j 5.26 (built from Maven Central)",
        description="Start or stop a local Neo4j Community 5.26 with Bolt "
        "on 127.0.0.1 and auth off: for development and the Dagster UI.",
    )
    p.add_argument("action", choices=["start", "stop"])
    p.add_argument("--data", default=".dualmem/neo4j", help="data directory (default: .dualmem/neo4j)")
    p.add_argument("--port", type=int, default=7687, help="Bolt port (default: 7687)")
    p.add_argument("--foreground", action="store_true", help="run until Ctrl-C instead of detaching")
    p.add_argument("--heap", default="512m", help="JVM heap (default: 512m)")
    p.add_argument("--pagecache", default="128m", help="Neo4j page cache (default: 128m)")
    p.set_defaults(run=neo4j)
