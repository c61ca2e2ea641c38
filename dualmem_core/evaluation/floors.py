"""The floors the evaluation blocks on, and how they are made from measured runs.

``fixtures/thresholds.json`` holds, per fixture part and per fixture user, the lowest value each
metric may take after the Editor (the highest, for the stale-first rate and the counts of wrong
decisions). The floors are not chosen by hand: ``make`` reads the ``metrics.json`` of
``dualmem eval`` runs (every embedder, every store) and sets each floor one step under the lowest
value measured, so a run of the same code always passes and a real regression blocks:

    dualmem eval --out /tmp/eval-sqlite --embedder recorded,hashing
    dualmem eval --out /tmp/eval-neo4j --embedder recorded,hashing --store bolt://...
    python -m dualmem_core.evaluation.floors /tmp/eval-sqlite/metrics.json /tmp/eval-neo4j/metrics.json

One step is one item of the metric's own denominator, so that a single question or pair
moving by chance (Neo4j after the Editor is not reproducible) cannot cross it, and at least
``MARGIN`` (a part) or ``USER_MARGIN`` (one user): recall@5, strict recall@5 and MRR count every
question; the stale-first rate only the questions that list stale facts (from the fixture); a
part's pair metrics their own count (``counts`` in metrics.json: pairs predicted for a
precision, gold pairs for a recall). One user's pair counts are not recorded: ``USER_MARGIN``.

A floor one step under a small value would be 0 and could never fail. So a metric measured above
0 but within one step of it gets the floor ``NOT_ZERO``: it must still count something. A metric
measured at 0 in some run (a recall nothing is found for yet) can have no floor in its direction;
it is listed under ``_unguarded`` in the floors file, not given a floor of 0 that pretends to
guard it. Rates that should be 0 (wrongly superseded, wrong merges) are ceilings (``AT_MOST``).
"""

from __future__ import annotations

import argparse
import json
import math
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import InvalidInput
from .fixture import DEFAULT_FOLDER

THRESHOLDS = DEFAULT_FOLDER.parent / "thresholds.json"
MARGIN = 0.02
USER_MARGIN = 0.05
RETRIEVAL = ("recall@5", "strict_recall@5", "mrr")
PAIRS = ("provenance_precision", "duplicate_precision", "duplicate_recall", "contradiction_precision",
         "contradiction_recall", "contradiction_recall_any", "direction_accuracy", "entity_precision",
         "entity_recall")
AT_MOST = ("stale_first_rate", "current_wrongly_superseded", "wrong_merges")
COUNTS = ("current_wrongly_superseded", "wrong_merges")
NOT_ZERO = 0.001  # the floor of a metric whose margin would take it to 0: it must stay above 0
# The count (in a part's ``counts``) each pair metric is a share of: one item is 1 / that count.
DENOMINATOR = {"duplicate_precision": "dup_predicted", "duplicate_recall": "dup_gold",
               "provenance_precision": "prov_judged", "contradiction_precision": "sup_predicted",
               "contradiction_recall": "sup_gold", "contradiction_recall_any": "sup_gold",
               "direction_accuracy": "sup_matching", "entity_precision": "ent_predicted",
               "entity_recall": "ent_gold"}


@dataclass
class Floors:
    parts: dict[str, dict[str, float]]
    users: dict[str, dict[str, float]]


def load(path: Path = THRESHOLDS) -> Floors:
    try:
        data = json.loads(Path(path).read_text())
        return Floors(dict(data["parts"]), dict(data.get("users", {})))
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise InvalidInput(f"{path}: not a floors file ({exc!r}); remake it with "
                           "python -m dualmem_core.evaluation.floors (see its --help)") from None


def below(values: dict[str, Any], wanted: dict[str, float]) -> list[str]:
    """"metric: value < floor" for each floor not met. The stale-first rate and the counts of
    wrong decisions must stay at or under theirs; a metric with nothing to count where a floor
    expects a value is a miss too (the Editor made no decision of that kind at all)."""
    out = []
    for name, limit in wanted.items():
        value = values.get(name)
        if value is None:
            out.append(f"{name}: – (nothing to count) where the floor is {limit}")
        elif name in AT_MOST and value > limit:
            out.append(f"{name}: {value:.3f} > {limit}")
        elif name not in AT_MOST and value < limit:
            out.append(f"{name}: {value:.3f} < {limit}")
    return out


def failures(runs: list[Any], floors: Floors) -> list[str]:
    """Every part floor any run misses (``EvalResult``s: one per embedder and store), named."""
    return [f"{run.embedder} on {run.store}: {part} {miss}"
            for run in runs for part, wanted in floors.parts.items() if part in run.parts
            for miss in below(run.parts[part].after, wanted)]


def make(runs: list[dict[str, Any]], stale_questions: dict[str, int] | None = None) -> dict[str, Any]:
    """Part and user floors one step under the lowest value of every run (``EvalResult.as_dict``).

    ``stale_questions``: per part and per user, how many questions list stale facts (the
    stale-first rate's denominator); by default counted in the fixture."""
    stale = stale_questions if stale_questions is not None else _stale_questions()
    parts: dict[str, dict[str, float]] = {}
    users: dict[str, dict[str, float]] = {}
    unguarded: list[str] = []
    for name in sorted({p for run in runs for p in run["parts"]}):
        measured = [run["parts"][name] for run in runs if name in run["parts"]]
        counts = [m.get("counts") or {} for m in measured]
        parts[name] = _floors([m["after"] for m in measured], MARGIN, stale.get(name), counts,
                              unguarded, name)
        for user in measured[0]["users"]:
            users[user] = _floors([m["per_user"][user] for m in measured], USER_MARGIN,
                                  stale.get(user), [], unguarded, user)
    return {"parts": parts, "users": users, "_unguarded": unguarded}


def _stale_questions() -> dict[str, int]:
    from .fixture_loading import load_fixture

    out: dict[str, int] = {}
    for q in load_fixture().questions:
        if q.stale:
            out[q.part] = out.get(q.part, 0) + 1
            out[q.user_id] = out.get(q.user_id, 0) + 1
    return out


def _floors(values: list[dict[str, Any]], margin: float, stale_questions: int | None,
            counts: list[dict[str, int]], unguarded: list[str], who: str) -> dict[str, float]:
    out: dict[str, float] = {}
    questions = min(v["questions"] for v in values)
    for name in (*RETRIEVAL, *PAIRS, *AT_MOST):
        seen = [v[name] for v in values if v.get(name) is not None]
        if len(seen) < len(values):
            continue  # nothing to count in some run: no floor can hold it
        if name in COUNTS:
            out[name] = max(seen)
        elif name in AT_MOST:  # the stale-first rate, a share of the questions listing stale facts
            out[name] = min(1.0, _up(max(seen) + max(margin, 1 / (stale_questions or questions))))
        elif min(seen) <= 0:
            unguarded.append(f"{who} {name}")  # measured 0: no floor in its direction can fail
        else:
            if name in RETRIEVAL:
                step = max(margin, 1 / questions)
            else:
                dens = [c[DENOMINATOR[name]] for c in counts if c.get(DENOMINATOR[name])]
                step = max(margin, 1 / min(dens)) if len(dens) == len(values) else margin
            floor = _down(min(seen) - step)
            out[name] = floor if floor > 0 else NOT_ZERO
    return out


def _down(x: float) -> float:
    return math.floor(x * 1000 + 1e-9) / 1000


def _up(x: float) -> float:
    return math.ceil(x * 1000 - 1e-9) / 1000


def _git(*args: str) -> str:
    try:
        done = subprocess.run(["git", *args], capture_output=True, text=True, cwd=DEFAULT_FOLDER)
        return done.stdout.strip()
    except OSError:
        return ""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("runs", nargs="+", type=Path, help="metrics.json files of dualmem eval runs")
    parser.add_argument("--out", type=Path, default=THRESHOLDS, help="default: %(default)s")
    parser.add_argument("--code", help="the code the runs measured, when not this work tree "
                        "(floors remade from committed results files); default: this work tree")
    args = parser.parse_args(argv)
    runs = [run for path in args.runs for run in json.loads(path.read_text())]
    commit = args.code or _git("rev-parse", "--short", "HEAD") or "unknown"
    if not args.code and _git("status", "--porcelain", "--untracked-files=no"):
        commit += " + uncommitted changes"  # the runs measured the work tree, not the commit alone
    made = {
        "_about": "Floors the memory_quality asset check (per user) and `dualmem eval --check` (per "
                  "part, every embedder and store run) block on. Made by `python -m "
                  "dualmem_core.evaluation.floors` from the runs in _made_from, one step under the "
                  "lowest value measured (one item of the metric's own denominator, at least "
                  "the margin); _unguarded lists metrics measured at 0, which no floor can guard. "
                  "Remake them, never edit by hand. Definitions and margins: "
                  "dualmem_core/evaluation/metrics.py, floors.py and docs/evaluation.md.",
        "_made_from": [{"embedder": r["embedder"], "store": r["store"].split("://")[0], "code": commit}
                       for r in runs],
        **make(runs),
    }
    args.out.write_text(json.dumps(made, indent=1) + "\n")
    print(f"wrote {args.out}: floors for {len(made['parts'])} parts and {len(made['users'])} users "
          f"from {len(runs)} runs")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
