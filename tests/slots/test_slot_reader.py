"""The slot reader: trained from the repository's examples only (never dev or held-out), the
shipped model is what training makes, and it reads messages it was not trained on."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from dualmem_core.slots import train as train_command
from dualmem_core.slots.examples import (
    FIXTURES,
    fixture_examples,
    slot_of,
    training_examples,
    written_examples,
)
from dualmem_core.slots.model import CHANGES, OTHER, SlotModel
from dualmem_core.vocab.predicates import PREDICATES


def test_training_reads_only_the_tune_part_and_the_written_examples() -> None:
    tune = {ex.text for ex in fixture_examples("tune")}
    unseen = {ex.text for part in ("dev", "heldout") for ex in fixture_examples(part)}
    origins = {ex.origin.split(":")[0] for ex in training_examples()}
    texts = {ex.text for ex in training_examples()}
    written = {path.stem for path in (FIXTURES / "slots" / "written").glob("*.jsonl")}
    assert origins == {"eval"} | written
    assert tune <= texts
    assert not (unseen - tune) & texts, "a dev or held-out message is in the training data"


def test_the_shipped_model_is_what_the_examples_train(capsys: pytest.CaptureFixture[str]) -> None:
    assert train_command.main(["--check"]) == 0, capsys.readouterr().out


def test_the_shipped_model_names_the_data_it_was_trained_on() -> None:
    model = SlotModel.load()
    assert model.meta["examples"] == len(training_examples())
    assert len(model.meta["data_hash"]) == 64
    slots = {slot_of(p) for p in PREDICATES} | {"favourite"}
    for label in model.labels:
        assert label in CHANGES or label.removesuffix(OTHER) in slots, label


def test_a_malformed_example_names_its_file_and_line(tmp_path: Path) -> None:
    good = {"id": "x-001", "voice": "x", "text": "moved to leeds", "tells": []}
    bad = {"id": "x-002", "text": "hi"}
    (tmp_path / "x.jsonl").write_text(json.dumps(good) + "\n" + json.dumps(bad) + "\n")
    with pytest.raises(ValueError, match=r"x\.jsonl line 2: .*fixtures/slots/README\.md"):
        written_examples(tmp_path)


def test_each_label_is_kept_at_its_own_threshold(tmp_path: Path) -> None:
    model = SlotModel.load()
    assert model.thresholds is not None and len(model.thresholds) == len(model.labels)
    assert len(set(model.cut().tolist())) > 1, "per-label thresholds, not one for all"
    chances = model.probabilities(["just moved to leeds for the new job"])[0]
    read = model.read(["just moved to leeds for the new job"])[0]
    for label, p, cut in zip(model.labels, chances.tolist(), model.cut().tolist(), strict=True):
        if label not in CHANGES:
            kept = label in read.slots or label.removesuffix(OTHER) in read.others and label.endswith(OTHER)
            assert kept == (p >= cut), label
    # A model saved before per-label thresholds reads every label at its one threshold.
    older = tmp_path / "older.npz"
    np.savez_compressed(older, weights=model.weights.astype(np.float16), bias=model.bias,
                        labels=np.array(model.labels), meta=np.array(json.dumps(model.meta)))
    loaded = SlotModel.load(older)
    assert loaded.thresholds is None and np.allclose(loaded.cut(), model.threshold)
