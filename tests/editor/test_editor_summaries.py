"""Session summaries (``editor/summaries.py``) on both stores: one per session, made of its turns,
incremental, undone by rollback, and followed by recall to the turns they were made of."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from dualmem_core import Editor, Writer
from dualmem_core.editor import EditorConfig
from dualmem_core.store import EdgeType

T = datetime(2026, 1, 5, 12, tzinfo=UTC)
SHORT = EditorConfig(summaries=True, summary_min_turns=3)  # the sessions here are short
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
    editor = Editor(store, config=SHORT)
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
    [work] = [d for d in run.stages[4].decisions if d.subject == made["s2"].id]
    assert run.stages[4].stage == "summaries" and work.evidence["people"] >= 1  # Tom, Brightline
    # No MENTIONS: it would say each of its source turns names everyone the session names.
    assert not store.get_edges(user, node_ids=[made["s2"].id], types=[EdgeType.MENTIONS])

    again = editor.run(user)
    assert again.counts["summaries"] == {} and summaries(store, user) == made  # nothing new: none added

    say(writer, user, "s3", ["Booked flights to Lisbon.", "Lena is coming too.", "We fly in May."], "c",
        T + timedelta(days=9))
    third = editor.run(user)
    assert third.counts["summaries"] == {"summarise": 1} and set(summaries(store, user)) == {"s1", "s2", "s3"}


def test_a_grown_session_gets_its_summary_remade(store, user):
    writer = Writer(store)
    say(writer, user, "s1", VET[:3], "a", T)
    editor = Editor(store, config=SHORT)
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
    editor = Editor(store, config=SHORT)
    run = editor.run(user)
    assert summaries(store, user)
    editor.rollback(run.run_id)
    assert summaries(store, user) == {}


FILLER = [[f"{town} had {weather} weather on day {i} of the {event} festival." for i in range(6)]
          for town, weather, event in (("Leeds", "rainy", "jazz"), ("Bristol", "windy", "film"),
                                       ("Oslo", "snowy", "book"), ("Lyon", "sunny", "food"),
                                       ("Porto", "foggy", "wine"))]


VISIT = ["Took Biscuit the puppy to the vet for his checkup.", "The vet checkup for the puppy was quick.",
         "Then coffee with Lena downtown.", "She showed me photos of her new flat.",
         "Anyway, all good, nothing to worry about."]


def test_recall_reaches_a_turn_through_its_summary(store, user):
    """"All good, nothing to worry about", two turns after the checkup, answers the question in
    none of its words, and among
    forty memories no search list finds it; the session's summary, made of it, does, and recall
    follows the summary to it. The summary itself is a way, not a hit."""
    writer = Writer(store)
    say(writer, user, "s1", VISIT, "a", T)
    for n, turns in enumerate(FILLER):
        say(writer, user, f"f{n}", turns, f"f{n}-", T + timedelta(days=n + 1))
    question = "What did the vet say at the puppy's checkup?"

    def found():
        hits = writer.recall(question, user_id=user, k=5, record_access=False)
        assert all(h.kind != "summary" for h in hits)
        return {s for h in hits for s in h.sources}

    assert "a4" not in found()
    Editor(store, config=SHORT).run(user)
    assert "a4" in found()


def test_a_session_no_longer_than_a_summary_gets_none(store, user):
    say(Writer(store), user, "s1", VET, "a", T)
    run = Editor(store).run(user)  # the default: at least six turns
    assert run.counts["summaries"] == {} and summaries(store, user) == {}
