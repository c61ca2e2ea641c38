"""Session summaries (``editor/summaries.py``) on both stores: one per session, made of its turns,
incremental, undone by rollback, and followed by recall to the turns they were made of."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from dualmem_core import Editor, Writer
from dualmem_core.store import EdgeType

T = datetime(2026, 1, 5, 12, tzinfo=UTC)
VET = ["Took Biscuit the puppy to the vet for his checkup.", "All good, nothing to worry about.",
       "The vet checkup for the puppy was quick.", "Then coffee with Lena downtown.",
       "Biscuit slept the whole afternoon after the vet."]
WORK = ["Work has been busy at Brightline lately.", "My manager Tom wants the report by Friday.",
        "I stayed late three nights this week.", "The report is finally done.",
        "Friday drinks with the team were fun."]


def say(writer, user, session, texts, prefix, at):
    writer.remember([{"role": "user", "content": t, "speaker": "Ana", "source_id": f"{prefix}{i}", "at": at}
                     for i, t in enumerate(texts)], user_id=user, session_id=session)


def summaries(store, user):
    g = store.export_graph(user)
    return {m.session_id: m for m in g.memories if m.kind == "summary"}


def test_one_summary_per_session_made_of_its_turns(store, user):
    writer = Writer(store)
    say(writer, user, "s1", VET, "a", T)
    say(writer, user, "s2", WORK, "b", T + timedelta(days=3))
    editor = Editor(store)
    run = editor.run(user)
    assert run.counts["summaries"] == {"summarise": 2} and not run.skipped
    made = summaries(store, user)
    assert set(made) == {"s1", "s2"} and all(m.created_by == run.run_id for m in made.values())
    sources = store.sources_of(user, [m.id for m in made.values()])
    assert set(sources[made["s1"].id]) <= {f"a{i}" for i in range(5)}
    assert set(sources[made["s2"].id]) <= {f"b{i}" for i in range(5)}
    assert 3 <= len(sources[made["s1"].id]) <= 5
    [version] = store.get_versions(user, [made["s2"].id])
    assert version.valid_from == T + timedelta(days=3) and version.text.startswith("Ana: ")
    assert all(line.removeprefix("Ana: ") in WORK for line in version.text.splitlines())
    mentioned = store.get_edges(user, node_ids=[made["s2"].id], types=[EdgeType.MENTIONS])
    assert mentioned, "the people of the session"

    again = editor.run(user)
    assert again.counts["summaries"] == {} and summaries(store, user) == made  # nothing new: none added

    say(writer, user, "s3", ["Booked flights to Lisbon.", "Lena is coming too.", "We fly in May."], "c",
        T + timedelta(days=9))
    third = editor.run(user)
    assert third.counts["summaries"] == {"summarise": 1} and set(summaries(store, user)) == {"s1", "s2", "s3"}


def test_a_grown_session_gets_its_summary_remade(store, user):
    writer = Writer(store)
    say(writer, user, "s1", VET[:3], "a", T)
    editor = Editor(store)
    editor.run(user)
    [before] = summaries(store, user).values()
    say(writer, user, "s1", VET[3:], "a3-", T + timedelta(hours=2))
    run = editor.run(user)
    assert run.counts["summaries"] == {"resummarise": 1}
    [after] = summaries(store, user).values()
    assert after.id == before.id and len(store.sources_of(user, [after.id])[after.id]) >= 3


def test_rollback_removes_the_summaries(store, user):
    writer = Writer(store)
    say(writer, user, "s1", VET, "a", T)
    editor = Editor(store)
    run = editor.run(user)
    assert summaries(store, user)
    editor.rollback(run.run_id)
    assert summaries(store, user) == {}


def test_recall_reaches_a_turn_through_its_summary(store, user):
    """"All good, nothing to worry about" answers the question in none of its words; the session's
    summary, which it is part of, matches, and lifts it."""
    writer = Writer(store)
    say(writer, user, "s1", VET, "a", T)
    say(writer, user, "s2", WORK, "b", T + timedelta(days=3))
    question = "What did the vet say at the puppy's checkup?"

    def scores():
        return {h.sources[0]: h.score for h in writer.recall(question, user_id=user, k=6, record_access=False)
                if h.kind == "observation"}

    before = scores()
    Editor(store).run(user)
    after = scores()
    hits = writer.recall(question, user_id=user, k=6, record_access=False)
    [summary] = [h for h in hits if h.kind == "summary"]
    assert "a1" in summary.sources
    assert after["a1"] > 1.1 * before["a1"]  # lifted through the summary (so is a3, its other source)
