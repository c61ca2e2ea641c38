"""Per-slot precision and recall of the slot reader on the evaluation fixture's dev and held-out
parts (never trained on), beside the training data's size.

    python -m benchmarks.slots [--retrain] [--json benchmarks/results/slots.json]

``--retrain`` fits a model from the repository's examples instead of loading the shipped one (to
compare a change of data or settings before committing it). A message counts as telling a label
when a gold fact of that slot (and of the speaker, or of someone else) names it as a source.
"""

from __future__ import annotations

import argparse
import json
import time
from collections import Counter
from pathlib import Path
from typing import Any

from dualmem_core.slots.examples import Example, fixture_examples, training_examples
from dualmem_core.slots.model import CHANGES, SlotModel
from dualmem_core.slots.training import train


def score(model: SlotModel, examples: list[Example]) -> dict:
    tellings = model.read([ex.text for ex in examples])
    tp: Counter[str] = Counter()
    fp: Counter[str] = Counter()
    fn: Counter[str] = Counter()
    for ex, telling in zip(examples, tellings, strict=True):
        predicted = set(telling.slots) | {f"{s}@other" for s in telling.others}
        true = {label for label in ex.labels if label not in CHANGES}
        for label in predicted & true:
            tp[label] += 1
        for label in predicted - true:
            fp[label] += 1
        for label in true - predicted:
            fn[label] += 1
    rows = {}
    for label in sorted(set(tp) | set(fp) | set(fn)):
        rows[label] = {"tp": tp[label], "fp": fp[label], "fn": fn[label],
                       "precision": _ratio(tp[label], tp[label] + fp[label]),
                       "recall": _ratio(tp[label], tp[label] + fn[label])}
    total = {k: sum(c.values()) for k, c in (("tp", tp), ("fp", fp), ("fn", fn))}
    precision = _ratio(total["tp"], total["tp"] + total["fp"])
    recall = _ratio(total["tp"], total["tp"] + total["fn"])
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return {"messages": len(examples), "precision": precision, "recall": recall, "f1": round(f1, 3),
            "slots": rows}


def _ratio(a: int, b: int) -> float:
    return round(a / b, 3) if b else 0.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--retrain", action="store_true")
    parser.add_argument("--json", type=Path, default=Path("benchmarks/results/slots.json"))
    args = parser.parse_args()
    started = time.perf_counter()
    model = train(training_examples()) if args.retrain else SlotModel.load()
    trained_in = time.perf_counter() - started
    results: dict[str, Any] = {"model": model.meta, "labels": len(model.labels)}
    for part in ("dev", "heldout"):
        results[part] = score(model, fixture_examples(part))
    print(f"slot reader: {model.meta['examples']} training examples, {len(model.labels)} labels, "
          f"threshold {model.threshold} (per label {model.cut().min():.2f} to {model.cut().max():.2f})"
          + (f", trained in {trained_in:.1f} s" if args.retrain else ""))
    print(f"{'label':<24}" + "".join(f"{p + ' P/R (n)':>22}" for p in ("dev", "heldout")))
    labels = sorted(set(results["dev"]["slots"]) | set(results["heldout"]["slots"]))
    for label in labels:
        cells = []
        for part in ("dev", "heldout"):
            row = results[part]["slots"].get(label)
            told = row["tp"] + row["fn"] if row else 0
            cells.append(f"{row['precision']:.2f}/{row['recall']:.2f} ({told})" if row else "-")
        print(f"{label:<24}" + "".join(f"{c:>22}" for c in cells))
    for part in ("dev", "heldout"):
        r = results[part]
        print(f"{part}: {r['messages']} messages, "
              f"micro P/R/F1 {r['precision']:.2f}/{r['recall']:.2f}/{r['f1']:.2f}")
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(results, indent=2, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
