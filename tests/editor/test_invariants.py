"""The Editor's publish invariants: a change set applied in memory, and what must hold after it."""

from __future__ import annotations

import dataclasses

from builders import Builder, at
from conftest import vec

from dualmem_core.editor import EditorConfig, GraphView, Judge, combine, run_all, run_stage
from dualmem_core.editor.invariants import INVARIANTS, apply_in_memory, check_change_set, check_graph
from dualmem_core.store import Edge, EdgeType, UserGraph
from dualmem_core.store import changes as ch
from dualmem_core.timeutil import FAR_FUTURE

USER = "u1"


def graph_of(b: Builder) -> UserGraph:
    """The builder's records as a store would export them: every version and edge stamped."""
    stamp = at(1)
    return UserGraph(
        b.user_id,
        episodes=list(b.batch.episodes),
        memories=list(b.batch.memories),
        versions=[dataclasses.replace(v, tx_from=v.tx_from or stamp) for v in b.batch.versions],
        entities=list(b.batch.entities),
        edges=[dataclasses.replace(e, tx_from=e.tx_from or stamp) for e in b.batch.edges],
    )


def moved() -> tuple[UserGraph, str, str]:
    """A user who lived in Seattle from January and in Portland from March."""
    b = Builder(USER)
    seattle, _ = b.memory("user lives in Seattle", vec(1), valid_from=at(1), subject="user",
                          predicate="lives_in", object="Seattle", episode=b.episode("I live in Seattle"))
    portland, _ = b.memory("user lives in Portland", vec(0, 1), valid_from=at(3), subject="user",
                           predicate="lives_in", object="Portland", episode=b.episode("I moved to Portland"))
    return graph_of(b), seattle.id, portland.id


def failing(found: dict) -> dict[str, list[str]]:
    return {name: [v.subject for v in vs] for name, vs in found.items() if vs}


def test_a_real_runs_change_set_keeps_every_invariant():
    graph, seattle, portland = moved()
    view = GraphView(graph)
    changes = combine(view, run_all(view, EditorConfig(), Judge(None)), "run-1")
    found = check_change_set(graph, changes)
    assert list(found) == list(INVARIANTS)
    assert failing(found) == {}
    after = apply_in_memory(graph, changes)
    [believed] = [v for v in after.versions if v.memory_id == seattle and v.tx_to == FAR_FUTURE]
    assert (believed.status, believed.valid_to) == ("superseded", at(3))
    assert any(e.type == EdgeType.SUPERSEDES and (e.src_id, e.dst_id) == (portland, seattle)
               for e in after.edges)
    assert all(v.tx_to == FAR_FUTURE for v in graph.versions), "the input graph is left as it was"


def test_a_version_added_without_closing_the_old_one_overlaps():
    graph, seattle, _ = moved()
    old = next(v for v in graph.versions if v.memory_id == seattle)
    copy = dataclasses.replace(old, id="ver_new", tx_from=None)
    changes = ch.ChangeSet(USER, "run-1", [ch.AddVersion(copy)])
    assert failing(check_change_set(graph, changes)) == {"one_belief_at_a_time": [seattle]}
    closed = ch.ChangeSet(USER, "run-1", [ch.CloseVersion(old.id), *changes.operations])
    assert failing(check_change_set(graph, closed)) == {}


def test_a_superseded_memory_needs_a_believed_successor():
    graph, seattle, portland = moved()
    old = next(v for v in graph.versions if v.memory_id == seattle)
    revise = [ch.CloseVersion(old.id),
              ch.AddVersion(dataclasses.replace(old, id="ver_new", tx_from=None, status="superseded"))]
    alone = ch.ChangeSet(USER, "run-1", revise)
    assert failing(check_change_set(graph, alone)) == {"superseded_has_successor": [seattle]}
    link = ch.AddEdge(Edge(USER, EdgeType.SUPERSEDES, portland, seattle))
    assert failing(check_change_set(graph, ch.ChangeSet(USER, "run-1", [*revise, link]))) == {}
    successor_gone = next(v for v in graph.versions if v.memory_id == portland)
    unbelieved = ch.ChangeSet(USER, "run-1", [*revise, link, ch.CloseVersion(successor_gone.id)])
    assert failing(check_change_set(graph, unbelieved)) == {"superseded_has_successor": [seattle]}


def test_an_edge_into_another_users_graph_is_refused():
    graph, seattle, _ = moved()
    other = Builder("u2")
    theirs, _ = other.memory("user lives in Oslo", vec(1))
    stray = Edge(USER, EdgeType.SIMILAR_TO, seattle, theirs.id)
    found = failing(check_change_set(graph, ch.ChangeSet(USER, "run-1", [ch.AddEdge(stray)])))
    assert found == {"edges_within_user": [stray.id]}
    foreign = Edge("u2", EdgeType.SIMILAR_TO, seattle, theirs.id)
    found = failing(check_change_set(graph, ch.ChangeSet(USER, "run-1", [ch.AddEdge(foreign)])))
    assert found == {"edges_within_user": [foreign.id, foreign.id], "changes_within_user": [foreign.id]}


def test_merge_and_duplicate_cycles_are_found():
    b = Builder(USER)
    bob, robert, rob = b.entity("Bob"), b.entity("Robert"), b.entity("Rob")
    first, _ = b.memory("a", vec(1))
    second, _ = b.memory("b", vec(1))
    graph = graph_of(b)

    def edges(type_: EdgeType, *pairs) -> list[ch.AddEdge]:
        return [ch.AddEdge(Edge(USER, type_, x.id, y.id)) for x, y in pairs]

    chain = edges(EdgeType.MERGED_INTO, (bob, robert), (rob, robert))
    assert failing(check_change_set(graph, ch.ChangeSet(USER, "run-1", chain))) == {}
    loop = edges(EdgeType.MERGED_INTO, (bob, robert), (robert, rob), (rob, bob))
    dup = edges(EdgeType.DUPLICATE_OF, (first, second), (second, first))
    found = check_change_set(graph, ch.ChangeSet(USER, "run-1", [*loop, *dup]))["no_merge_cycles"]
    expected = [min(bob.id, robert.id, rob.id), min(first.id, second.id)]
    assert sorted(v.subject for v in found) == sorted(expected)
    assert all(v.message.count("->") == 3 for v in found if "MERGED_INTO" in v.message)


def test_a_change_set_touches_only_its_users_graph():
    graph, seattle, _ = moved()
    assert failing(check_change_set(graph, ch.ChangeSet("u2", "run-1", []))) == {
        "changes_within_user": ["run-1"]}
    unknown = ch.ChangeSet(USER, "run-1", [ch.CloseVersion("ver_elsewhere"),
                                          ch.SetReviewState("mem_elsewhere", "reviewed", expected="new"),
                                          ch.RemoveCreated("edge", "edge_elsewhere", "run-0")])
    found = failing(check_change_set(graph, unknown))
    assert found == {"changes_within_user": ["ver_elsewhere", "mem_elsewhere", "edge_elsewhere"]}
    assert failing(check_change_set(graph, ch.ChangeSet(USER, "run-1", []), user_id="u2")) == {
        "changes_within_user": ["run-1", "run-1"]}


def test_violations_the_snapshot_already_had_are_marked_preexisting():
    graph, seattle, _ = moved()
    graph.versions = [dataclasses.replace(v, status="superseded") if v.memory_id == seattle else v
                      for v in graph.versions]
    assert failing(check_graph(graph)) == {"superseded_has_successor": [seattle]}
    [old] = check_change_set(graph, ch.ChangeSet(USER, "run-1", []))["superseded_has_successor"]
    assert old.preexisting
    view = GraphView(graph)
    rescored = combine(view, [run_stage("confidence", view, [], EditorConfig(), Judge(None))], "run-1")
    added = [op.version.memory_id for op in rescored.operations if isinstance(op, ch.AddVersion)]
    assert seattle in added
    [still] = check_change_set(graph, rescored)["superseded_has_successor"]
    assert still.preexisting, "rewriting the memory does not make its old problem the run's"
    stray = Edge(USER, EdgeType.SIMILAR_TO, seattle, "mem_nowhere")
    found = check_change_set(graph, ch.ChangeSet(USER, "run-1", [ch.AddEdge(stray)]))
    assert [v.preexisting for v in found["edges_within_user"]] == [False]


def test_undo_operations_restore_the_graph_in_memory():
    graph, seattle, portland = moved()
    view = GraphView(graph)
    changes = combine(view, run_all(view, EditorConfig(), Judge(None)), "run-1")
    after = apply_in_memory(graph, changes, at(4))
    undo = []
    for op in changes.operations:
        if isinstance(op, ch.AddVersion | ch.AddEdge):
            kind, record = ("version", op.version) if isinstance(op, ch.AddVersion) else ("edge", op.edge)
            undo.append(ch.RemoveCreated(kind, record.id, "run-1"))
        elif isinstance(op, ch.CloseVersion):
            undo.append(ch.ReopenVersion(op.version_id, at(4)))
        elif isinstance(op, ch.SetReviewState):
            undo.append(ch.SetReviewState(op.memory_id, op.expected, expected=op.state))
    restored = apply_in_memory(after, ch.ChangeSet(USER, "rollback-run-1", undo))

    def state(g: UserGraph) -> tuple:
        return (sorted((v.id, v.status, v.valid_to, v.tx_to) for v in g.versions),
                sorted((e.id, e.tx_to) for e in g.edges), sorted((m.id, m.review_state) for m in g.memories))

    assert state(restored) == state(graph) != state(after)
