"""The question reader (``writer/intent.py``) and what recall does with its reading, on both stores.

The corpus ``fixtures/intent/questions.jsonl`` was written by hand, blind to the reader's cues;
the reader was then improved against it, so its floors here guard against regressions and do
not measure how it does on new wording (that was measured once, before: see fixtures/intent/).
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from dualmem_core import Writer
from dualmem_core.writer.intent import Asked, read_question

CORPUS = Path(__file__).resolve().parents[2] / "fixtures" / "intent" / "questions.jsonl"
T = datetime(2026, 3, 1, 12, tzinfo=UTC)


def _corpus() -> list[dict]:
    return [json.loads(line) for line in CORPUS.read_text(encoding="utf-8").splitlines() if line.strip()]


def test_the_reader_finds_a_gold_predicate_for_most_corpus_questions_and_few_for_none():
    asked, none, read_none = 0, 0, 0
    found = 0
    for row in _corpus():
        reading = read_question(
            row["question"], user_names=[row["user_name"]] if row.get("user_name") else []
        )
        gold = set(row["predicates"])
        if not gold:
            none += 1
            read_none += bool(reading.predicates)
            continue
        asked += 1
        found += bool(gold & set(reading.predicates))
    assert asked > 250 and none > 30
    assert found / asked >= 0.95, f"a gold predicate read for {found}/{asked}"
    assert read_none / none <= 0.15, f"{read_none}/{none} questions no predicate answers were read as one"


@pytest.mark.parametrize(
    ("question", "predicates", "relations"),
    [
        ("Where does the user live?", {"lives_in"}, ()),
        ("where's she based these days", {"lives_in"}, ()),
        ("employer of the user", {"works_at"}, ()),
        ("What does she do for a living?", {"job_title"}, ()),
        ("Who is he dating?", {"partner", "spouse"}, ()),
        ("Where does her mum live?", {"lives_in", "parent"}, ("parent",)),
        ("What are Jon's kids' names?", {"child"}, ()),
        ("What's her favourite band?", {"favourite_band", "favourite_group"}, ()),  # twins: either answers
        ("Is she allergic to anything?", {"allergy"}, ()),
        ("Which school did he teach at before Kennedy High?", {"works_at", "job_title"}, ()),
        ("What did she study at uni?", {"studies"}, ()),
        ("Where is she studying?", {"studies_at"}, ()),
    ],
)
def test_reading_everyday_questions(question, predicates, relations):
    reading = read_question(question)
    assert set(reading.predicates) == predicates, reading
    assert set(reading.relations) == set(relations), reading


def test_names_values_set_aside_and_the_users_own_name():
    reading = read_question("Where did Lou live before San Diego?", user_names=["Lou"])
    assert reading.names == ("San Diego",)  # a place, not a person: no fact is about it
    assert reading.excluded == frozenset({"san diego"})
    assert read_question("How old is Sipho's daughter?").names == ("Sipho",)
    assert not read_question("what did we talk about on Tuesday?")
    assert not Asked()


@pytest.mark.parametrize(
    ("question", "set_aside"),
    [
        ("What diet did Priya follow before she went pescatarian?", {"pescatarian"}),
        ("Where did the user live before the move to Conroe?", {"conroe"}),
        ("What does Lou drink instead of coffee these days?", {"coffee"}),
        ("Which school did he teach at before Kennedy High?", {"kennedy high"}),
        ("What was her job before she became a registered nurse?", {"registered nurse", "nurse"}),
        ("What did she do before he retired and moved?", {"retired"}),
    ],
)
def test_the_value_a_question_sets_aside_ends_its_clause(question, set_aside):
    assert set_aside <= read_question(question).excluded


def test_a_question_about_the_time_between_two_events_sets_neither_aside():
    assert not read_question("How many weeks after moving to Minneapolis did she get engaged?").excluded
    assert not read_question("How long after the wedding did they move to Leeds?").excluded


def _told(store, texts: list[str], *, role_of=lambda _: "user") -> tuple[Writer, str]:
    user = f"intent-{id(store)}-{datetime.now().timestamp()}"
    w = Writer(store)
    for i, text in enumerate(texts):
        w.remember(text, user_id=user, session_id="s1", at=T + timedelta(hours=i), role=role_of(text))
    return w, user


def test_a_fact_of_the_asked_predicate_about_the_user_comes_first(store):
    w, user = _told(
        store,
        [
            "My friend Robert lives in Boston.",
            "I live in Leeds.",
            "Robert says Boston is freezing this week.",
            "Boston traffic is the worst, Robert keeps complaining about it",
        ],
    )
    hits = w.recall("Where does the user live?", user_id=user, k=3)
    assert hits[0].predicate == "lives_in" and hits[0].object == "Leeds", [h.text for h in hits]
    assert hits[0].why["intent"] > 0
    robert = next(
        h for h in w.recall("Where does Robert live?", user_id=user, k=5) if h.predicate == "lives_in"
    )
    assert robert.object == "Boston"


def test_a_question_through_a_relation_finds_that_persons_fact(store):
    w, user = _told(
        store,
        [
            "My mum is Ruth.",
            "Ruth lives in Cape Town.",
            "I live in Falmouth.",
            "My friend Kat lives in Oakland.",
        ],
    )
    hits = w.recall("Where does her mum live?", user_id=user, k=2)
    assert any(h.object == "Cape Town" for h in hits), [h.text for h in hits]
    first_place = next(h for h in hits if h.predicate == "lives_in")
    assert first_place.object == "Cape Town", [h.text for h in hits]


def test_the_value_a_question_sets_aside_is_not_its_first_answer(store):
    w, user = _told(store, ["I used to live in Monterey.", "I live in San Diego."])
    hits = w.recall("Where did the user live before San Diego?", user_id=user, k=3)
    assert "San Diego" not in hits[0].text, [h.text for h in hits]
    assert any("Monterey" in h.text for h in hits)


def test_a_value_set_aside_in_a_clause_is_not_the_first_answer(store):
    w, user = _told(store, ["I work at Initech.", "I worked at Globex from 2019 to 2024."])
    hits = w.recall("Where did the user work before joining Initech?", user_id=user, k=3)
    assert hits[0].object == "Globex", [h.text for h in hits]


def test_before_a_value_asks_for_the_one_just_before_it_where_no_edge_says_which(store):
    """No Editor has run, so no supersession edge links the jobs: their valid times decide. Acme
    scores best on its own (as a fact told more often would) but ended before Globex began."""
    from dualmem_core.store import Memory, MemoryVersion, SearchFilter, SearchHit
    from dualmem_core.writer.intent import Asked
    from dualmem_core.writer.reorder import _predecessors_of_named

    def fact(value: str, score: float, began: int, ended: int | None) -> tuple:
        memory = Memory(user_id="u", kind="fact")
        version = MemoryVersion(
            memory_id=memory.id, user_id="u", text=f"user works at {value}", subject="user",
            predicate="works_at", object=value, valid_from=datetime(began, 1, 1, tzinfo=UTC),
            **({"valid_to": datetime(ended, 1, 1, tzinfo=UTC)} if ended else {}),
        )
        return score, {}, ended is None, SearchHit(memory, version, score)

    ranked = [fact("Acme", 0.6, 2012, 2016), fact("Globex", 0.5, 2016, 2021),
              fact("Initech", 0.55, 2021, None), fact("Hooli", 0.7, 2005, 2012)]
    asked = Asked(predicates=("works_at",), names=("Initech",), excluded=frozenset({"initech"}))
    lifted = _predecessors_of_named(store, SearchFilter(user_id="u"), asked, ranked)
    best = max(lifted, key=lambda item: item[0])
    assert best[3].version.object == "Globex"
    assert [s for s, *_ in lifted if s != best[0]] == [0.6, 0.55, 0.7]  # the others keep their scores


def test_a_question_the_reader_cannot_read_ranks_as_before(store):
    w, user = _told(store, ["We talked about sleep hygiene and blue light."])
    hits = w.recall("what did we talk about on Tuesday?", user_id=user, k=3)
    assert hits and "intent" not in hits[0].why


def test_asked_about_the_present_an_ended_fact_of_the_slot_is_dealt_below_every_current_telling():
    """"Lucas was her boyfriend" (ended by the Editor) scores best on its own; the newer message
    telling who she is dating now, with no fact of it, takes the first place."""
    from dualmem_core.store import Memory, MemoryVersion, SearchHit
    from dualmem_core.writer.reorder import _newest_first

    def hit(text: str, score: float, day: int, current: bool, predicate: str | None = None) -> tuple:
        memory = Memory(user_id="u", kind="fact" if predicate else "observation")
        version = MemoryVersion(
            memory_id=memory.id, user_id="u", text=text, valid_from=T + timedelta(days=day),
            search_text=None if predicate else text, **({"subject": "user", "predicate": predicate,
                                                          "object": "Lucas"} if predicate else {}),
        )
        return score, {}, current, SearchHit(memory, version, score)

    ranked = [hit("Lucas is user's boyfriend", 0.25, 0, False, "partner"),
              hit("my boyfriend Lucas is in São Paulo, we are dating since 2020", 0.22, 0, True),
              hit("I met a guy!! his name is Owen, we are dating since two weeks", 0.21, 200, True)]
    dealt = _newest_first(ranked, Asked(predicates=("partner",)), "dating boyfriend", set())
    order = [h.version.text for _, _, _, h in sorted(dealt, key=lambda item: -item[0])]
    assert order[0].startswith("I met a guy") and order[-1] == "Lucas is user's boyfriend", order


def test_before_a_named_value_reads_the_slot_of_its_fact_when_the_question_names_none(store):
    """"Who was the user seeing before Owen?" names no predicate ("seeing" is no cue): the fact
    holding Owen says which slot, and its predecessor there comes first, read from the store
    when the searches did not find it."""
    w, user = _told(store, ["my boyfriend Lucas lives in Lisbon, long distance is hard",
                            "I went to a pottery class on Saturday and made a wonky bowl",
                            "I'm seeing someone new. his name is Owen, he teaches salsa"])
    assert not read_question("Who was the user seeing before Owen?")  # no predicate read
    hits = w.recall("Who was the user seeing before Owen?", user_id=user, k=3, record_access=False)
    assert hits[0].object == "Lucas", [h.text for h in hits]
