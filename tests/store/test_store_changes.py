"""Change sets on both backends: guards, skip mode, atomicity, idempotency, journals, tenants."""

from __future__ import annotations

import pytest
from builders import T0, Builder, at
from conftest import vec

from dualmem_core import ConflictError, NotFound, TenantViolation
from dualmem_core.store import EdgeType, SearchFilter
from dualmem_core.store import changes as ch
from dualmem_core.store.models import Edge, Memory, MemoryVersion
from dualmem_core.timeutil import FAR_FUTURE


def _two_facts(store, user):
    b = Builder(user)
    old_mem, old = b.memory("lives in Seattle", vec(1, 0), valid_from=at(1))
    new_mem, new = b.memory("lives in Portland", vec(1, 0.2), valid_from=at(3))
    store.write(b.batch)
    return old_mem, old, new_mem, new


def _supersede(user, run_id, old_mem, old, new_mem, group=None):
    closed = MemoryVersion(memory_id=old_mem.id, user_id=user, text=old.text, embedding=old.embedding,
                           valid_from=old.valid_from, valid_to=at(3), status="superseded",
                           created_by=run_id)
    return [ch.CloseVersion(old.id, group=group), ch.AddVersion(closed, group=group),
            ch.AddEdge(Edge(user_id=user, type=EdgeType.SUPERSEDES, src_id=new_mem.id,
                            dst_id=old_mem.id, created_by=run_id), group=group)]


def test_supersession_keeps_history_and_journals_the_run(store, user):
    old_mem, old, new_mem, _ = _two_facts(store, user)
    ops = _supersede(user, "run-a", old_mem, old, new_mem)
    receipt = store.apply_changes(ch.ChangeSet(user, "run-a", ops, meta={"stages": {"supersede": 1}}))
    assert (receipt.applied, receipt.skipped, receipt.already_applied) == (3, [], False)
    versions = store.get_versions(user, [old_mem.id], all_versions=True)
    assert [(v.status, v.valid_to == FAR_FUTURE, v.tx_to == FAR_FUTURE) for v in versions] == [
        ("active", True, False), ("superseded", False, True)]
    assert versions[0].tx_to == versions[1].tx_from == receipt.applied_at
    [edge] = store.get_edges(user, types=[EdgeType.SUPERSEDES])
    assert (edge.src_id, edge.dst_id, edge.created_by) == (new_mem.id, old_mem.id, "run-a")
    run = store.get_run(user, "run-a")
    assert [e["op"] for e in run.journal] == ["AddVersion", "AddEdge", "CloseVersion"]
    assert run.journal[2]["id"] == old.id and run.journal[2]["closed_at"] == receipt.applied_at.isoformat()
    assert [r.run_id for r in store.list_runs(user)] == ["run-a"]
    assert run.meta == {"stages": {"supersede": 1}}


def test_same_run_applies_once(store, user):
    old_mem, old, new_mem, _ = _two_facts(store, user)
    ops = _supersede(user, "run-b", old_mem, old, new_mem)
    first = store.apply_changes(ch.ChangeSet(user, "run-b", ops))
    counts = store.counts(user)
    again = store.apply_changes(ch.ChangeSet(user, "run-b", ops))
    assert again.already_applied and again.applied == 0 and again.applied_at == first.applied_at
    assert store.counts(user) == counts


def test_failed_guard_raises_and_applies_nothing(store, user):
    old_mem, old, new_mem, _ = _two_facts(store, user)
    store.apply_changes(ch.ChangeSet(user, "run-1", [ch.CloseVersion(old.id)]))
    before = store.counts(user)
    with pytest.raises(ConflictError, match="already closed"):
        store.apply_changes(ch.ChangeSet(user, "run-2", _supersede(user, "run-2", old_mem, old, new_mem)))
    assert store.counts(user) == before
    with pytest.raises(NotFound):
        store.get_run(user, "run-2")


def test_skip_mode_drops_whole_groups_and_reports_them(store, user):
    old_mem, old, new_mem, new = _two_facts(store, user)
    store.apply_changes(ch.ChangeSet(user, "writer-moved-first", [ch.CloseVersion(new.id)]))
    ops = [*_supersede(user, "run-s", old_mem, old, new_mem, group="supersede"),
           ch.CloseVersion(new.id, group="stale"),  # already closed: its group is skipped
           ch.SetReviewState(new_mem.id, "reviewed", expected="new", group="stale"),
           ch.SetReviewState(old_mem.id, "reviewed", expected="new", group="review")]
    receipt = store.apply_changes(ch.ChangeSet(user, "run-s", ops), on_conflict="skip")
    assert receipt.applied == 4
    assert [(s.index, s.group) for s in receipt.skipped] == [(3, "stale"), (4, "stale")]
    assert "already closed" in receipt.skipped[0].reason
    [untouched] = store.get_memories(user, [new_mem.id])
    assert untouched.review_state == "new"
    assert store.get_memories(user, [old_mem.id])[0].review_state == "reviewed"
    assert len(store.get_run(user, "run-s").skipped) == 2


def test_undo_operations_restore_the_graph(store, user):
    old_mem, old, new_mem, _ = _two_facts(store, user)
    before = store.export_graph(user)
    ops = _supersede(user, "run-u", old_mem, old, new_mem)
    receipt = store.apply_changes(ch.ChangeSet(user, "run-u", ops))
    undo = [ch.RemoveCreated("edge", ops[2].edge.id, "run-u"),
            ch.RemoveCreated("version", ops[1].version.id, "run-u"),
            ch.ReopenVersion(old.id, closed_at=receipt.applied_at)]
    store.apply_changes(ch.ChangeSet(user, "undo-run-u", undo))
    after = store.export_graph(user)
    assert [(v.id, v.tx_to) for v in after.versions] == [(v.id, v.tx_to) for v in before.versions]
    assert after.edges == before.edges
    with pytest.raises(ConflictError, match="made by"):
        store.apply_changes(ch.ChangeSet(user, "bad-undo", [ch.RemoveCreated("memory", old_mem.id, "run-u")]))


def test_new_memories_and_entities_in_one_change_set(store, user):
    mem = Memory(user_id=user, created_by="run-n")
    ver = MemoryVersion(memory_id=mem.id, user_id=user, text="merged fact", valid_from=T0,
                        embedding=vec(0, 0, 1), created_by="run-n")
    store.apply_changes(ch.ChangeSet(user, "run-n", [ch.AddVersion(ver), ch.AddMemory(mem)]))
    assert [h.memory.id for h in store.vector_search(vec(0, 0, 1), SearchFilter(user), 1)] == [mem.id]


def test_change_sets_cannot_cross_tenants(store, user, other_user):
    old_mem, old, _, _ = _two_facts(store, user)
    before = store.counts(user)
    with pytest.raises(TenantViolation):
        store.apply_changes(ch.ChangeSet(other_user, "run-x", [ch.CloseVersion(old.id)]))
    with pytest.raises(TenantViolation):
        store.apply_changes(ch.ChangeSet(other_user, "run-y", [ch.AddEdge(Edge(
            user_id=user, type=EdgeType.SIMILAR_TO, src_id=old_mem.id, dst_id=old_mem.id))]))
    stranger = Builder(other_user)
    mine, _ = stranger.memory("mine", vec(1))
    store.write(stranger.batch)
    with pytest.raises(TenantViolation, match="another user"):
        store.apply_changes(ch.ChangeSet(other_user, "run-z", [ch.AddEdge(Edge(
            user_id=other_user, type=EdgeType.SIMILAR_TO, src_id=mine.id, dst_id=old_mem.id))]))
    assert store.counts(user) == before and store.counts(other_user)["runs"] == 0
