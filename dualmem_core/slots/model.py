"""The slot reader: which slots a message tells, of whom, and whether it starts, ends or
continues a state. One-vs-rest logistic regression over ``features.FeatureSpace``.

Labels are ``<slot>`` (the speaker's own slot: ``lives_in``), ``<slot>@other`` (someone else's:
"my sister moved to Leeds") and ``+starts`` / ``+ends`` / ``+continues`` (what the message does to
a state). Slots are the predicates of ``vocab/predicates.py``, every ``favourite_<category>``
folded into ``favourite``. The model is trained by ``python -m dualmem_core.slots.train`` and
shipped as ``model.npz`` beside this file.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import numpy as np

from .features import FeatureSpace

MODEL_PATH = Path(__file__).with_name("model.npz")
OTHER = "@other"
CHANGES = ("+starts", "+ends", "+continues")


@dataclass(frozen=True, slots=True)
class Telling:
    """What one message tells, as the reader reads it."""

    slots: dict[str, float] = field(default_factory=dict)  # the speaker's slots -> probability
    others: dict[str, float] = field(default_factory=dict)  # slots of someone else -> probability
    change: str | None = None  # "starts" | "ends" | "continues" | None when unsure
    chances: dict[str, float] = field(default_factory=dict)  # every label -> probability, kept or not


@dataclass(frozen=True)
class SlotModel:
    space: FeatureSpace
    labels: tuple[str, ...]
    weights: np.ndarray  # (width, len(labels)) float32
    bias: np.ndarray  # (len(labels),)
    threshold: float  # the global one, chosen over all labels together
    meta: dict
    # Each label's own threshold (len(labels),); None: the global one for every label (models
    # saved before per-label thresholds).
    thresholds: np.ndarray | None = None

    def cut(self) -> np.ndarray:
        """The threshold each label's chance must reach to be kept."""
        if self.thresholds is None:
            return np.full(len(self.labels), self.threshold, dtype=np.float32)
        return self.thresholds

    def probabilities(self, texts: list[str]) -> np.ndarray:
        """(len(texts), len(labels)) probabilities. Sparse rows: only the set columns are read."""
        out = np.empty((len(texts), len(self.labels)), dtype=np.float32)
        for i, text in enumerate(texts):
            cols = self.space.columns(text)
            logits = self.bias.copy()
            if len(cols):
                logits += self.weights[cols].sum(axis=0) / np.sqrt(len(cols))
            out[i] = 1.0 / (1.0 + np.exp(-logits))
        return out

    def read(self, texts: list[str]) -> list[Telling]:
        return [self._telling(row) for row in self.probabilities(texts)]

    def _telling(self, row: np.ndarray) -> Telling:
        slots, others, changes = {}, {}, {}
        for label, p, cut in zip(self.labels, row.tolist(), self.cut().tolist(), strict=True):
            if p < cut:
                continue
            if label in CHANGES:
                changes[label[1:]] = p
            elif label.endswith(OTHER):
                others[label[: -len(OTHER)]] = p
            else:
                slots[label] = p
        change = max(changes, key=changes.__getitem__) if changes and (slots or others) else None
        return Telling(slots, others, change, dict(zip(self.labels, row.tolist(), strict=True)))

    def save(self, path: Path) -> None:
        # float16 halves the file; the probabilities move in the fourth decimal at most.
        np.savez_compressed(path, weights=self.weights.astype(np.float16), bias=self.bias.astype(np.float32),
                            labels=np.array(self.labels), thresholds=self.cut(),
                            meta=np.array(json.dumps(self.meta, sort_keys=True)))

    @classmethod
    def load(cls, path: Path = MODEL_PATH) -> SlotModel:
        with np.load(path, allow_pickle=False) as data:
            meta = json.loads(str(data["meta"]))
            space = FeatureSpace(bits=meta["bits"], char_sizes=tuple(meta["char_sizes"]))
            return cls(space, tuple(str(x) for x in data["labels"]), data["weights"].astype(np.float32),
                       data["bias"].astype(np.float32), float(meta["threshold"]), meta,
                       data["thresholds"].astype(np.float32) if "thresholds" in data else None)


@lru_cache(maxsize=1)
def default_model() -> SlotModel:
    """The shipped model, loaded once per process."""
    return SlotModel.load()
