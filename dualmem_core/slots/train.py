"""Train the slot reader from the repository's examples and write ``model.npz``.

    python -m dualmem_core.slots.train [--out PATH] [--check]

``--check`` trains and compares with the shipped model instead of writing: same training data
(by hash), labels and thresholds, and chances within .02 on every training text, or it says what
differs.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

from .examples import training_examples
from .model import MODEL_PATH, SlotModel
from .training import train

# How far two trainings' probabilities may part on the training texts and still be one model: the
# weights come from float32 sums whose rounding differs between CPUs (and 500 steps of Adam can
# carry that into the fourth decimal), while a reading differs only where a chance crosses the
# threshold, which this keeps to chances within .02 of it.
SAME_CHANCES = 0.02


def same_model(a: SlotModel, b: SlotModel, texts: list[str]) -> list[str]:
    """What differs between two models; empty when they were trained from the same data and read
    ``texts`` with chances within SAME_CHANCES of each other."""
    differs = []
    if a.meta["data_hash"] != b.meta["data_hash"]:
        differs.append("the training data or settings (data_hash)")
    if a.labels != b.labels:
        differs.append("the labels")
    else:
        gap = float(np.abs(a.probabilities(texts) - b.probabilities(texts)).max())
        if gap > SAME_CHANCES:
            differs.append(f"the weights (chances apart by up to {gap:.3f})")
    if a.threshold != b.threshold or not np.array_equal(a.cut(), b.cut()):
        differs.append("the thresholds")
    return differs


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=MODEL_PATH)
    parser.add_argument("--check", action="store_true", help="compare with the shipped model, write nothing")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    examples = training_examples()
    model = train(examples)
    took = time.perf_counter() - started
    print(f"trained on {len(examples)} examples, {len(model.labels)} labels, threshold {model.threshold}, "
          f"in {took:.1f} s; data hash {model.meta['data_hash'][:12]}")
    if args.check:
        # Compare through a saved copy: the shipped weights are float16.
        saved = args.out.with_suffix(".check.npz")
        model.save(saved)
        try:
            texts = [ex.text for ex in examples]
            differs = same_model(SlotModel.load(saved), SlotModel.load(args.out), texts)
        finally:
            saved.unlink()
        if differs:
            print(f"the shipped model differs in {', '.join(differs)}: run without --check to retrain")
            return 1
        print("the shipped model is what these examples train")
        return 0
    model.save(args.out)
    print(f"wrote {args.out} ({args.out.stat().st_size // 1024} KB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
