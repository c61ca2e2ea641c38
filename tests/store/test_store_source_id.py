"""One source id names one stored message of a user, also under concurrency (issue 36, item 2).

Concurrent remembers with one ``source_id`` all read "not stored yet" before any wrote; the rule
is held by the store (a unique (user, source id) index in SQLite, a uniqueness constraint in
Neo4j), and the loser of the race gets what a later call gets: ``already_stored`` for the same
text, the ``InvalidInput`` refusal for a different one. Both stores, real concurrency: threads
on one store (separate connections / sessions), processes on one SQLite file.
"""

from __future__ import annotations

import dataclasses
import logging
import sqlite3
import subprocess
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from builders import T0
from conftest import DIM, vec

from dualmem_core import InvalidInput, Writer, open_store
from dualmem_core.errors import SourceIdTaken
from dualmem_core.store import Edge, EdgeType, Episode, Memory, MemoryVersion, WriteBatch

ROOT = Path(__file__).resolve().parents[2]
N = 8


def _racing(store, monkeypatch, parties: int) -> None:
    """Every caller's look-up of stored source ids waits for the others' look-ups: all of them
    then write believing the id free, the race the store must settle (only widens the window)."""
    barrier = threading.Barrier(parties, timeout=20)
    looked_up = store.episodes_by_source
    waited = threading.local()

    def slow(*args, **kwargs):
        found = looked_up(*args, **kwargs)
        if not getattr(waited, "done", False):  # a retry's second look-up goes straight on
            waited.done = True
            barrier.wait()
        return found

    monkeypatch.setattr(store, "episodes_by_source", slow)


def _remember_all(store, user: str, texts: list[str]) -> list[object]:
    writer = Writer(store)  # one Writer shared, as a server holds one

    def call(text: str) -> object:
        try:
            return writer.remember(text, user_id=user, source_id="msg-1", at=T0)
        except InvalidInput as exc:
            return exc

    with ThreadPoolExecutor(len(texts)) as pool:
        return list(pool.map(call, texts))


def _stored(store, user: str):
    return store.export_graph(user)


def test_concurrent_different_texts_store_one(store, user, monkeypatch):
    _racing(store, monkeypatch, N)
    texts = [f"I have {i} cats and a dog called Rex{i}." for i in range(N)]
    outcomes = _remember_all(store, user, texts)
    stored = [o for o in outcomes if not isinstance(o, Exception)]
    refused = [o for o in outcomes if isinstance(o, InvalidInput)]
    assert len(stored) == 1 and len(refused) == N - 1, outcomes
    assert all("already names a different message" in str(e) for e in refused)
    graph = _stored(store, user)
    assert [e.source_id for e in graph.episodes] == ["msg-1"]
    # Nothing of a loser's write is left: one observation (and its facts) from the one episode.
    assert {v.text for v in graph.versions if v.text.startswith("I have")} == {graph.episodes[0].text}
    assert all(e.dst_id == graph.episodes[0].id for e in graph.edges if e.type == EdgeType.FROM)


def test_concurrent_same_text_stores_one_and_says_already_stored(store, user, monkeypatch):
    _racing(store, monkeypatch, N)
    outcomes = _remember_all(store, user, ["I moved to Portland last week."] * N)
    assert not [o for o in outcomes if isinstance(o, Exception)], outcomes
    wrote = [o for o in outcomes if o.episode_ids]
    repeats = [o for o in outcomes if o.already_stored == ["msg-1"]]
    assert len(wrote) == 1 and len(repeats) == N - 1, outcomes
    graph = _stored(store, user)
    assert len(graph.episodes) == 1
    assert len([m for m in graph.memories if m.kind == "observation"]) == 1


def _batch(user: str, source_id: str, text: str) -> WriteBatch:
    ep = Episode(user_id=user, text=text, observed_at=T0, source_id=source_id)
    mem = Memory(user_id=user, kind="observation")
    ver = MemoryVersion(memory_id=mem.id, user_id=user, text=text, valid_from=T0, embedding=vec(1.0))
    return WriteBatch([ep], [mem], [ver], [], [Edge(user_id=user, type=EdgeType.FROM,
                                                    src_id=mem.id, dst_id=ep.id)])


def test_store_refuses_a_taken_source_id_and_writes_nothing_of_the_batch(store, user, other_user):
    store.write(_batch(user, "m1", "first"))
    second = _batch(user, "m1", "second")
    with pytest.raises(SourceIdTaken) as caught:
        store.write(second)
    assert caught.value.taken == {"m1": "first"} and caught.value.user_id == user
    graph = store.export_graph(user)
    assert [e.text for e in graph.episodes] == ["first"]
    assert [v.text for v in graph.versions] == ["first"]
    assert len(graph.memories) == 1 and len(graph.edges) == 1
    # The rule is per user, and messages without a source id are not constrained.
    store.write(_batch(other_user, "m1", "first"))
    for text in ("a", "b"):
        store.write(_batch(user, None, text))
    assert len(store.export_graph(user).episodes) == 3


def test_concurrent_store_writes_on_separate_store_objects(backend, store_url, user):
    # Separate store objects: separate SQLite connections, separate Neo4j drivers and sessions.
    stores = [open_store(store_url, dimension=DIM) for _ in range(4)]
    barrier = threading.Barrier(len(stores), timeout=20)

    def write(i: int) -> object:
        barrier.wait()
        try:
            stores[i].write(_batch(user, "same", f"text {i}"))
            return None
        except SourceIdTaken as exc:
            return exc

    try:
        with ThreadPoolExecutor(len(stores)) as pool:
            outcomes = list(pool.map(write, range(len(stores))))
        assert sum(o is None for o in outcomes) == 1, outcomes
        graph = stores[0].export_graph(user)
        assert len(graph.episodes) == len(graph.memories) == len(graph.versions) == 1
    finally:
        for s in stores:
            s.close()


_CHILD = """
import sys
from datetime import datetime, timezone
from dualmem_core import InvalidInput, Writer, open_store
url, user, text, go = sys.argv[1:]
w = Writer(open_store(url))
import os, time
while not os.path.exists(go):
    time.sleep(0.005)
try:
    r = w.remember(text, user_id=user, source_id="msg-1", at=datetime(2025, 1, 1, tzinfo=timezone.utc))
    print("stored" if r.episode_ids else "already")
except InvalidInput:
    print("refused")
"""


def test_processes_on_one_sqlite_file(tmp_path, user):
    url = f"sqlite:///{tmp_path / 'memory.db'}"
    open_store(url, dimension=DIM).close()
    go = tmp_path / "go"
    texts = ["I live in Lisbon."] * 3 + ["I live in Porto.", "I live in Faro."]
    children = [subprocess.Popen([sys.executable, "-c", _CHILD, url, user, t, str(go)],
                                 stdout=subprocess.PIPE, text=True, cwd=ROOT) for t in texts]
    go.touch()
    said = sorted(c.communicate(timeout=120)[0].strip() for c in children)
    assert said.count("stored") == 1, said
    store = open_store(url)
    try:
        (episode,) = store.export_graph(user).episodes
    finally:
        store.close()
    assert said.count("already") == (2 if episode.text == "I live in Lisbon." else 0), said
    assert said.count("refused") == 5 - 1 - said.count("already")


def test_old_sqlite_file_with_duplicates_still_opens(tmp_path, user, caplog):
    path = tmp_path / "memory.db"
    open_store(f"sqlite:///{path}", dimension=DIM).close()
    conn = sqlite3.connect(path)
    conn.execute("DROP INDEX IF EXISTS episodes_unique_source")
    for i in range(2):
        conn.execute("INSERT INTO episodes (id, user_id, text, observed_at, source_id, recorded_at, "
                     "created_by) VALUES (?, ?, ?, 0, 'dup', 0, 'writer')", (f"ep{i}", user, f"t{i}"))
    conn.commit()
    conn.close()
    with caplog.at_level(logging.WARNING, logger="dualmem_core"):
        store = open_store(f"sqlite:///{path}")
    try:
        assert "forget" in caplog.text and "dup" in caplog.text
        store.forget(user, episode_ids=["ep1"])
    finally:
        store.close()
    store = open_store(f"sqlite:///{path}")  # the duplicate gone, the index is made on this open
    try:
        store.write(_batch(user, "x", "one"))
        with pytest.raises(SourceIdTaken):
            store.write(_batch(user, "x", "two"))
    finally:
        store.close()


@pytest.mark.neo4j
def test_old_neo4j_store_with_duplicates_still_opens(neo4j_uri, neo4j_store, user, caplog):
    from dualmem_core.store.neo4j.schema import SOURCE_CONSTRAINT

    def run(query: str, **params) -> None:
        neo4j_store._run(lambda tx: tx.run(query, **params).consume())

    neo4j_store._driver.execute_query(f"DROP CONSTRAINT {SOURCE_CONSTRAINT} IF EXISTS")
    try:
        for i in range(2):
            run("CREATE (:Episode {id: $id, user_id: $user, text: $text, source_id: 'dup'})",
                id=f"ep-{user}-{i}", user=user, text=f"t{i}")
        with caplog.at_level(logging.WARNING, logger="dualmem_core"):
            reopened = open_store(neo4j_uri, dimension=DIM)
        reopened.close()
        assert "forget" in caplog.text and "dup" in caplog.text
    finally:
        run("MATCH (e:Episode) WHERE e.user_id = $user DETACH DELETE e", user=user)
        open_store(neo4j_uri, dimension=DIM).close()  # the constraint back, for the other tests
    neo4j_store.write(_batch(user, "x", "one"))
    with pytest.raises(SourceIdTaken):
        neo4j_store.write(_batch(user, "x", "two"))


def test_importing_a_graph_that_repeats_a_source_id_is_refused_whole(store, user):
    from dualmem_core import ConflictError

    store.write(_batch(user, "m1", "first"))
    graph = store.export_graph(user)
    graph.episodes.append(dataclasses.replace(graph.episodes[0], id="ep_copy", text="copy"))
    with pytest.raises(ConflictError):
        store.import_graph(graph, replace=True)
    assert [e.text for e in store.export_graph(user).episodes] == ["first"]
