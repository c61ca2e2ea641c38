"""dualmem as LangGraph's store (``dualmem_core.integrations.langgraph.DualmemStore``).

The same calls on LangGraph's own ``InMemoryStore`` and on a ``DualmemStore`` over each backend
(the embedded store and Neo4j) give the same items, keys and namespaces (where only dualmem ranks,
as sets); a compiled graph whose node puts a memory in one run finds it with ``search`` in a run on
another thread; the async path (``abatch``) does the same. Skipped without the ``langgraph`` extra.
"""

from __future__ import annotations

import asyncio
import importlib
import sys
from typing import Any, TypedDict

import pytest

pytest.importorskip("langgraph.store.memory")

from langgraph.checkpoint.memory import InMemorySaver  # noqa: E402
from langgraph.graph import END, START, StateGraph  # noqa: E402
from langgraph.store.base import (  # noqa: E402
    BaseStore,
    GetOp,
    ListNamespacesOp,
    MatchCondition,
    PutOp,
    SearchOp,
)
from langgraph.store.memory import InMemoryStore  # noqa: E402

from dualmem_core.errors import InvalidInput, MissingExtra  # noqa: E402
from dualmem_core.integrations.langgraph import DualmemStore  # noqa: E402


def opened(url: str, **options: Any) -> DualmemStore:
    """A DualmemStore on an empty store. LangGraph's ids are the caller's ("u1"), and listing
    every namespace must see only this test's: on the session's shared Neo4j, every user the
    earlier tests left is deleted first (each test makes its own users; none outlives it)."""
    store = DualmemStore.open(url, **options)
    for user in store.store.list_users():
        store.store.delete_user(user)
    return store


@pytest.fixture
def dualmem(store_url: str):
    with opened(store_url) as store:
        yield store


def items(found: list) -> list[tuple[tuple[str, ...], str, dict[str, Any]]]:
    return [(i.namespace, i.key, i.value) for i in found]


def as_set(found: list) -> set[tuple[tuple[str, ...], str, str]]:
    return {(i.namespace, i.key, repr(sorted(i.value.items()))) for i in found}


def script(store: BaseStore) -> list[Any]:
    """One sequence of calls; what each returns, in a form both stores can be compared in."""
    out: list[Any] = []
    home, prefs, work = ("u1", "memories"), ("u1", "prefs"), ("u1", "memories", "work")
    store.put(home, "home", {"text": "I live in Lisbon", "kind": "place", "since": 2019})
    store.put(home, "tea", {"content": "I love green tea", "kind": "taste", "cups": 3})
    store.put(home, "json", {"data": {"pet": "a cat named Miso"}, "kind": "pet", "cups": 0})
    store.put(prefs, "music", {"memory": "likes jazz on Sundays", "tags": ["music", "weekend"]})
    store.put(work, "job", {"text": "I work at a bakery", "kind": "place"})
    store.put(("u2", "memories"), "home", {"text": "I live in Oslo", "kind": "place"})
    store.put(home, "index-off", {"text": "not searched by words", "kind": "note"}, index=False)
    store.put(home, "indexed", {"title": "Holiday", "body": "We go to Crete in June"}, index=["body"])

    out.append(["get", store.get(home, "home").value, store.get(home, "missing")])
    item = store.get(home, "home")
    assert item is not None and item.namespace == home and item.key == "home"
    store.put(home, "home", {"text": "I moved to Porto", "kind": "place", "since": 2026})
    out.append(["re-put", store.get(home, "home").value])

    out.append(["list u1", items(store.search(("u1",), limit=20))])
    out.append(["list home", items(store.search(home))])
    out.append(["list work", items(store.search(work))])
    out.append(["limit/offset", items(store.search(("u1",), limit=2, offset=1))])
    out.append(["offset past the end", items(store.search(("u1",), offset=50))])
    out.append(["filter", items(store.search(("u1",), filter={"kind": "place"}))])
    out.append(["filter ops", items(store.search(("u1",), filter={"kind": "taste", "cups": {"$gte": 1}}))])
    out.append(["filter $ne", items(store.search(home, filter={"kind": {"$ne": "place"}}))])
    out.append(["nested filter", items(store.search(home, filter={"data": {"pet": "a cat named Miso"}}))])
    out.append(["list filter", items(store.search(prefs, filter={"tags": ["music", "weekend"]}))])
    out.append(["all users", as_set(store.search((), limit=50))])
    # With a query InMemoryStore (no index) does not rank: compare what is found, as sets.
    out.append(["query", as_set(store.search(("u1",), query="where does the user live?", limit=20))])
    out.append(["query filter", as_set(store.search(("u1",), query="tea", filter={"kind": "taste"}))])
    out.append(["query limit", len(store.search(("u1",), query="tea", limit=2))])

    out.append(["namespaces", store.list_namespaces()])
    out.append(["prefix", store.list_namespaces(prefix=("u1",))])
    out.append(["suffix", store.list_namespaces(suffix=("memories",))])
    out.append(["wildcard", store.list_namespaces(prefix=("*", "memories"))])
    out.append(["depth", store.list_namespaces(max_depth=1)])
    out.append(["depth 2", store.list_namespaces(prefix=("u1",), max_depth=2)])
    out.append(["ns limit", store.list_namespaces(limit=2, offset=1)])

    store.delete(home, "tea")
    store.delete(home, "never-stored")
    out.append(["deleted", store.get(home, "tea"), items(store.search(home, filter={"kind": "taste"}))])
    out.append(["after delete", as_set(store.search(("u1",), query="green tea", limit=20))])
    # One batch of each op (InMemoryStore applies a batch's puts after its reads: none of these
    # reads is of the namespace put to).
    put, got, found, spaces = store.batch([
        PutOp(("u3", "x"), "sport", {"text": "I swim on Mondays"}),
        GetOp(prefs, "music"),
        SearchOp(prefs, limit=10),
        ListNamespacesOp((MatchCondition("prefix", ("u1",)),), max_depth=2),
    ])
    out.append(["batch", put, got.value, items(found), spaces])
    out.append(["after the batch", store.get(("u3", "x"), "sport").value])
    return out


def test_the_same_calls_give_what_langgraphs_in_memory_store_gives(dualmem: DualmemStore) -> None:
    reference, ours = script(InMemoryStore()), script(dualmem)
    for expected, got in zip(reference, ours, strict=True):
        assert got == expected, expected[0]


def test_search_ranks_by_recall(dualmem: DualmemStore) -> None:
    ns = ("u1", "memories")
    dualmem.put(ns, "tea", {"text": "I love green tea"})
    dualmem.put(ns, "home", {"text": "I live in Lisbon"})
    dualmem.put(ns, "job", {"text": "I work at a bakery"})
    found = dualmem.search(ns, query="Where does the user live?")
    assert found[0].key == "home"
    assert all(f.score is not None for f in found)
    assert [f.score for f in found] == sorted((f.score for f in found), reverse=True)
    hits = dualmem.writer.recall("Where does the user live?", user_id="u1")
    assert 'langgraph:["u1","memories","home"]' in hits[0].sources  # the plain text is what recall found
    assert dualmem.store.episodes_by_source("u1", ['langgraph:["u1","memories","home"]'])[0].session_id \
        == "memories"


def test_a_second_put_replaces_the_value_and_keeps_created_at(dualmem: DualmemStore) -> None:
    ns = ("u1", "memories")
    dualmem.put(ns, "home", {"text": "I live in Lisbon"})
    first = dualmem.get(ns, "home")
    dualmem.put(ns, "home", {"text": "I live in Porto"})
    second = dualmem.get(ns, "home")
    assert first is not None and second is not None
    assert second.value == {"text": "I live in Porto"}
    assert second.created_at == first.created_at < second.updated_at
    texts = [h.text for h in dualmem.writer.recall("where does the user live", user_id="u1", k=20)]
    assert not any("Lisbon" in t for t in texts)  # the old value was forgotten, not kept


def test_two_keys_with_the_same_text_are_two_items(dualmem: DualmemStore) -> None:
    ns = ("u1", "memories")
    dualmem.put(ns, "a", {"text": "I love green tea"})
    dualmem.put(ns, "b", {"text": "I love green tea", "again": True})  # one memory, two sources
    assert {i.key for i in dualmem.search(ns, query="tea")} == {"a", "b"}
    dualmem.delete(ns, "a")
    assert [i.key for i in dualmem.search(ns, query="tea")] == ["b"]
    assert dualmem.get(ns, "b").value == {"text": "I love green tea", "again": True}


def test_a_value_without_a_text_field_is_remembered_as_json(dualmem: DualmemStore) -> None:
    ns = ("u1", "profile")
    dualmem.put(ns, "diet", {"diet": "vegetarian", "since": 2020, "strict": None})
    assert dualmem.get(ns, "diet").value == {"diet": "vegetarian", "since": 2020, "strict": None}
    assert [i.key for i in dualmem.search(("u1",), query="vegetarian")] == ["diet"]
    with pytest.raises(InvalidInput, match="user_at"):
        DualmemStore(dualmem.writer, user_at=2).put(ns, "k", {"text": "x"})


def test_user_at_names_the_label_that_is_the_user(store_url: str) -> None:
    with opened(store_url, user_at=1) as store:
        store.put(("memories", "ana"), "home", {"text": "I live in Lisbon"})
        store.put(("memories", "bo"), "home", {"text": "I live in Oslo"})
        assert store.store.list_users() == ["ana", "bo"]
        found = store.search(("memories",), query="where does the user live?", limit=5)
        assert {(i.namespace, i.value["text"]) for i in found} == {
            (("memories", "ana"), "I live in Lisbon"), (("memories", "bo"), "I live in Oslo")}
        assert [i.key for i in store.search(("memories", "bo"), query="live")] == ["home"]
        assert store.list_namespaces(prefix=("memories", "bo")) == [("memories", "bo")]


class State(TypedDict, total=False):
    user: str
    said: str
    found: list[str]


def remember_or_recall(state: State, *, store: BaseStore) -> State:
    """A deterministic node: 'remember: ...' puts a memory, anything else searches for it."""
    namespace = (state["user"], "memories")
    said = state["said"]
    if said.startswith("remember: "):
        text = said.removeprefix("remember: ")
        store.put(namespace, f"m{len(store.search(namespace, limit=100))}", {"text": text})
        return {"found": []}
    return {"found": [item.value["text"] for item in store.search(namespace, query=said, limit=3)]}


def build(store: BaseStore) -> Any:
    graph = StateGraph(State)
    graph.add_node("memory", remember_or_recall)
    graph.add_edge(START, "memory")
    graph.add_edge("memory", END)
    return graph.compile(checkpointer=InMemorySaver(), store=store)


def test_a_compiled_graph_finds_in_a_later_thread_what_an_earlier_run_put(dualmem: DualmemStore) -> None:
    app = build(dualmem)
    for n, said in enumerate(["remember: I love green tea", "remember: I live in Lisbon",
                              "remember: My sister Lena works at a bakery"]):
        app.invoke({"user": "u1", "said": said}, {"configurable": {"thread_id": f"first-{n}"}})
    out = app.invoke({"user": "u1", "said": "Where does the user live?"},
                     {"configurable": {"thread_id": "later"}})
    assert out["found"][0] == "I live in Lisbon"
    other = app.invoke({"user": "u2", "said": "Where does the user live?"},
                       {"configurable": {"thread_id": "someone-else"}})
    assert other["found"] == []  # another user's namespace sees nothing of u1's
    assert dualmem.list_namespaces() == [("u1", "memories")]


def test_the_async_path(dualmem: DualmemStore) -> None:
    ns = ("u1", "memories")

    async def run() -> None:
        await dualmem.aput(ns, "home", {"text": "I live in Lisbon"})
        await dualmem.aput(ns, "tea", {"text": "I love green tea"})
        got = await dualmem.aget(ns, "home")
        assert got is not None and got.value == {"text": "I live in Lisbon"}
        found = await dualmem.asearch(ns, query="Where does the user live?")
        assert found[0].key == "home"
        assert await dualmem.alist_namespaces() == [ns]
        results = await dualmem.abatch([GetOp(ns, "tea"), PutOp(ns, "tea", None), GetOp(ns, "tea"),
                                        SearchOp(ns)])
        assert results[0].value == {"text": "I love green tea"}
        assert results[1:3] == [None, None]
        assert [i.key for i in results[3]] == ["home"]
        app = build(dualmem)
        out = await app.ainvoke({"user": "u1", "said": "Where does the user live?"},
                                {"configurable": {"thread_id": "async"}})
        assert out["found"] == ["I live in Lisbon"]

    asyncio.run(run())


def test_without_langgraph_the_error_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "langgraph.store.base", None)
    monkeypatch.delitem(sys.modules, "dualmem_core.integrations.langgraph")
    with pytest.raises(MissingExtra, match=r"pip install 'dualmem\[langgraph\]'"):
        importlib.import_module("dualmem_core.integrations.langgraph")
