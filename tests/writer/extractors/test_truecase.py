"""Messages as people type them: all in lower case, or run together with no stops.

The rule extractor reads names by their capitals and clauses by their stops; ``rules/truecase.py``
gives a lower-case message its capitals back and ``rules/preprocess.py: break_run_on`` splits a long
sentence where a new subject begins. These check both on sentences written for this file, and
that the extractor then reads the typed forms as it reads the edited ones.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from dualmem_core import Writer, open_store
from dualmem_core.writer.extractors.rules.extractor import RuleExtractor
from dualmem_core.writer.extractors.rules.preprocess import break_run_on, split_sentences
from dualmem_core.writer.extractors.rules.truecase import learn_names, restore_case, typed_lowercase
from dualmem_core.writer.facts import Message
from dualmem_core.writer.sessions import SessionContexts

AT = datetime(2026, 5, 4, 9, tzinfo=UTC)


def _triples(text: str, context=None) -> set[tuple[str, str, str, bool]]:
    facts = RuleExtractor().extract(Message(text, AT, "user", "user"), context)
    return {(f.subject.lower(), f.predicate, f.object.lower(), f.negated) for f in facts}


@pytest.mark.parametrize(
    ("text", "typed"),
    [("ok sounds good", True), ("I'm in, i'll bring snacks", True), ("são paulo is hot", True),
     ("my sister Lena", False), ("ok UX it is", False), ("12:30?", False)],
)
def test_a_message_is_typed_in_lower_case_when_no_capital_but_i_shows(text, typed):
    assert typed_lowercase(text) is typed


@pytest.mark.parametrize(
    ("typed", "restored"),
    [
        ("my sister lena just moved to leeds", "my sister Lena just moved to Leeds"),
        ("our youngest daughter maeve turns 4 in june", "our youngest daughter Maeve turns 4 in june"),
        ("we got a kitten called mango", "we got a kitten called Mango"),
        ("everyone calls him gaz", "everyone calls him Gaz"),
        ("tomás and i are getting married", "Tomás and I are getting married"),
        ("i work at ostrander freight as a dispatcher", "I work at Ostrander Freight as a dispatcher"),
        ("she's a nurse at st jude children's hospital", "she's a nurse at St Jude Children's Hospital"),
        ("hey, i'm okonkwo btw", "hey, I'm Okonkwo btw"),
        ("been living in wagga wagga for years", "been living in Wagga Wagga for years"),
    ],
)
def test_lower_case_names_get_their_capitals_back_where_a_name_stands(typed, restored):
    assert restore_case(typed)[0] == restored


@pytest.mark.parametrize(
    "text",
    [
        "woodworking is kind of my zen thing",  # a sentence's first word is not a name for that
        "made the pasta from scratch",
        "quit beer back in 2017",
        "my mum reckons i work too much",
        "started eating fish again",
        "My sister lena moved",  # written with a capital: left as written
    ],
)
def test_words_that_are_not_names_stay_as_typed(text):
    assert restore_case(text)[0].replace("I ", "i ").replace(" I", " i") == text.replace("I ", "i ").replace(
        " I", " i")


def test_a_name_restored_once_is_a_name_everywhere_in_the_message():
    restored, learned = restore_case("my brother kofi is 30. kofi's wife is ama")
    assert restored == "my brother Kofi is 30. Kofi's wife is ama"
    assert learned == {"kofi": "Kofi"}


def test_names_written_in_capitals_are_learned_but_not_a_sentences_first_word():
    assert learn_names("Congratulations, Dee! Conroe is a great spot, and say hi to Tasha.") == {
        "dee": "Dee", "tasha": "Tasha"}


@pytest.mark.parametrize(
    ("edited", "expected"),
    [
        ("My sister Lena lives in Leeds.", {("user", "sibling", "lena"), ("lena", "lives_in", "leeds")}),
        ("We adopted a greyhound called Rocket.", {("user", "pet", "rocket")}),
        ("I work at Ostrander Freight.", {("user", "works_at", "ostrander freight")}),
        ("I moved to Halifax last month.", {("user", "lives_in", "halifax")}),
    ],
)
def test_the_extractor_reads_a_lower_case_message_as_the_edited_one(edited, expected):
    for text in (edited, edited.lower()):
        got = {t[:3] for t in _triples(text)}
        assert expected <= got, (text, got)


def test_a_name_one_session_showed_is_read_in_another_sessions_lower_case():
    contexts, extractor = SessionContexts(), RuleExtractor()
    extractor.extract(Message("My son Kwabena loves trains.", AT, "user", "user"), contexts.get("u", "s1"))
    later = contexts.get("u", "s2")
    facts = extractor.extract(Message("kwabena turned 7 on saturday", AT, "user", "user"), later)
    assert ("Kwabena", "age", "7") in {(f.subject, f.predicate, f.object) for f in facts}
    contexts.drop("u")  # forget drops what the user's sessions knew, names too
    assert contexts.get("u", "s3").names == {}


def test_an_assistant_turn_teaches_the_names_it_writes(tmp_path):
    w = Writer(open_store(f"sqlite:///{tmp_path}/m.db"))
    w.remember("Happy birthday to Nkechi, your sister!", user_id="u", session_id="s", at=AT, role="assistant")
    result = w.remember("thanks! nkechi lives in accra now", user_id="u", session_id="s", at=AT)
    assert ("Nkechi", "lives_in", "Accra") in {(f.subject, f.predicate, f.object) for f in result.facts}


def test_a_long_sentence_with_no_stop_splits_where_a_new_subject_begins():
    run_on = "we adopted a dog last weekend his name is biscuit he is a terrier mix and I love him"
    assert break_run_on(run_on) == [
        "we adopted a dog last weekend his name is biscuit",
        "he is a terrier mix and I love him",
    ]
    for bound in (
        "my mum reckons I am allergic to hard work and she might be right",
        "the flight home reminded me how much I love Falmouth and the sea",
        "back in 2023 I was living in Monterey and working at the aquarium",  # no verb before "I"
        "I had a dream I was living in Tokyo with my whole family",
    ):
        assert break_run_on(bound) == [bound]
    assert [s.text for s in split_sentences("I live in Leeds I work at Aldi")] == [
        "I live in Leeds", "I work at Aldi"]


def test_the_extractor_reads_statements_run_together_as_it_reads_them_apart():
    apart = _triples("I live in Leeds.") | _triples("I work at Aldi as a baker.")
    assert _triples("I live in Leeds I work at Aldi as a baker") == apart
    assert ("user", "allergy", "hard work", False) not in _triples(
        "My mum reckons I'm allergic to hard work haha I don't work at Google, I just use their stuff")
