"""The intention reader: training reproduces the shipped model, and it reads plain cases right."""

from __future__ import annotations

from dualmem_core.editor import intentions_model, intentions_train


def test_training_reproduces_the_shipped_model() -> None:
    assert intentions_train.main(["--check"]) == 0


def test_the_written_data_keeps_a_quarter_hard_negatives() -> None:
    rows = intentions_model.written()
    hard = [r for r in rows if r["label"] == "none" and r.get("kind") != "plain"]
    assert len(rows) >= 400 and len(hard) * 4 >= len(rows)
    plans = {r["text"] for r in rows if r["label"] == "plan"}
    assert all(r["closes"] in plans for r in rows if "closes" in r)


def test_reads_its_own_training_messages() -> None:
    # Training texts, so this checks the model file is the one described, not how well it generalises
    # (``measure`` does that).
    readings = intentions_model.read(["I'm flying to Lisbon next Friday", "Just landed in Lisbon!",
                                      "The Lisbon trip is off, flights got cancelled",
                                      "I prefer tea to coffee"])
    assert [r.label for r in readings] == ["plan", "done", "dropped", "none"]


def test_a_closing_message_is_nearest_its_own_plan() -> None:
    model = intentions_model.default_model()
    sims = intentions_model.similarity(["Cancelled the zoo trip, the kids are ill"],
                                       ["next week I'm taking the kids to the zoo",
                                        "I'm flying to Lisbon next Friday"])
    assert sims[0, 0] >= model.meta["same_plan"] > sims[0, 1]
