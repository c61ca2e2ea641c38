"""The intention reader: is a message the user's own plan, a plan done, a plan dropped, or none?

A learned classifier, not patterns: the slot reader's hashed features and trainer
(``dualmem_core.slots``) fitted on the hand-written messages of ``fixtures/intentions/`` (labels
``plan`` / ``done`` / ``dropped``; ``none`` is every label off). Also chosen on those messages: how
alike (cosine of the same features) a ``done``/``dropped`` message must be to a plan to close it.

    python -m dualmem_core.editor.intentions_model train [--check]   # write or compare the model
    python -m dualmem_core.editor.intentions_model measure           # k-fold precision and recall
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

from ..slots.examples import FIXTURES, Example
from ..slots.features import FeatureSpace
from ..slots.model import SlotModel
from ..slots.train import same_model
from ..slots.training import Settings, train

DATA = FIXTURES / "intentions" / "written.jsonl"
MODEL_PATH = Path(__file__).with_name("intentions_model.npz")
PLAN, DONE, DROPPED = "plan", "done", "dropped"
# Plans are a third of the data, not a few percent like a slot: no extra weight on positives. On
# 5-fold cross-validation of the written messages (``measure``), weights 1, 2 and 6 scored within
# a few points of each other (1 best), and 2**14 columns no better than 2**12.
SETTINGS = Settings(bits=12, positive_weight=1.0)


@dataclass(frozen=True, slots=True)
class Reading:
    label: str  # "plan" | "done" | "dropped" | "none"
    chance: float  # the winning label's probability (the best one's when "none")


def written() -> list[dict]:
    return [json.loads(line) for line in DATA.read_text().splitlines() if line.strip()]


def examples(rows: list[dict] | None = None) -> list[Example]:
    rows = written() if rows is None else rows
    return [Example(r["text"], frozenset() if r["label"] == "none" else frozenset({r["label"]}),
                    origin=r.get("kind", "")) for r in rows]


def same_plan_threshold(rows: list[dict], space: FeatureSpace) -> float:
    """The cosine above which a done/dropped message closes its nearest plan, chosen for the best
    F1 on the written pairs (a closer with no named plan must close none)."""
    plans = [r["text"] for r in rows if r["label"] == PLAN]
    closers = [r for r in rows if r["label"] in (DONE, DROPPED)]
    sims = space.matrix([r["text"] for r in closers]) @ space.matrix(plans).T
    nearest = sims.argmax(axis=1)
    right = np.array([plans[j] == r.get("closes") for j, r in zip(nearest, closers, strict=True)])
    best_sim = sims.max(axis=1)
    wanted = sum(1 for r in closers if r.get("closes"))
    best, best_f1 = 0.5, -1.0
    for threshold in np.arange(0.02, 0.8, 0.01):
        closed = best_sim >= threshold
        tp = float((closed & right).sum())
        f1 = 2 * tp / max(float(closed.sum()) + wanted, 1.0)
        if f1 > best_f1 + 1e-9:
            best, best_f1 = float(round(threshold, 3)), f1
    return best


def fit(rows: list[dict] | None = None) -> SlotModel:
    rows = written() if rows is None else rows
    model = train(examples(rows), SETTINGS)
    model.meta["same_plan"] = same_plan_threshold(rows, model.space)
    return model


@lru_cache(maxsize=1)
def default_model() -> SlotModel:
    return SlotModel.load(MODEL_PATH)


def read(texts: list[str], model: SlotModel | None = None) -> list[Reading]:
    """The likeliest label of each text, or "none" when no label reaches the model's threshold."""
    model = model or default_model()
    out = []
    for row in model.probabilities(texts):
        best = int(row.argmax())
        chance = float(row[best])
        out.append(Reading(model.labels[best] if chance >= model.threshold else "none", round(chance, 4)))
    return out


def similarity(a: list[str], b: list[str], model: SlotModel | None = None) -> np.ndarray:
    """Cosine of the texts' features, (len(a), len(b))."""
    space = (model or default_model()).space
    return space.matrix(a) @ space.matrix(b).T


def measure(folds: int = 5) -> dict[str, dict[str, float]]:
    """Per label, precision and recall of models trained without the fold they read."""
    rows = written()
    order = np.random.default_rng(SETTINGS.seed).permutation(len(rows))
    gold, said = [r["label"] for r in rows], [""] * len(rows)
    for fold in range(folds):
        test = set(order[fold::folds].tolist())
        model = fit([r for i, r in enumerate(rows) if i not in test])
        held = sorted(test)
        for i, reading in zip(held, read([rows[i]["text"] for i in held], model), strict=True):
            said[i] = reading.label
    report = {}
    for label in (PLAN, DONE, DROPPED, "none"):
        tp = sum(g == s == label for g, s in zip(gold, said, strict=True))
        report[label] = {"precision": round(tp / max(said.count(label), 1), 3),
                         "recall": round(tp / max(gold.count(label), 1), 3), "n": gold.count(label)}
    hard = [i for i, r in enumerate(rows) if r.get("kind", "plain") != "plain" and r["label"] == "none"]
    report["hard negatives"] = {"read as none": round(sum(said[i] == "none" for i in hard) / len(hard), 3),
                                "n": len(hard)}
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("command", choices=("train", "measure"))
    parser.add_argument("--check", action="store_true", help="compare with the shipped model, write nothing")
    parser.add_argument("--out", type=Path, default=MODEL_PATH)
    args = parser.parse_args(argv)
    if args.command == "measure":
        with threadpool_limits(limits=1):
            print(json.dumps(measure(), indent=1))
        return 0
    model = fit()
    print(f"trained on {model.meta['examples']} messages, labels {', '.join(model.labels)}, threshold "
          f"{model.threshold}, same plan at cosine {model.meta['same_plan']}")
    if not args.check:
        model.save(args.out)
        print(f"wrote {args.out} ({args.out.stat().st_size // 1024} KB)")
        return 0
    saved = args.out.with_suffix(".check.npz")
    model.save(saved)
    try:
        shipped = SlotModel.load(args.out)
        differs = same_model(SlotModel.load(saved), shipped, [r["text"] for r in written()])
        if shipped.meta.get("same_plan") != model.meta["same_plan"]:
            differs.append("the same-plan threshold")
    finally:
        saved.unlink()
    if differs:
        print(f"the shipped model differs in {', '.join(differs)}: run without --check to retrain")
        return 1
    print("the shipped model is what these messages train")
    return 0


if __name__ == "__main__":
    sys.exit(main())
