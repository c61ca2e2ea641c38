"""Recurring topics (``editor/topics.py``) on both stores: a hand-made conversation of five sessions
in which Ana keeps coming back to her pottery class; the turns about it become one ``topic``
memory, new turns join it, rollback removes it, and recall goes through it to its turns."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from dualmem_core import Editor, Writer
from dualmem_core.editor import EditorConfig

T = datetime(2026, 1, 5, 12, tzinfo=UTC)
# Twelve turns: few words are common, and a pair sharing one word ("the report") is as alike as
# 600 turns' themes are, so the threshold is that of a small conversation.
TOPICS = EditorConfig(topics=True, topic_max_share=0.5, topic_similarity=0.2)
SESSIONS = [
    ["Signed up for a pottery class at the studio on Elm Street.", "Work was slow today.",
     "Lena called about her new flat."],
    ["Second pottery class: my first bowl on the wheel collapsed.", "Groceries cost a fortune this week.",
     "Watched a documentary about whales."],
    ["The pottery studio fired my bowl in the kiln, it survived!",
     "My manager Tom wants the report by Friday.", "Ran five kilometres before breakfast."],
    ["Dentist appointment moved to Thursday.", "Lena's flat has a balcony with a view of the river.",
     "Finished the report at last."],
]
LATER = ["Glazed two bowls at the pottery studio tonight.", "The train was late again."]
POTTERY = {"s0-0", "s1-0", "s2-0"}


def say(writer, user, session, texts, prefix, at):
    writer.remember([{"role": "user", "content": t, "speaker": "Ana", "source_id": f"{prefix}{i}", "at": at}
                     for i, t in enumerate(texts)], user_id=user, session_id=session)


def converse(store, user) -> Writer:
    writer = Writer(store)
    for n, turns in enumerate(SESSIONS):
        say(writer, user, f"s{n}", turns, f"s{n}-", T + timedelta(days=7 * n))
    return writer


def topics(store, user):
    return [m for m in store.export_graph(user).memories if m.kind == "topic"]


def test_the_turns_ana_keeps_coming_back_to_become_one_topic(store, user):
    converse(store, user)
    editor = Editor(store, config=TOPICS)
    run = editor.run(user)
    assert run.counts["topics"] == {"topic": 1} and not run.skipped
    [topic] = topics(store, user)
    assert topic.created_by == run.run_id
    assert set(store.sources_of(user, [topic.id])[topic.id]) == POTTERY
    [version] = store.get_versions(user, [topic.id])
    assert version.text.startswith("pottery") and "3 mentions in 3 sessions" in version.text
    assert version.valid_from == T and "19 January 2026" in version.text  # first and last mention

    again = editor.run(user)
    assert again.counts["topics"] == {} and topics(store, user) == [topic]  # nothing new: nothing done

    say(Writer(store), user, "s4", LATER, "s4-", T + timedelta(days=35))
    third = editor.run(user)
    assert third.counts["topics"] == {"retopic": 1}  # the new turn joins the topic, no new one starts
    assert set(store.sources_of(user, [topic.id])[topic.id]) == POTTERY | {"s4-0"}
    [grown] = store.get_versions(user, [topic.id])
    assert "4 mentions in 4 sessions" in grown.text


def test_rollback_removes_the_topics(store, user):
    converse(store, user)
    editor = Editor(store, config=TOPICS)
    run = editor.run(user)
    assert topics(store, user)
    editor.rollback(run.run_id)
    assert topics(store, user) == []


def test_off_by_default(store, user):
    converse(store, user)
    assert Editor(store).run(user).counts.get("topics", {}) == {} and topics(store, user) == []


def test_recall_goes_through_a_topic_to_its_turns(store, user):
    """A topic is a way to its turns, never a hit itself, and measurement counts its turns."""
    writer = converse(store, user)
    Editor(store, config=TOPICS).run(user)
    hits = writer.recall("How many pottery classes did Ana go to?", user_id=user, k=10, record_access=False)
    assert all(h.kind != "topic" for h in hits)
    assert POTTERY <= {s for h in hits for s in h.sources}
