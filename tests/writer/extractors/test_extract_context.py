"""The rule extractor reading a conversation: what earlier messages of a session lend the next one.

Unit cases read a few turns with ``RuleExtractor.extract_many`` (one ``Discourse`` carried through
them); the negatives are the point as much as the positives: a pronoun two people could fill, a
pet's name after two pets, an answer to a question about someone else, a question of no known kind.
The Writer-level tests run on both stores with the real rule extractor: single-message ``remember``
calls in one session read as a conversation, another session or user gets nothing of it, and
``forget`` drops it.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from benchmarks import extraction_dialogues
from dualmem_core.writer.extractors.rules.discourse import answer_statement, read_question
from dualmem_core.writer.extractors.rules.extractor import RuleExtractor
from dualmem_core.writer.facts import Fact, Message
from dualmem_core.writer.sessions import Discourse, SessionContexts
from dualmem_core.writer.writer import Writer

NOW = datetime(2025, 6, 15, 12, 0, tzinfo=UTC)
EXTRACTOR = RuleExtractor()


def read(*turns: str) -> list[list[Fact]]:
    """Facts per turn; a turn starting "A: " is the assistant's."""
    messages = [
        Message(t[3:], NOW, "assistant", "assistant") if t.startswith("A: ") else Message(t, NOW)
        for t in turns
    ]
    return EXTRACTOR.extract_many(messages)


def last(*turns: str) -> set[tuple[str, str, str]]:
    """The (subject, predicate, object) triples of the last turn, read after the others."""
    return {(f.subject, f.predicate, f.object) for f in read(*turns)[-1]}


# ------------------------------------------------------------------------------ pronouns


@pytest.mark.parametrize(
    ("turns", "expected"),
    [
        (("My sister just got engaged.", "She lives in Leeds now."), ("user's sister", "lives_in", "Leeds")),
        (
            ("My brother Tom got a new job.", "He's working at Rolls-Royce now."),
            ("Tom", "works_at", "Rolls-Royce"),
        ),
        (("My mum turned 60 on Sunday.", "She still lives in Galway."), ("user's mum", "lives_in", "Galway")),
        (
            ("My daughter started uni.", "She's studying law at Durham."),
            ("user's daughter", "studies", "law"),
        ),
        # the gender picks the one who fits: "he" after a sister and a brother
        (
            ("My sister and my brother came round.", "He works at Aviva."),
            ("user's brother", "works_at", "Aviva"),
        ),
        # the assistant's "your mum" is the next answer's "she"
        (("A: How's your mum doing?", "She's good, still in Galway."), ("user's mum", "lives_in", "Galway")),
        (("A: What does your husband do?", "He's a teacher."), ("user's husband", "job_title", "teacher")),
    ],
)
def test_a_pronoun_means_the_one_earlier_person_it_fits(turns, expected):
    assert expected in last(*turns)


@pytest.mark.parametrize(
    "turns",
    [
        ("My dad and my brother went fishing.", "He lives in Whitby."),  # two men
        ("My sister and my mum came to visit.", "She works at the hospital."),  # two women
        ("I'm meeting Jess and Tom later.", "She's just moved to Oxford."),  # genders unknown: either
        ("Sarah and her husband came over.", "He works at Aviva."),  # Sarah could be anyone; his owner too
        ("My partner Alex started a new job.", "They're at Google now."),  # "they" is never resolved
        ("My parents came round.", "They live in Bristol."),
    ],
)
def test_an_ambiguous_pronoun_yields_nothing_about_anyone(turns):
    facts = read(*turns)[-1]
    assert not [f for f in facts if f.predicate in ("lives_in", "works_at", "job_title")], facts


def test_a_message_naming_its_own_person_is_read_as_before():
    """'I texted my brother Daniel - he's a vet tech': he is Daniel, not the earlier message's Rufus."""
    facts = last("Rufus ate my sandwich.", "I texted my brother Daniel, he's a vet tech in San Diego.")
    assert ("Daniel", "job_title", "vet tech") in facts and not any(s == "Rufus" for s, _, _ in facts)


def test_referents_fade_after_two_messages_that_name_nobody():
    assert not last("My dad is a nurse.", "Work has been hard.", "The weather is bad.", "He lives in Cork.")
    assert ("user's dad", "lives_in", "Cork") in last(
        "My dad is a nurse.", "Work was hard.", "He lives in Cork."
    )


def test_another_persons_move_does_not_make_the_speaker_live_somewhere():
    assert not last("My sister moved to Leeds last year.", "We're in Paris now.")


# ---------------------------------------------------------------------------------- pets


def test_a_pets_name_in_the_next_message():
    assert ("user", "pet", "Biscuit") in last("I adopted a puppy last week.", "His name is Biscuit.")
    assert ("user", "pet", "Mochi") in last("we finally got a cat!!", "she's called Mochi")


def test_we_named_him():
    assert ("user", "pet", "Toast") in last("We adopted a puppy.", "We named him Toast.")


def test_the_last_message_with_pets_decides_which_pet_is_named():
    turns = ("Our old dog passed away in the spring.", "We got a kitten last month.", "He's called Toast.")
    assert ("user", "pet", "Toast") in last(*turns)


def test_a_name_after_two_pets_names_neither():
    facts = last("We've got a dog and a rabbit now.", "Her name is Daisy.")
    assert not [t for t in facts if "Daisy" in t], facts


def test_a_person_and_a_pet_both_fitting_his_name_nothing():
    facts = last("My brother got a puppy.", "His name is Rex.")
    assert not [t for t in facts if "Rex" in t], facts


# ------------------------------------------------------------------------- short answers


@pytest.mark.parametrize(
    ("question", "answer", "expected"),
    [
        ("Where are you based?", "Leeds, for now", ("user", "lives_in", "Leeds")),
        ("Whereabouts do you live?", "just outside Bath", ("user", "lives_in", "Bath")),
        ("Where are you from originally?", "Cork", ("user", "from", "Cork")),
        ("Who do you work for?", "Deloitte, in the audit team", ("user", "works_at", "Deloitte")),
        ("What do you do for work?", "Nurse. Night shifts mostly", ("user", "job_title", "nurse")),
        ("How old are you, if you don't mind me asking?", "34", ("user", "age", "34")),
        ("Hi! What's your name?", "Aoife", ("user", "name", "Aoife")),
        ("What's your partner's name?", "Dev", ("user", "partner", "Dev")),
        (
            "What's your favourite film?",
            "Paddington 2, no contest",
            ("user", "favourite_film", "Paddington 2"),
        ),
        ("Do you have any pets?", "Yeah, a cat called Pixel", ("user", "pet", "Pixel")),
        ("What line of work are you in?", "Accountant, for my sins", ("user", "job_title", "accountant")),
        ("Which company are you with?", "Ocado", ("user", "works_at", "Ocado")),
        ("Sorry, I didn't catch your name?", "It's Ravi", ("user", "name", "Ravi")),
        ("Where do you live?", "In Auckland, moved here two years ago", ("user", "lives_in", "Auckland")),
        ("Where are you from?", "Originally Dundee", ("user", "from", "Dundee")),
        # a question about someone else: the answer is theirs, never the user's
        ("Where does your brother live?", "Dublin", ("user's brother", "lives_in", "Dublin")),
        ("How old is your daughter now?", "Seven", ("user's daughter", "age", "7")),
    ],
)
def test_a_short_answer_to_a_known_question(question, answer, expected):
    facts = last(f"A: {question}", answer)
    assert expected in facts
    if expected[0] != "user":
        assert not [f for f in facts if f[0] == "user"], facts


def test_a_pets_name_answers_the_assistants_question():
    turns = ("We rescued a greyhound on Saturday.", "A: Oh lovely! What's his name?", "Bolt")
    assert ("user", "pet", "Bolt") in last(*turns)


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        ("Where would you like to go on holiday?", "Japan, one day"),  # a wish, no known kind
        ("Which restaurant did you book?", "Dishoom at 8"),
        ("Where are you based?", "why do you ask?"),
        ("Where are you based?", "travelling at the moment, in Lisbon for a week"),
        ("Where are you based?", "same"),
        ("What do you do?", "not much, just chilling tonight"),
        ("How old are you?", "Old enough haha"),
        ("What's his name?", "Rex"),  # no pet was mentioned: whose name?
    ],
)
def test_an_answer_that_is_not_one_yields_nothing(question, answer):
    assert not last(f"A: {question}", answer)


def test_a_question_is_answered_once():
    """The message after the answer is read on its own terms."""
    facts = read("A: Where are you based?", "Leeds", "Manchester is where my sister lives though")
    assert ("user", "lives_in", "Leeds") in {(f.subject, f.predicate, f.object) for f in facts[1]}
    assert not [f for f in facts[2] if f.subject == "user" and f.predicate == "lives_in"]


def test_question_kinds_and_restatements():
    assert read_question("Nice! Where are you based?") is not None
    assert read_question("What do you do for fun?") is None
    assert read_question("Here's a recipe.") is None
    live = read_question("Where do you live?")
    assert answer_statement(live, "Leeds, for now") == "I live in Leeds. for now"
    assert answer_statement(live, "I'm not telling you that") is None


# ------------------------------------------------------------------ interface and cache


def test_extract_and_extract_many_agree_and_one_message_alone_is_unchanged():
    turns = [Message("I adopted a puppy.", NOW), Message("His name is Biscuit.", NOW)]
    context = Discourse()
    one_by_one = [EXTRACTOR.extract(m, context) for m in turns]
    assert [[f.text for f in fs] for fs in one_by_one] == [
        [f.text for f in fs] for fs in EXTRACTOR.extract_many(turns)
    ]
    assert EXTRACTOR.extract(turns[1]) == []  # without context: as before


def test_session_contexts_are_bounded_and_dropped_per_user():
    contexts = SessionContexts(capacity=2)
    first = contexts.get("u1", "s1")
    assert contexts.get("u1", "s1") is first and contexts.get("u1", None) is None
    contexts.get("u2", "s1")
    contexts.get("u3", "s1")  # evicts the least recently used, u1's
    third = contexts.get("u3", "s1")
    assert len(contexts) == 2 and contexts.get("u1", "s1") is not first  # a fresh one, evicting u2's
    contexts.drop("u1")
    assert len(contexts) == 1 and contexts.get("u3", "s1") is third


def test_the_dialogues_corpus_stays_above_its_floors():
    # Measured (python -m benchmarks.extraction --part dialogues), all 79 dialogues: each message alone
    # 16 / 74 = 0.216 recall, precision 16 / 20; with context 59 / 74 = 0.797, precision 59 / 64 = 0.922.
    # The first 56 were written before the context existed and it was built against them (alone 13 / 57,
    # with it 48 / 57, precision 48 / 50). The 23 "-1xx" ones were written afterwards as a fresh check:
    # before any change for them 6 / 17 with precision 6 / 11; after (more question forms, "In Auckland",
    # "Originally Dundee", "It's Ravi", "we named him Nugget") 11 / 17, precision 11 / 14.
    score = extraction_dialogues.score()
    assert score.recall >= 0.76 and score.precision >= 0.90, (score.recall, score.precision)
    assert extraction_dialogues.score(with_context=False).recall < 0.3  # the gain is the context's


# ------------------------------------------------------------------------------- Writer


def _facts(writer: Writer, user: str) -> set[tuple[str, str, str]]:
    hits = writer.recall("pet name puppy Biscuit", user_id=user, k=20, record_access=False)
    return {(h.subject, h.predicate, h.object) for h in hits if h.kind == "fact"}


def test_single_remembers_in_a_session_read_as_one_conversation(store, user, other_user):
    writer = Writer(store)
    t = NOW
    writer.remember("I adopted a puppy last week.", user_id=user, session_id="s1", at=t)
    # another session, and another user in the same session id, get nothing of it
    writer.remember("His name is Biscuit.", user_id=user, session_id="s2", at=t + timedelta(minutes=1))
    writer.remember("His name is Biscuit.", user_id=other_user, session_id="s1", at=t + timedelta(minutes=1))
    assert ("user", "pet", "Biscuit") not in _facts(writer, user)
    assert ("user", "pet", "Biscuit") not in _facts(writer, other_user)
    result = writer.remember(
        "His name is Biscuit.", user_id=user, session_id="s1", at=t + timedelta(minutes=2)
    )
    assert [(f.subject, f.predicate, f.object) for f in result.facts] == [("user", "pet", "Biscuit")]


def test_a_batch_hears_the_assistants_question(store, user):
    writer = Writer(store)
    result = writer.remember(
        [
            {"role": "assistant", "content": "Where are you based?"},
            {"role": "user", "content": "Leeds, for now"},
        ],
        user_id=user,
        at=NOW,
    )
    assert [(f.subject, f.predicate, f.object) for f in result.facts] == [("user", "lives_in", "Leeds")]


def test_an_answer_to_an_assistant_turn_remembered_alone(store, user):
    writer = Writer(store)
    writer.remember("Where are you based?", user_id=user, session_id="s1", at=NOW, role="assistant")
    result = writer.remember("Leeds, for now", user_id=user, session_id="s1", at=NOW + timedelta(minutes=1))
    assert [(f.subject, f.predicate, f.object) for f in result.facts] == [("user", "lives_in", "Leeds")]


def test_forget_drops_the_users_session_context(store, user):
    writer = Writer(store)
    first = writer.remember(
        "I adopted a puppy last week.", user_id=user, session_id="s1", at=NOW, source_id="m1"
    )
    assert first.facts
    writer.forget(user_id=user, source_ids=["m1"])
    result = writer.remember(
        "His name is Biscuit.", user_id=user, session_id="s1", at=NOW + timedelta(minutes=1)
    )
    assert result.facts == []  # the forgotten puppy is no longer a referent
