"""The evaluation report people read: markdown tables, a chart before/after the Editor, JSON, CSV."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

from ..extras import require
from .floors import COUNTS, Floors, below
from .harness import EvalResult
from .tables import metrics_frame, per_user_table

if TYPE_CHECKING:
    import pandas as pd

# Metric, higher-is-better, shown as a percentage. Graph metrics exist only after the Editor.
RETRIEVAL = ["recall@5", "strict_recall@5", "mrr", "past_recall@5", "as_of_recall@5", "stale_first_rate"]
GRAPH = [
    "duplicate_precision",
    "duplicate_recall",
    "provenance_precision",
    "contradiction_precision",
    "contradiction_recall",
    "contradiction_recall_any",
    "direction_accuracy",
    "entity_precision",
    "entity_recall",
]
# Each pair metric's (numerator, denominator) in PartResult.counts, shown beside the ratio.
FRACTIONS = {
    "duplicate_precision": ("dup_correct", "dup_predicted"),
    "duplicate_recall": ("dup_found", "dup_gold"),
    "provenance_precision": ("prov_correct", "prov_judged"),
    "contradiction_precision": ("sup_matching", "sup_predicted"),
    "contradiction_recall": ("sup_found", "sup_gold"),
    "contradiction_recall_any": ("sup_any_found", "sup_gold"),
    "direction_accuracy": ("sup_right", "sup_matching"),
    "entity_precision": ("ent_correct", "ent_predicted"),
    "entity_recall": ("ent_correct", "ent_gold"),
}


def write_report(
    results: list[EvalResult], folder: str | Path, thresholds: Floors | None = None
) -> dict[str, Path]:
    """report.md, metrics.json, metrics.csv and metrics.png in ``folder``; returns their paths."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    paths = {
        "markdown": folder / "report.md",
        "json": folder / "metrics.json",
        "chart": folder / "metrics.png",
        "table": folder / "metrics.csv",
    }
    frame = metrics_frame(results)
    paths["json"].write_text(json.dumps([r.as_dict() for r in results], indent=2, default=str) + "\n")
    frame.to_csv(paths["table"], index=False)
    paths["markdown"].write_text(markdown(results, thresholds, frame))
    chart(results[0], paths["chart"])
    return paths


def markdown(results: list[EvalResult], thresholds: Floors | None = None,
             frame: pd.DataFrame | None = None) -> str:
    lines = ["# dualmem evaluation", ""]
    for r in results:
        lines += [f"## Embedder `{r.embedder}` on `{r.store}` ({r.seconds:.1f} s)", ""]
        parts = list(r.parts.values())
        lines += [
            "| metric | " + " | ".join(f"{p.part} before | {p.part} after" for p in parts) + " |",
            "| --- |" + " ---: | ---: |" * len(parts),
        ]
        for name in RETRIEVAL:
            lines.append(
                f"| {name} | "
                + " | ".join(f"{_pct(p.before[name])} | {_pct(p.after[name])}" for p in parts)
                + " |"
            )
        for name in GRAPH:
            num, den = FRACTIONS[name]
            lines.append(
                f"| {name} | "
                + " | ".join(f" | {_pct(p.after[name])} ({p.counts[num]}/{p.counts[den]})" for p in parts)
                + " |"
            )
        for name in COUNTS:
            lines.append(f"| {name} | " + " | ".join(f" | {p.after[name]}" for p in parts) + " |")
        lines.append(
            "| LLM calls / tokens | " + " | ".join(f" | {p.llm_calls} / {p.llm_tokens}" for p in parts) + " |"
        )
        lines.append(
            "| remember p50 / p95 ms | "
            + " | ".join(f" | {p.write_ms.get('p50', 0):.1f} / {p.write_ms.get('p95', 0):.1f}" for p in parts)
            + " |"
        )
        lines.append(
            "| Editor run mean / max s | "
            + " | ".join(
                f" | {p.editor_s.get('mean', 0):.2f} / {p.editor_s.get('max', 0):.2f}" for p in parts
            )
            + " |"
        )
        asked = ", ".join(f"{p.part} {p.after['questions']}" for p in parts)
        lines += [
            "",
            f"Questions per part: {asked}. Before = right after the Writer; after = after one "
            "Editor run per user. recall@5 gives a question with several answers partial "
            "credit; strict_recall@5 counts it only when all are in the top 5. – = nothing to count.",
            "",
        ]
        if thresholds:
            lines += _threshold_lines(r, thresholds)
        if frame is not None:
            lines += ["Each user after the Editor (`metrics.csv` holds every number):", "",
                      per_user_table(frame, r.embedder), ""]
    lines += ["Definitions: `dualmem_core/evaluation/metrics.py`. Fixture: `fixtures/eval/`.", ""]
    lines += ["Misses are listed for the tune part only: dev and held-out are measured, never read.", ""]
    for r in results:  # after every table, so the tables read as one block
        for p in r.parts.values():
            if p.misses:
                lines += [f"### Missed in the top 5: {p.part}, embedder {r.embedder}, after the Editor", ""]
                lines += [f"- {m['question']} ({m['kind']}): {m['text']} -> {'; '.join(m['answers'])}"
                          for m in p.misses]
                lines.append("")
    return "\n".join(lines)


def _threshold_lines(r: EvalResult, floors: Floors) -> list[str]:
    lines = ["Floors (`fixtures/thresholds.json`):", ""]
    for part, limits in floors.parts.items():
        if part in r.parts:
            missed = below(r.parts[part].after, limits)
            lines.append(f"- {part}: {len(limits) - len(missed)} of {len(limits)} met"
                         + "".join(f"; BELOW: {m}" for m in missed))
    return [*lines, ""]


def _pct(x: float | None) -> str:
    return "–" if x is None else f"{100 * x:.1f}%"


def chart(result: EvalResult, path: Path) -> None:
    """Grouped bars: each retrieval metric before and after the Editor, and the graph metrics."""
    matplotlib = require("matplotlib", "eval", "The evaluation report's chart")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    parts = list(result.parts.values())
    fig, axes = plt.subplots(1, len(parts), figsize=(6.5 * len(parts), 4.8), sharey=True, squeeze=False)
    for ax, p in zip(axes[0], parts, strict=True):
        names = RETRIEVAL + GRAPH
        xs = range(len(names))
        ax.bar(
            [x - 0.2 for x in xs],
            [(p.before.get(n) or 0) if n in RETRIEVAL else 0 for n in names],
            0.4,
            label="before the Editor",
            color="#9db4d0",
        )
        ax.bar(
            [x + 0.2 for x in xs], [p.after[n] or 0 for n in names], 0.4, label="after the Editor",
            color="#2c5d8f",
        )
        ax.set_xticks(list(xs), names, rotation=60, ha="right", fontsize=8)
        ax.set_ylim(0, 1.05)
        ax.set_title(f"{p.part} ({len(p.users)} users, {p.after['questions']} questions)")
        ax.grid(axis="y", alpha=0.3)
    axes[0][0].legend(loc="lower left", fontsize=8)
    fig.suptitle(f"dualmem evaluation, embedder {result.embedder}")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
