"""Extraction speed: ms per message of the rule extractor on three sets of messages, optionally profiled.

Sets: ``writer`` (the user turns of ``benchmarks/writer.py``'s seeded templates, which its batched
``remember`` hands to the extractor), ``tune`` (the user turns of the evaluation fixture's tune part)
and ``corpus`` (the development corpus). Each set is read ``--repeats`` times by one extractor after
one warm-up pass; the best and the median pass are reported, in wall-clock and in this process's CPU
time (steadier when other processes share the cores), with the load average.

Run:  python -m benchmarks.extraction_speed [--sets writer,tune,corpus] [--repeats 7]
                                            [--profile SET] [--sort tottime|cumtime] [--out PATH]

On a busy machine even CPU time drifts; instructions do not. ``--passes N --sets S`` only extracts
(N passes over S, no timing) for an instruction counter, and one warm pass costs the difference:

  valgrind --tool=cachegrind --cache-sim=no python -m benchmarks.extraction_speed --passes 1 --sets corpus
  valgrind --tool=cachegrind --cache-sim=no python -m benchmarks.extraction_speed --passes 2 --sets corpus
  (I refs of the second minus the first, divided by the set's messages: instructions per message)
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import pstats
import statistics
import sys
import time
from pathlib import Path

from benchmarks import extraction_corpus, extraction_fingerprint
from dualmem_core.evaluation.fixture_loading import load_fixture
from dualmem_core.writer.extractors.rules.extractor import RuleExtractor
from dualmem_core.writer.facts import Message

WRITER_MESSAGES = 3000


def message_sets() -> dict[str, list[Message]]:
    at = extraction_corpus.SAID_AT
    writer = extraction_fingerprint.writer_messages(WRITER_MESSAGES)
    return {
        "writer": [Message(text, when, role, role) for role, text, when in writer if role == "user"],
        "tune": [Message(m.content, m.at, "user", "user") for m in load_fixture(part="tune").messages
                 if m.role == "user"],
        "corpus": [Message(s.text, at, "user", "user") for s in extraction_corpus.load()],
    }


def time_set(messages: list[Message], repeats: int) -> dict[str, float]:
    extractor = RuleExtractor()
    for m in messages:  # warm-up: imports, compiled patterns, any caches
        extractor.extract(m)
    wall, cpu = [], []
    for _ in range(repeats):
        start, start_cpu = time.perf_counter(), time.process_time()
        for m in messages:
            extractor.extract(m)
        cpu.append(1000 * (time.process_time() - start_cpu) / len(messages))
        wall.append(1000 * (time.perf_counter() - start) / len(messages))
    return {"messages": len(messages), "best_ms": min(wall), "median_ms": statistics.median(wall),
            "best_cpu_ms": min(cpu), "median_cpu_ms": statistics.median(cpu)}


def profile(messages: list[Message], sort: str, top: int) -> None:
    extractor = RuleExtractor()
    for m in messages:
        extractor.extract(m)
    profiler = cProfile.Profile(time.process_time)  # CPU time: other processes do not land in the profile
    profiler.enable()
    for _ in range(3):
        for m in messages:
            extractor.extract(m)
    profiler.disable()
    pstats.Stats(profiler, stream=sys.stdout).sort_stats(sort).print_stats(top)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", default="writer,tune,corpus")
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--profile", metavar="SET", help="cProfile three passes over one set instead")
    parser.add_argument("--sort", default="tottime", choices=("tottime", "cumtime"))
    parser.add_argument("--top", type=int, default=40)
    parser.add_argument("--out", help="also write the results as JSON")
    parser.add_argument("--passes", type=int, help="only extract, this many passes (for valgrind)")
    parser.add_argument("--limit", type=int, help="only the first LIMIT messages of each set")
    args = parser.parse_args(argv)
    sets = {name: messages[: args.limit] for name, messages in message_sets().items()}
    if args.passes is not None:
        extractor = RuleExtractor()
        for _ in range(args.passes):
            for name in args.sets.split(","):
                for m in sets[name]:
                    extractor.extract(m)
        return 0
    if args.profile:
        profile(sets[args.profile], args.sort, args.top)
        return 0
    load = os.getloadavg()
    print(f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    print(f"{'set':<8}{'messages':>10}{'best ms/msg':>14}{'median ms/msg':>16}{'best CPU ms':>14}"
          f"{'median CPU ms':>16}")
    results = {}
    for name in args.sets.split(","):
        r = results[name] = time_set(sets[name], args.repeats)
        print(f"{name:<8}{r['messages']:>10}{r['best_ms']:>14.4f}{r['median_ms']:>16.4f}"
              f"{r['best_cpu_ms']:>14.4f}{r['median_cpu_ms']:>16.4f}", flush=True)
    if args.out:
        report = {"loadavg": load, "loadavg_end": os.getloadavg(), "repeats": args.repeats, "sets": results}
        Path(args.out).write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
