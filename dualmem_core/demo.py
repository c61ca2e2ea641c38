"""The main job: the evaluation fixture through the Writer and the Editor, measured and shown.

It loads every conversation of the gold-labelled fixture (``fixtures/eval/``) into the embedded
store through the real Writer, runs the Editor once per user, asks the fixture's questions
before and after, scores it all against the gold labels, writes the report (markdown, chart,
JSON), and prints a short summary with two questions answered now and in the past.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from datetime import UTC, datetime, time
from pathlib import Path

from .evaluation.run import Evaluation, available_embedders, make_embedder, run_evaluation
from .store import ENV_STORE, open_store
from .writer.writer import Writer

EXAMPLE_USER = "t1"  # the fixture's first user; the demo shows one present and one as-of question
SUMMARY = [
    "recall@5",
    "stale_first_rate",
    "duplicate_precision",
    "duplicate_recall",
    "contradiction_recall",
    "contradiction_recall_any",
    "current_wrongly_superseded",
    "wrong_merges",
]


@dataclass
class DemoResult:
    store_url: str
    evaluation: Evaluation
    lines: list[str]


def default_demo_dir() -> Path:
    from platformdirs import user_data_dir

    return Path(user_data_dir("dualmem")) / "demo"


def run_demo(url: str | None = None, out: Path | None = None) -> DemoResult:
    out = out or default_demo_dir()
    # Same rule as open_store, but the last resort is a demo file, not the user's memory.
    url = url or os.environ.get(ENV_STORE, "").strip() or None
    embedder = available_embedders()[0]
    evaluation = run_evaluation(out, store_url=url, embedders=[embedder])
    result = evaluation.results[0]
    lines = [
        f"{len(p.users)} users of the '{p.part}' part: {p.after['questions']} questions, remember p50 "
        f"{p.write_ms['p50']:.1f} ms, Editor run {p.editor_s['mean']:.2f} s per user"
        for p in result.parts.values()
    ]
    lines.append(
        f"{'metric':<28}"
        + "".join(f"{p.part + ' before':>16}{p.part + ' after':>16}" for p in result.parts.values())
    )
    for name in SUMMARY:
        cells = ""
        for p in result.parts.values():
            before = _fmt(p.before[name]) if name in p.before else ""  # graph metrics: after only
            cells += f"{before:>16}{_fmt(p.after[name]):>16}"
        lines.append(f"{name:<28}{cells}")
    store_url = url or f"sqlite:///{out / f'eval-{embedder}.db'}"
    with open_store(store_url) as store:
        writer = Writer(store, embedder=make_embedder(embedder, store.dimension))
        for question, as_of in _examples():
            when = "now" if as_of is None else f"as of {as_of:%Y-%m-%d}"
            lines.append(f"Q ({EXAMPLE_USER}, {when}): {question}")
            for hit in writer.recall(question, user_id=EXAMPLE_USER, k=3, as_of=as_of):
                state = "current" if hit.current else "past"
                lines.append(
                    f"   {hit.score:5.3f} {hit.kind:<11} [{state}, from {', '.join(hit.sources)}] {hit.text}"
                )
    lines.append(
        f"Report: {evaluation.paths['markdown']} (chart {evaluation.paths['chart'].name}, "
        f"JSON {evaluation.paths['json'].name})"
    )
    if evaluation.failures:
        lines.append("Below the committed thresholds: " + "; ".join(evaluation.failures))
    return DemoResult(store_url, evaluation, lines)


def _examples() -> list[tuple[str, datetime | None]]:
    """The example user's first present-time and first as-of question (their vectors are recorded)."""
    from .evaluation.fixture_loading import load_fixture

    asked = load_fixture().questions_of(EXAMPLE_USER)
    present = next(q for q in asked if q.kind == "present")
    as_of = next(q for q in asked if q.kind == "as_of")
    assert as_of.as_of is not None  # the fixture loader refuses an as_of question without its date
    return [(present.question, None), (as_of.question, datetime.combine(as_of.as_of, time(12), tzinfo=UTC))]


def _fmt(x: float | None) -> str:
    if x is None:
        return "–"  # nothing to count
    return str(x) if isinstance(x, int) else f"{100 * x:.1f}%"
