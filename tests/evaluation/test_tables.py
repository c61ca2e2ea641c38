"""The evaluation's tidy table and the report's per-user table built from it."""

from __future__ import annotations

from dualmem_core.evaluation.harness import EvalResult, PartResult
from dualmem_core.evaluation.tables import ALL_USERS, metrics_frame, per_user_table


def result() -> EvalResult:
    part = PartResult("dev", ["d1", "d2"], before={"recall@5": 0.5}, after={"recall@5": 0.75, "questions": 8},
                      counts={}, per_user={"d1": {"recall@5": 1.0, "questions": 4, "mrr": None},
                                           "d2": {"recall@5": 0.5, "questions": 4, "mrr": 0.25}})
    return EvalResult("sqlite:///x.db", "hashing", {"dev": part}, seconds=1.0)


def test_every_number_is_one_row_and_the_totals_are_the_parts():
    frame = metrics_frame([result()])
    assert len(frame) == 1 + 2 + 3 + 3
    totals = frame[frame.user == ALL_USERS].set_index(["phase", "metric"])["value"].to_dict()
    assert totals == {("before", "recall@5"): 0.5, ("after", "recall@5"): 0.75, ("after", "questions"): 8}


def test_the_per_user_table_shows_what_was_counted_and_a_dash_for_nothing():
    table = per_user_table(metrics_frame([result()]), "hashing").splitlines()
    assert table[0] == "| part | user | questions | recall@5 | mrr |"
    assert table[2:] == ["| dev | d1 | 4 | 100.0% | – |", "| dev | d2 | 4 | 50.0% | 25.0% |"]
