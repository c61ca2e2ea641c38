"""Forget on both backends: a real delete of episodes, what came only from them, and their traces."""

from __future__ import annotations

import pytest
from builders import Builder, at
from conftest import vec

from dualmem_core import InvalidInput
from dualmem_core.store import EdgeType, SearchFilter
from dualmem_core.store import changes as ch

SECRET = "Zorbulax"  # a word that appears nowhere else, so any trace of it is a leak


def _conversation(user):
    b = Builder(user)
    secret = b.episode(f"My therapist is Dr {SECRET} in Lyon.", at(2), source_id="msg-secret")
    public = b.episode("I live in Lyon and love cycling.", at(3), source_id="msg-public")
    only_secret, _ = b.memory(f"user sees therapist Dr {SECRET}", vec(1, 0), episode=secret)
    shared, _ = b.memory("user lives in Lyon", vec(0, 1), episode=secret)
    b.edge(EdgeType.FROM, shared.id, public.id)
    doctor = b.entity(f"Dr {SECRET}")
    lyon = b.entity("Lyon", "place")
    b.edge(EdgeType.MENTIONS, only_secret.id, doctor.id)
    b.edge(EdgeType.MENTIONS, only_secret.id, lyon.id)
    b.edge(EdgeType.MENTIONS, shared.id, lyon.id)
    b.edge(EdgeType.SIMILAR_TO, shared.id, only_secret.id, props={"score": 0.4})
    return b, secret, public, only_secret, shared, doctor, lyon


def _holds_secret(store, user) -> bool:
    graph = store.export_graph(user)
    text = repr(graph) + repr([store.get_run(user, r.run_id) for r in store.list_runs(user)])
    return SECRET in text


def test_forget_by_source_id_deletes_what_came_only_from_it(store, user):
    b, secret, public, only_secret, shared, doctor, lyon = _conversation(user)
    store.write(b.batch)
    store.apply_changes(ch.ChangeSet(user, "run-1", [ch.SetReviewState(only_secret.id, "reviewed", "new")]))
    receipt = store.forget(user, source_ids=["msg-secret"])
    assert receipt.episode_ids == [secret.id]
    assert receipt.memory_ids == [only_secret.id]
    assert receipt.entity_ids == [doctor.id]
    assert receipt.kept_memory_ids == [shared.id]
    assert receipt.versions == 1 and receipt.edges == 5  # 2 FROM, 2 MENTIONS, 1 SIMILAR_TO
    assert store.get_memories(user, [only_secret.id]) == []
    assert store.get_episodes(user, [secret.id, public.id])[0].id == public.id
    [kept_from] = store.get_edges(user, node_ids=[shared.id], types=[EdgeType.FROM])
    assert kept_from.dst_id == public.id  # the shared memory lost only the forgotten provenance
    assert store.text_search(SECRET, SearchFilter(user), 5) == []
    assert [h.memory.id for h in store.vector_search(vec(1, 0), SearchFilter(user), 5)] == [shared.id]
    assert store.get_run(user, "run-1").journal == []  # the journal forgot the deleted id
    assert not _holds_secret(store, user)


def test_forget_memory_and_nothing(store, user):
    b, _, _, only_secret, shared, _, _ = _conversation(user)
    store.write(b.batch)
    assert store.forget(user).memory_ids == []
    receipt = store.forget(user, memory_ids=[shared.id, "mem_unknown"])
    assert receipt.memory_ids == [shared.id] and receipt.episode_ids == []
    assert store.counts(user)["memories"] == 1
    with pytest.raises(InvalidInput):
        store.forget(user, source_ids="msg-secret")


def test_forget_leaves_other_users_alone(store, user, other_user):
    mine, *_ = _conversation(user)
    theirs, *_ = _conversation(other_user)
    store.write(mine.batch)
    store.write(theirs.batch)
    receipt = store.forget(other_user, source_ids=["msg-secret", "msg-public"])
    assert len(receipt.episode_ids) == 2
    assert store.counts(user)["episodes"] == 2 and _holds_secret(store, user)
    assert not _holds_secret(store, other_user)


def test_sqlite_forget_leaves_no_bytes_in_the_files(tmp_path, user):
    from conftest import DIM

    from dualmem_core import open_store

    path = tmp_path / "memory.db"
    with open_store(f"sqlite:///{path}", dimension=DIM) as store:
        b, *_ = _conversation(user)
        store.write(b.batch)

        def files():
            return [p for p in tmp_path.iterdir() if p.name.startswith("memory.db")]

        assert any(SECRET.encode() in p.read_bytes() for p in files())  # the scan can see it
        store.forget(user, source_ids=["msg-secret"])
        assert files() and all(SECRET.encode() not in p.read_bytes() for p in files())
