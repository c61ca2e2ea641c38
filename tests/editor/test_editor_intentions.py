"""Intentions (``editor/intentions.py``) on both stores: a plan becomes an open intention with the
due time the Writer read, a later "done" or "dropped" message closes it, only new messages are read,
and rollback undoes both. Messages are training texts of the reader, so these test the stage, not
how well the reader generalises (``intentions_model measure`` does)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from dualmem_core import Editor, Writer
from dualmem_core.editor import EditorConfig

T = datetime(2026, 3, 4, 12, tzinfo=UTC)  # a Wednesday
ON = EditorConfig(intentions=True)


def say(writer, user, texts, prefix, at, role="user"):
    writer.remember([{"role": role, "content": t, "source_id": f"{prefix}{i}", "at": at}
                     for i, t in enumerate(texts)], user_id=user, session_id=prefix)


def intentions(store, user):
    g = store.export_graph(user)
    ids = {m.id for m in g.memories if m.kind == "intention"}
    return {v.text: v for v in g.versions if v.memory_id in ids and v.tx_to.year == 9999}


def test_plans_become_intentions_and_later_messages_close_them(store, user):
    writer = Writer(store)
    say(writer, user, ["I'm flying to Lisbon next Friday", "I want to write a novel",
                       "I prefer tea to coffee", "My sister is flying to Rome next week"], "a", T)
    say(writer, user, ["I'm going to start a podcast with my friend"], "x", T, role="assistant")
    editor = Editor(store, config=ON)
    run = editor.run(user)
    made = intentions(store, user)
    assert set(made) == {"I'm flying to Lisbon next Friday", "I want to write a novel"}
    lisbon, novel = made["I'm flying to Lisbon next Friday"], made["I want to write a novel"]
    assert (lisbon.predicate, lisbon.object) == ("due", "open") and lisbon.valid_from > T
    assert lisbon.valid_from - T < timedelta(days=10)  # the date the Writer resolved
    assert (novel.predicate, novel.object, novel.valid_from) == ("intends", "open", T)  # no date said
    assert run.counts["intentions"] == {"intend": 2}
    assert store.sources_of(user, [lisbon.memory_id])[lisbon.memory_id] == ["a0"]

    assert editor.run(user).counts["intentions"] == {}  # nothing new: nothing read again

    say(writer, user, ["The Lisbon trip is off, flights got cancelled"], "b", T + timedelta(days=1))
    closing = editor.run(user)
    after = intentions(store, user)
    assert after["I'm flying to Lisbon next Friday"].object == "dropped"
    assert after["I want to write a novel"].object == "open"
    assert closing.counts["intentions"] == {"dropped": 1}

    editor.rollback(closing.run_id, user_id=user)
    assert intentions(store, user)["I'm flying to Lisbon next Friday"].object == "open"
    editor.rollback(run.run_id, user_id=user, cascade=True)
    assert intentions(store, user) == {}


def test_a_plan_closed_in_the_same_run_is_made_closed(store, user):
    writer = Writer(store)
    say(writer, user, ["I'll fix the leaky tap this weekend"], "a", T)
    say(writer, user, ["Fixed the leaky tap! no more dripping"], "b", T + timedelta(days=3))
    Editor(store, config=ON).run(user)
    assert intentions(store, user)["I'll fix the leaky tap this weekend"].object == "done"


def test_off_by_default(store, user):
    say(Writer(store), user, ["I'm flying to Lisbon next Friday"], "a", T)
    Editor(store).run(user)
    assert intentions(store, user) == {}


def test_forgetting_the_plan_forgets_its_intention(store, user):
    writer = Writer(store)
    say(writer, user, ["I'll fix the leaky tap this weekend"], "a", T)
    say(writer, user, ["Fixed the leaky tap! no more dripping"], "b", T + timedelta(days=3))
    Editor(store, config=ON).run(user)
    writer.forget(user_id=user, source_ids=["a0"])
    assert intentions(store, user) == {}
