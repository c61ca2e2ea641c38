"""The intention reader: is a message the user's own plan, a plan done, a plan dropped, or none?

A learned classifier, not patterns: the slot reader's hashed features and trainer
(``dualmem_core.slots``) fitted on the hand-written messages of ``fixtures/intentions/`` (labels
``plan`` / ``done`` / ``dropped``; ``none`` is every label off). Also chosen on those messages: how
alike (cosine of the same features) a ``done``/``dropped`` message must be to a plan to close it.

    python -m dualmem_core.editor.intentions_train [--check]   # write the model, or compare with it
    python -m dualmem_core.editor.intentions_train --measure   # k-fold precision and recall
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from ..slots.examples import FIXTURES, Example
from ..slots.features import FeatureSpace
from ..slots.model import SlotModel
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


# How many plans a user has open when a closing message comes, for choosing the threshold: a
# message is matched against its own plan and this many others (all 148 written plans at once
# would ask more than a user's few open plans do, and push the threshold up).
OPEN_PLANS = 5


def _pairing(rows: list[dict], space: FeatureSpace, seed: int) -> tuple[np.ndarray, np.ndarray, int]:
    """Per done/dropped message: the cosine of its nearest plan among its own (when it names one)
    and OPEN_PLANS others drawn at random, whether that nearest is its own, and how many name one."""
    plans = [r["text"] for r in rows if r["label"] == PLAN]
    closers = [r for r in rows if r["label"] in (DONE, DROPPED)]
    sims = space.matrix([r["text"] for r in closers]) @ space.matrix(plans).T
    rng = np.random.default_rng(seed)
    best_sim, right = np.zeros(len(closers)), np.zeros(len(closers), dtype=bool)
    named = [r.get("closes") if r.get("closes") in plans else None for r in closers]  # a fold may lack it
    for i, own in enumerate(named):
        others = [j for j, p in enumerate(plans) if p != own]
        shown = rng.choice(others, OPEN_PLANS, replace=False).tolist() + ([plans.index(own)] if own else [])
        nearest = max(shown, key=lambda j: sims[i, j])
        best_sim[i], right[i] = sims[i, nearest], plans[nearest] == own
    return best_sim, right, sum(1 for own in named if own)


def same_plan_threshold(rows: list[dict], space: FeatureSpace, seed: int = SETTINGS.seed) -> float:
    """The cosine above which a done/dropped message closes its nearest open plan: the best F1 on
    the written pairs (``_pairing``; a closer that names no plan must close none)."""
    best_sim, right, wanted = _pairing(rows, space, seed)
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
    # Closing, on other draws of open plans than the threshold was chosen on.
    model = default_model()
    best_sim, right, wanted = _pairing(rows, model.space, SETTINGS.seed + 1)
    closed = best_sim >= model.meta["same_plan"]
    report["same plan"] = {"precision": round(float((closed & right).sum() / max(closed.sum(), 1)), 3),
                           "recall": round(float((closed & right).sum() / wanted), 3), "n": wanted}
    report["hard negatives"] = {"read as none": round(sum(said[i] == "none" for i in hard) / len(hard), 3),
                                "n": len(hard)}
    return report
