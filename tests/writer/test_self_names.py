"""Questions that name the user reach the facts stored about "user"."""

from __future__ import annotations

from datetime import UTC, datetime

from dualmem_core import Writer, open_store
from dualmem_core.writer.self_names import about_user, self_names


def test_about_user_reads_each_name_as_the_user():
    assert about_user("Where does Priya live?", ["Priya"]) == "Where does the user live?"
    assert about_user("What is priya's job?", ["Priya"]) == "What is the user's job?"
    assert about_user("Where does Priya Raman live?", ["Priya Raman", "Priya"]) == "Where does the user live?"


def test_for_the_text_search_the_names_are_dropped():
    assert about_user("What is Priya's job?", ["Priya"], as_="") == "What is  job?"
    assert about_user("Priya and Marcus", ["Priya"], as_="") == " and Marcus"
    assert about_user("Is Priyanka here?", ["Priya"]) == "Is Priyanka here?"  # whole words only
    assert about_user("Where do I live?", []) == "Where do I live?"


def test_a_question_naming_the_user_finds_what_the_user_said(tmp_path):
    with open_store(f"sqlite:///{tmp_path / 'm.db'}") as store:
        writer = Writer(store)
        at = datetime(2026, 3, 1, tzinfo=UTC)
        writer.remember("Hi, I'm Maya.", user_id="u", at=at)
        writer.remember("I live in Portland now.", user_id="u", at=at)
        writer.remember("My friend Lena lives in Denver.", user_id="u", at=at)
        assert self_names(store, "u") == ["Maya"]
        hits = writer.recall("Where does Maya live?", user_id="u", k=2)
        assert "user lives in Portland" in [h.text for h in hits]
        assert self_names(store, "someone-else") == []



def test_a_question_about_the_past_finds_what_ended():
    from dualmem_core.writer.scoring import asks_about_the_past

    for question in ("Where did she live before Portland?", "What was his previous job?",
                     "What did I use to eat?", "Who is her ex-husband?", "When did they get engaged?"):
        assert asks_about_the_past(question), question
    for question in ("Where does she live now?", "How old is Mateo?", "What is her exact job?"):
        assert not asks_about_the_past(question), question


def test_past_questions_rank_a_superseded_fact_first(tmp_path):
    from dualmem_core import Editor

    with open_store(f"sqlite:///{tmp_path / 'm.db'}") as store:
        writer = Writer(store)
        writer.remember("I live in Seattle.", user_id="u", at=datetime(2025, 1, 1, tzinfo=UTC))
        writer.remember("I live in Portland now.", user_id="u", at=datetime(2025, 9, 1, tzinfo=UTC))
        Editor(store).run("u")
        facts = lambda q: [h.text for h in writer.recall(q, user_id="u", k=5) if h.kind == "fact"]  # noqa: E731
        assert facts("Where does the user live?")[0] == "user lives in Portland"
        assert facts("Where did the user live before?")[0] == "user lives in Seattle"


def test_before_a_named_value_ranks_what_that_value_replaced(tmp_path):
    from dualmem_core import Editor

    with open_store(f"sqlite:///{tmp_path / 'm.db'}") as store:
        writer = Writer(store)
        for city, month in (("Austin", 1), ("Denver", 4), ("Boston", 8)):
            writer.remember(f"I live in {city}.", user_id="u", at=datetime(2025, month, 1, tzinfo=UTC))
        Editor(store).run("u")
        facts = [h.text for h in writer.recall("Where did the user live before Denver?", user_id="u", k=5)
                 if h.kind == "fact"]
        assert facts[0] == "user lives in Austin"
