"""The evaluation's numbers as one tidy table (pandas): a row per run, part, user, phase and metric.

``metrics.csv`` beside the report holds it, for a notebook or a spreadsheet; the report's
per-user table is a pivot of it. ``user`` is ``"*"`` for a part's totals; per-user numbers
exist after the Editor only (the harness keeps them for the floors).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..extras import require
from .harness import EvalResult

if TYPE_CHECKING:
    import pandas as pd

ALL_USERS = "*"
COLUMNS = ["store", "embedder", "part", "user", "phase", "metric", "value"]
# The per-user table's columns: one retrieval, one ranking, one time, one graph metric.
USER_TABLE = ["questions", "recall@5", "mrr", "stale_first_rate", "contradiction_recall", "entity_recall"]


def metrics_frame(results: list[EvalResult]) -> pd.DataFrame:
    """Every number of every run, part and user, before and after the Editor, as long rows."""
    pandas = require("pandas", "eval", "The evaluation's tables")
    rows = []
    for r in results:
        for part in r.parts.values():
            for phase, values in (("before", part.before), ("after", part.after)):
                rows += [(r.store, r.embedder, part.part, ALL_USERS, phase, m, v) for m, v in values.items()]
            for user, values in part.per_user.items():
                rows += [(r.store, r.embedder, part.part, user, "after", m, v) for m, v in values.items()]
    return pandas.DataFrame(rows, columns=COLUMNS)


def per_user_table(frame: pd.DataFrame, embedder: str) -> str:
    """A markdown table of each user's main metrics after the Editor, for one embedder."""
    users = frame[(frame.embedder == embedder) & (frame.user != ALL_USERS)]
    wide = users.pivot_table(index=["part", "user"], columns="metric", values="value", aggfunc="first",
                             dropna=False, sort=False)
    shown = [m for m in USER_TABLE if m in wide.columns]
    lines = ["| part | user | " + " | ".join(shown) + " |", "| --- | --- |" + " ---: |" * len(shown)]
    for (part, user), row in wide[shown].iterrows():
        cells = [_cell(metric, row[metric]) for metric in shown]
        lines.append(f"| {part} | {user} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _cell(metric: str, value: float | None) -> str:
    if value is None or value != value:  # None, or NaN from the pivot: nothing to count
        return "–"
    return str(int(value)) if metric == "questions" else f"{100 * float(value):.1f}%"
