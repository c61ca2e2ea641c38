"""Isolation between users, as a property: whatever A and B write (identical texts included),
nothing of A's reaches B's recall, export (the snapshot), Editor decisions and journal, entity
merges, rollback or forget receipts; and B's operations leave A's graph exactly as it was.

The store enforces it, not the callers: B's reads and forgets given A's ids find nothing.
Hypothesis on SQLite (a fresh pair of users per example); fixed examples on both stores.
"""

from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_reliability_processes import fingerprint

from dualmem_core import Editor, NotFound, Writer, open_store
from dualmem_core.store import SearchFilter

T0 = datetime(2025, 2, 1, tzinfo=UTC)
NAMES = ["Lena", "Marco", "Sarah", "Sarah Chen", "Omar", "Acme", "Boston", "Porto", "Denver"]
TEMPLATES = ["I live in {p}.", "I moved to {p} last month.", "My sister {n} lives in {p}.",
             "I work at {n}.", "{n} and I had ramen in {p}.", "I love {n}.", "I met {n} in {p} yesterday."]
sentence = st.builds(lambda t, n, p: t.format(n=n, p=p), st.sampled_from(TEMPLATES),
                     st.sampled_from(NAMES), st.sampled_from(NAMES))
free_text = st.text(st.characters(codec="utf-8", categories=("L", "N", "P", "Zs")), min_size=1,
                    max_size=60).filter(lambda s: s.strip())
texts = st.lists(st.one_of(sentence, sentence, free_text), min_size=1, max_size=6)


def ids_of(graph) -> set[str]:
    return {r.id for table in ("episodes", "memories", "versions", "entities", "edges")
            for r in getattr(graph, table)}


def remember_all(writer: Writer, user: str, items: list[str], prefix: str) -> None:
    writer.remember([{"role": "user", "content": t, "source_id": f"{prefix}{i}", "at": T0 + timedelta(days=i)}
                     for i, t in enumerate(items)], user_id=user)


def check_isolation(store, a_texts: list[str], b_texts: list[str]) -> None:
    a, b = f"a-{uuid.uuid4().hex[:8]}", f"b-{uuid.uuid4().hex[:8]}"
    writer, editor = Writer(store), Editor(store)
    remember_all(writer, a, a_texts, "s")
    remember_all(writer, b, b_texts, "s")  # the same source ids as A's, on purpose
    a_graph = store.export_graph(a)
    a_ids, b_ids = ids_of(a_graph), ids_of(store.export_graph(b))
    assert a_ids and b_ids and not a_ids & b_ids
    a_before = fingerprint(a_graph)
    a_memories = [m.id for m in a_graph.memories]

    def assert_nothing_of_a(found: object, where: str) -> None:
        text = json.dumps(found, default=str)
        leaked = sorted(i for i in a_ids if i in text)
        assert not leaked, f"A's ids in B's {where}: {leaked[:5]}"

    # Recall: B asks with each of A's texts.
    for query in a_texts:
        hits = writer.recall(query, user_id=b, k=10)
        assert_nothing_of_a([(h.memory_id, h.version_id, h.sources) for h in hits], "recall")
    b_export = store.export_graph(b)
    assert_nothing_of_a([ids_of(b_export), [e.src_id for e in b_export.edges],
                         [e.dst_id for e in b_export.edges]], "export")

    # The store refuses to cross users whatever ids it is handed.
    assert store.get_memories(b, a_memories) == []
    assert store.get_episodes(b, [e.id for e in a_graph.episodes]) == []
    assert store.get_versions(b, a_memories, all_versions=True) == []
    assert store.get_edges(b, node_ids=list(a_ids)) == []
    assert store.episodes_by_source(b, ["s0"]) != [] and all(
        e.user_id == b for e in store.episodes_by_source(b, ["s0"]))
    assert_nothing_of_a(store.text_search(a_texts[0], SearchFilter(user_id=b), k=20) if
                        a_texts[0].strip() else [], "text search")

    # The Editor on B: decisions, merges, journal; then its rollback.
    run = editor.run(b)
    decided = [(d.subject, d.target, d.evidence, repr(d.ops)) for s in run.stages for d in s.decisions]
    assert_nothing_of_a(decided, "Editor decisions")
    if run.applied_at is not None:
        assert_nothing_of_a(store.get_run(b, run.run_id).journal, "run journal")
        undone = editor.rollback(run.run_id, user_id=b)
        assert_nothing_of_a([undone.skipped, store.get_run(b, undone.run_id).journal], "rollback")
        with pytest.raises(NotFound):
            editor.rollback(run.run_id, user_id=a)

    # Forget: B forgetting A's ids deletes nothing; B forgetting its own touches nothing of A's.
    crossed = store.forget(b, episode_ids=[e.id for e in a_graph.episodes], memory_ids=a_memories)
    assert not crossed.deleted_ids and crossed.versions == 0 and crossed.edges == 0
    receipt = writer.forget(user_id=b, source_ids=["s0"])
    assert receipt.episode_ids and not receipt.deleted_ids & a_ids

    assert fingerprint(store.export_graph(a)) == a_before, "B's operations changed A's graph"
    store.delete_user(b)
    assert fingerprint(store.export_graph(a)) == a_before
    store.delete_user(a)


@pytest.fixture(scope="module")
def shared_sqlite(tmp_path_factory):
    store = open_store(f"sqlite:///{tmp_path_factory.mktemp('iso') / 'memory.db'}", dimension=384)
    yield store
    store.close()


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(a_texts=texts, b_texts=texts, shared=st.lists(sentence, max_size=3))
def test_whatever_two_users_write_neither_sees_the_other(shared_sqlite, a_texts, b_texts, shared):
    check_isolation(shared_sqlite, a_texts + shared, shared + b_texts)


FIXED = [
    (["I live in Boston.", "My sister Lena lives in Denver.", "I work at Acme."],
     ["I live in Boston.", "My sister Lena lives in Denver.", "I moved to Porto last month."]),
    (["Sarah Chen is my manager.", "I love ramen.", "I moved to Porto last month."],
     ["My sister Sarah called.", "I love ramen.", "I love ramen!", "I live in Porto."]),
]


@pytest.mark.parametrize("a_texts,b_texts", FIXED)
def test_two_users_with_overlapping_lives_stay_apart_on_both_stores(store, a_texts, b_texts):
    check_isolation(store, a_texts, b_texts)
