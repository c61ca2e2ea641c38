"""The main job for now: a short conversation through the Writer, then questions, in time.

It remembers each message (episodes, observations, extracted facts), runs the Editor once (dedupe,
supersede, entities, relations, confidence, published as one run), then recalls now and in the
past, and prints the run's counts, the profile and one superseded fact's history.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from .editor import Editor, EditorRun
from .store import ENV_STORE, EdgeType, open_store
from .writer.writer import Writer

DEMO_USER = "demo-maya"
FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "demo_conversation.jsonl"
QUESTIONS = ["Where does Maya live?", "Where does she work?", "What food should I avoid suggesting?",
             "Tell me about the dog Biscuit"]
BEFORE_MOVE = datetime.fromisoformat("2026-02-01T00:00:00+00:00")


@dataclass
class DemoResult:
    store_url: str
    messages: int
    facts: int
    write_ms: list[float]
    lines: list[str]


def default_demo_url() -> str:
    from platformdirs import user_data_dir

    return f"sqlite:///{Path(user_data_dir('dualmem')) / 'demo.db'}"


def load_messages(path: Path = FIXTURE) -> list[dict]:
    with path.open(encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def run_demo(url: str | None = None, fixture: Path = FIXTURE) -> DemoResult:
    # Same rule as open_store, but the last resort is a demo file, not the user's memory.
    url = url or os.environ.get(ENV_STORE, "").strip() or default_demo_url()
    with open_store(url) as store:
        store.delete_user(DEMO_USER)  # the demo starts from a clean slate, whatever the store
        writer = Writer(store)
        write_ms, facts = [], 0
        for m in load_messages(fixture):
            start = time.perf_counter()
            result = writer.remember(m["content"], user_id=DEMO_USER, session_id=m.get("session_id"),
                                     at=datetime.fromisoformat(m["at"]), source_id=m["source_id"],
                                     role=m["role"])
            write_ms.append((time.perf_counter() - start) * 1000)
            facts += len(result.fact_ids)
        run = Editor(store).run(DEMO_USER)
        closed = [e.dst_id for e in store.get_edges(DEMO_USER, types=[EdgeType.SUPERSEDES])]
        lines = [_run_line(run), *_report(writer, closed)]
        return DemoResult(store.url, len(write_ms), facts, write_ms, lines)


def _report(writer: Writer, closed: list[str]) -> list[str]:
    lines = []
    for question in QUESTIONS:
        lines.append(f"Q: {question}")
        lines += [_hit_line(h) for h in writer.recall(question, user_id=DEMO_USER, k=3)]
    lines.append(f"Q: {QUESTIONS[0]} (as of {BEFORE_MOVE:%Y-%m-%d})")
    lines += [_hit_line(h) for h in writer.recall(QUESTIONS[0], user_id=DEMO_USER, k=3, as_of=BEFORE_MOVE)]
    lines.append("Profile (current single-valued facts):")
    for entry in writer.profile(DEMO_USER).values():
        lines.append(f"   {entry.predicate:<10} {entry.value:<14} since {entry.since:%Y-%m-%d}  "
                     f"from {', '.join(entry.sources)}")
    for memory_id in closed[:1]:
        history = writer.history(memory_id)
        lines.append(f"History of '{history.versions[0].text}':")
        for v in history.versions:
            believed = "now" if v.tx_to.year == 9999 else f"until {v.tx_to:%Y-%m-%d %H:%M:%S}"
            valid_to = "open" if v.valid_to.year == 9999 else f"{v.valid_to:%Y-%m-%d}"
            lines.append(f"   {v.status:<10} valid {v.valid_from:%Y-%m-%d} .. {valid_to:<10} "
                         f"believed {believed}")
    return lines


def _run_line(run: EditorRun) -> str:
    changed = {stage: sum(n for action, n in counts.items() if action != "kept_apart")
               for stage, counts in run.counts.items()}
    return (f"Editor run {run.run_id}: {run.operations} operations in {run.duration_s:.2f} s; "
            + ", ".join(f"{stage} {n}" for stage, n in changed.items()))


def _hit_line(hit) -> str:
    state = "current" if hit.current else "past"
    return (f"   {hit.score:5.3f} {hit.kind:<11} [{state}, from {', '.join(hit.sources)}] {hit.text}")

