"""Publish, rollback and idempotency on both stores, with the Writer writing in between."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from dualmem_core import ConflictError, Editor, InvalidInput, NotFound, Writer
from dualmem_core.editor import EditorConfig, GraphView, Judge, new_run_id, run_all
from dualmem_core.store import EdgeType
from dualmem_core.timeutil import FAR_FUTURE

T = datetime(2026, 1, 5, 12, tzinfo=UTC)


def tell(writer, user, *texts, start=0):
    for i, text in enumerate(texts, start):
        writer.remember(
            text, user_id=user, session_id=f"s{i % 2}", at=T + timedelta(days=30 * i), source_id=f"m{i}"
        )


def fingerprint(store, user):
    """What a run may change: versions with their intervals and status, open edges, review states."""
    g = store.export_graph(user)
    return (
        sorted((v.id, v.status, v.valid_to, v.tx_to) for v in g.versions),
        sorted((e.id, e.type, e.src_id, e.dst_id) for e in g.edges if e.tx_to == FAR_FUTURE),
        sorted((m.id, m.review_state) for m in g.memories),
    )


def test_a_run_publishes_once_and_a_rerun_is_empty(store, user):
    writer = Writer(store)
    tell(writer, user, "I live in Seattle.", "I moved to Portland last week.", "I love hiking.")
    editor = Editor(store)
    run = editor.run(user)
    assert run.counts["supersede"] == {"supersede": 1} and run.operations > 0 and not run.skipped
    assert editor.run(user).operations == 0  # nothing new: a fixpoint
    [hit] = [
        h
        for h in writer.recall("Where does the user live?", user_id=user, k=5)
        if "Seattle" in h.text and h.kind == "fact"
    ]
    assert not hit.current and hit.valid_to < FAR_FUTURE
    [record] = editor.runs(user)
    assert (record.run_id, record.counts, record.operations) == (run.run_id, run.counts, run.operations)


def test_publish_applies_the_change_set_it_is_given(store, user):
    """The pipeline's publish hands over the change set its checks examined: that one is applied,
    as it is, and one of another run or user is refused."""
    from dualmem_core.editor import combine
    from dualmem_core.store import changes as ch

    tell(Writer(store), user, "I live in Seattle.", "I moved to Denver.")
    editor, view = Editor(store), GraphView(store.export_graph(user))
    results, run_id = run_all(view, EditorConfig(), Judge(None)), new_run_id()
    examined = combine(view, results, run_id)
    assert examined.operations
    with pytest.raises(InvalidInput, match="not run"):
        editor.publish(view, results, run_id, changes=ch.ChangeSet(user, new_run_id(), examined.operations))
    before = fingerprint(store, user)
    kept_back = editor.publish(view, results, run_id, changes=ch.ChangeSet(user, run_id, []))
    assert kept_back.operations == 0 and fingerprint(store, user) == before
    other = new_run_id()
    run = editor.publish(view, results, other, changes=combine(view, results, other))
    assert run.operations == len(examined.operations) and fingerprint(store, user) != before


def test_publishing_the_same_run_twice_applies_it_once(store, user):
    tell(Writer(store), user, "I live in Seattle.", "I moved to Denver.")
    editor, view = Editor(store), GraphView(store.export_graph(user))
    results, run_id = run_all(view, EditorConfig(), Judge(None)), new_run_id()
    first = editor.publish(view, results, run_id)
    after = fingerprint(store, user)
    again = editor.publish(view, results, run_id)
    assert again.applied_at == first.applied_at and fingerprint(store, user) == after


def test_rollback_restores_the_graph_and_keeps_the_writers_new_memories(store, user):
    writer = Writer(store)
    tell(
        writer, user, "I live in Seattle.", "I work at Acme.", "I moved to Portland.", "I work at Globex now."
    )
    before = fingerprint(store, user)
    editor = Editor(store)
    run = editor.run(user)
    assert fingerprint(store, user) != before
    added = writer.remember("I adopted a cat named Milo.", user_id=user, at=T + timedelta(days=400))
    undo = editor.rollback(run.run_id)
    assert undo.kind == "rollback" and undo.rollback_of == run.run_id and not undo.skipped
    now = fingerprint(store, user)
    new_ids = set(added.memory_ids)
    assert [
        v for v in now[0] if not any(v[0] == x.id for x in store.get_versions(user, list(new_ids)))
    ] == before[0]
    assert {m for m, _ in now[2]} - {m for m, _ in before[2]} == new_ids
    assert editor.rollback(run.run_id).run_id == undo.run_id  # twice is once
    assert [r.kind for r in editor.runs(user)] == ["edit", "rollback"]


def test_rollback_refuses_when_a_later_run_touched_the_same_memories(store, user):
    writer = Writer(store)
    tell(writer, user, "I live in Seattle.", "I moved to Portland.")
    editor = Editor(store)
    first = editor.run(user)
    tell(writer, user, "I moved to Denver.", start=5)
    second = editor.run(user)
    with pytest.raises(ConflictError, match=second.run_id):
        editor.rollback(first.run_id)
    editor.rollback(first.run_id, cascade=True)
    rolled = {r.rollback_of for r in editor.runs(user) if r.kind == "rollback"}
    assert rolled == {first.run_id, second.run_id}
    assert all(v.status == "active" for v in store.export_graph(user).versions if v.tx_to == FAR_FUTURE)


def test_the_editor_skips_what_the_writer_forgot_after_the_snapshot(store, user):
    writer = Writer(store)
    tell(writer, user, "I live in Seattle.", "I moved to Portland.")
    editor, view = Editor(store), GraphView(store.export_graph(user))
    results = run_all(view, EditorConfig(), Judge(None))
    writer.forget(user_id=user, source_ids=["m0"])  # Seattle goes while the Editor decides
    run = editor.publish(view, results, new_run_id())
    assert run.skipped and all("does not exist" in s["reason"] for s in run.skipped)
    versions = store.export_graph(user).versions
    assert not [v for v in versions if "Seattle" in v.text]


def test_bad_rollback_requests_say_what_is_wrong(store, user):
    editor = Editor(store)
    with pytest.raises(NotFound, match="no Editor run"):
        editor.rollback("run-that-never-was")
    tell(Writer(store), user, "I live in Seattle.", "I moved to Portland.")
    run = editor.run(user)
    undo = editor.rollback(run.run_id, user_id=user)
    with pytest.raises(InvalidInput, match="itself a rollback"):
        editor.rollback(undo.run_id, user_id=user)


def test_duplicates_stop_ranking_as_separate_memories(store, user):
    writer = Writer(store)
    writer.remember(
        "My favourite band is Radiohead and I saw them live in 2019", user_id=user, at=T, session_id="a"
    )
    writer.remember(
        "My favourite band is Radiohead, and I saw them live in 2019!",
        user_id=user,
        at=T + timedelta(days=3),
        session_id="b",
    )
    Editor(store).run(user)
    duplicates = store.get_edges(user, types=[EdgeType.DUPLICATE_OF])
    assert len(duplicates) == 1
    hits = writer.recall("Radiohead live 2019", user_id=user, k=5)
    assert duplicates[0].src_id not in {h.memory_id for h in hits}
    assert duplicates[0].dst_id in {h.memory_id for h in hits}


def test_moving_back_is_news_not_a_duplicate(store, user):
    writer, editor = Writer(store), Editor(store)
    writer.remember("I live in Seattle.", user_id=user, at=T)
    writer.remember("I moved to Portland.", user_id=user, at=T + timedelta(days=60))
    editor.run(user)
    back = writer.remember("I live in Seattle.", user_id=user, at=T + timedelta(days=200))
    assert back.fact_ids  # the fact is new; the repeated message itself re-sources its observation
    editor.run(user)
    profile = writer.profile(user)
    assert profile["lives_in"].value == "Seattle" and profile["lives_in"].memory_id in back.fact_ids


def test_forgetting_the_newer_fact_restores_the_older_one(store, user):
    writer, editor = Writer(store), Editor(store)
    tell(writer, user, "I live in Seattle.", "I moved to Portland.")
    editor.run(user)
    assert writer.profile(user)["lives_in"].value == "Portland"
    writer.forget(user_id=user, source_ids=["m1"])
    run = editor.run(user)
    assert run.counts["supersede"] == {"restore": 1}
    assert writer.profile(user)["lives_in"].value == "Seattle"
