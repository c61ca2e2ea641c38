"""The layered profile (``writer/profile.py``) on both stores: identity as before, and the lasting
preferences that two or more sessions (or days) support, and a topic's turns as evidence on request.

Facts come from a scripted extractor (hand-written facts keyed by message text), so each test
states exactly what extraction returned."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from dualmem_core import Editor, InvalidInput
from dualmem_core.writer.extractors.base import Extraction, Extractor
from dualmem_core.writer.facts import Fact, Message
from dualmem_core.writer.writer import Writer
from tests.editor.test_editor_topics import SESSIONS, TOPICS

T = datetime(2026, 1, 5, 12, tzinfo=UTC)
TEA = "I love green tea."
TEA_AGAIN = "Green tea again this morning, I love it."
CHESS = "I play chess on Sundays."
LIVES = "I live in Lisbon."
MEAT = "I don't eat meat."
# Ana's pottery (tests/editor/test_editor_topics.py): its first turn is told as a fact here, then
# talked about in two more sessions in words the extractor takes no fact from.
POTTERY = SESSIONS[0][0]


def fact(text: str, predicate: str, value: str, negated: bool = False) -> Fact:
    return Fact(text, "user", predicate, value, negated=negated)


SCRIPT = {
    TEA: [fact("user likes green tea", "likes", "green tea")],
    TEA_AGAIN: [fact("user likes green tea", "likes", "green tea")],
    CHESS: [fact("user plays chess", "hobby", "chess")],
    LIVES: [fact("user lives in Lisbon", "lives_in", "Lisbon")],
    MEAT: [fact("user does not eat meat", "eats", "meat", negated=True)],
    POTTERY: [fact("user does pottery", "hobby", "pottery")],
}


class ScriptedExtractor(Extractor):
    def extract_batch(self, messages: list[Message], context=None) -> Extraction:
        return Extraction([list(SCRIPT.get(m.text, [])) for m in messages])


@pytest.fixture
def writer(store):
    return Writer(store, extractor=ScriptedExtractor())


def say(writer, user, texts, *, session=None, at=T, prefix="m"):
    writer.remember([{"role": "user", "content": t, "source_id": f"{prefix}{i}", "at": at}
                     for i, t in enumerate(texts)], user_id=user, session_id=session)


def test_lasting_needs_two_occasions_and_keeps_its_evidence(writer, user):
    say(writer, user, [TEA, CHESS, CHESS, LIVES, MEAT], session="s1", prefix="a")
    say(writer, user, [TEA_AGAIN, MEAT], session="s2", at=T + timedelta(days=9), prefix="b")
    profile = writer.layered_profile(user)
    assert {p: e.value for p, e in profile.identity.items()} == {"lives_in": "Lisbon"}
    assert profile.identity == writer.profile(user)  # the old shape is its identity part
    lasting = {(e.predicate, e.value, e.negated): e for e in profile.lasting}
    assert set(lasting) == {("likes", "green tea", False), ("eats", "meat", True)}  # chess: one session
    tea = lasting[("likes", "green tea", False)]
    assert tea.sources == ["a0", "b0"] and tea.occasions == 2 and tea.topic_ids == []
    assert tea.since <= T + timedelta(days=9) and tea.memory_ids
    assert [e.predicate for e in writer.layered_profile(user, min_occasions=1).lasting].count("hobby") == 1
    with pytest.raises(InvalidInput):
        writer.layered_profile(user, min_occasions=0)


def test_without_sessions_each_day_is_an_occasion(writer, user):
    say(writer, user, [CHESS], prefix="a")
    say(writer, user, [CHESS], at=T + timedelta(hours=2), prefix="b")
    assert writer.layered_profile(user).lasting == []  # twice the same day: one occasion
    say(writer, user, [CHESS], at=T + timedelta(days=3), prefix="c")
    [chess] = writer.layered_profile(user).lasting
    assert chess.value == "chess" and chess.occasions == 2 and chess.sources == ["a0", "b0", "c0"]


def test_a_topic_turns_a_one_off_fact_into_a_lasting_one(writer, store, user):
    for n, turns in enumerate(SESSIONS):
        say(writer, user, turns, session=f"s{n}", at=T + timedelta(days=7 * n), prefix=f"s{n}-")
    assert writer.layered_profile(user).lasting == []  # one telling, before the Editor ran
    run = Editor(store, config=TOPICS).run(user)
    [topic] = [m.id for m in store.export_graph(user).memories if m.kind == "topic"]
    assert writer.layered_profile(user).lasting == []  # a topic's turns count only when asked
    [pottery] = writer.layered_profile(user, topic_evidence=True).lasting
    assert (pottery.predicate, pottery.value, pottery.topic_ids) == ("hobby", "pottery", [topic])
    assert pottery.sources == ["s0-0", "s1-0", "s2-0"] and pottery.occasions == 3
    Editor(store, config=TOPICS).rollback(run.run_id)
    assert writer.layered_profile(user, topic_evidence=True).lasting == []
