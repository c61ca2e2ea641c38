"""Train the intention reader from ``fixtures/intentions/written.jsonl`` (``intentions_model.py``).

    python -m dualmem_core.editor.intentions_train [--out PATH] [--check] [--measure]

``--check`` trains and compares with the shipped model (the slot reader's ``same_model``, and the
same-plan threshold) instead of writing; ``--measure`` prints 5-fold precision and recall.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from threadpoolctl import threadpool_limits

from ..slots.model import SlotModel
from ..slots.train import same_model
from .intentions_model import MODEL_PATH, fit, measure, written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--measure", action="store_true", help="print k-fold scores, write nothing")
    parser.add_argument("--check", action="store_true", help="compare with the shipped model, write nothing")
    parser.add_argument("--out", type=Path, default=MODEL_PATH)
    args = parser.parse_args(argv)
    if args.measure:
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
