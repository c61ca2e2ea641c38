"""Embedding off the turn's path (``writer/embed_queue.py``), on real stores.

The embedder here is a slow stand-in for a model: the hashing vectors after 20 ms a call, with
its calls and batch sizes counted. A gate holds the queue's worker thread (only it) so a
backlog is there for as long as a test needs it.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from dualmem_core import open_store
from dualmem_core.providers import HashingEmbedder
from dualmem_core.settings import EmbedQueueSettings
from dualmem_core.store import EdgeType, SearchFilter
from dualmem_core.writer.writer import Writer

DIM = 384
T = datetime(2026, 3, 2, 18, 0, tzinfo=UTC)
ROOT = Path(__file__).resolve().parents[2]


class SlowEmbedder:
    """Hashing vectors after ``delay`` seconds a call; the worker thread waits at ``gate``."""

    cheap = False

    def __init__(self, delay: float = 0.02):
        self.inner = HashingEmbedder(DIM)
        self.name, self.dimension, self.delay = "slow-hashing", DIM, delay
        self.gate = threading.Event()
        self.gate.set()
        self.sizes: list[int] = []
        self.lock = threading.Lock()

    def embed(self, texts):
        if threading.current_thread().name == "dualmem-embed":
            assert self.gate.wait(30), "the test never opened the gate"
        time.sleep(self.delay)
        with self.lock:
            self.sizes.append(len(texts))
        return self.inner.embed(texts)


def queued(**kw) -> EmbedQueueSettings:
    return EmbedQueueSettings(**{"batch_size": 64, "max_wait_ms": 20, "recover": False, **kw})


def missing(store, user) -> list[str]:
    return [v.text for v in store.versions_without_vector(user)]


def test_a_cheap_embedder_or_sync_embeds_inline(store, user):
    assert Writer(store).embed_queue is None  # hashing: cheap
    slow = SlowEmbedder(delay=0)
    writer = Writer(store, embedder=slow, sync=True)
    assert writer.embed_queue is None
    writer.remember("I live in Boston.", user_id=user, at=T)
    assert missing(store, user) == [] and slow.sizes == [2]  # the observation and its fact, one call


def test_recall_during_a_backlog_finds_by_text_then_by_meaning_after_flush(store, user):
    slow = SlowEmbedder()
    writer = Writer(store, embedder=slow, embed_queue=queued())
    try:
        writer.remember("Waffle the corgi chewed my favourite shoes today.", user_id=user, at=T)
        assert writer.flush(30)
        slow.gate.clear()
        said = "Waffle the corgi chewed my favourite shoes again."
        result = writer.remember(said, user_id=user, at=T + timedelta(hours=1))
        new = result.memory_ids[0]
        assert said in missing(store, user)
        hits = {h.memory_id: h for h in writer.recall("corgi shoes", user_id=user)}
        assert new in hits and hits[new].why["vector"] == 0.0  # stored and indexed: found by text
        slow.gate.set()
        assert writer.flush(30)
        assert missing(store, user) == []
        (version,) = store.get_versions(user, [new])
        assert version.embedding is not None
        found = store.vector_search(slow.inner.embed([said])[0], SearchFilter(user), k=3)
        assert found[0].memory.id == new  # by meaning now
        hits = {h.memory_id: h for h in writer.recall("corgi shoes", user_id=user)}
        assert hits[new].why["vector"] > 0
        # Its SIMILAR_TO link to the earlier message was written with the vector.
        similar = store.get_edges(user, node_ids=[new], types=[EdgeType.SIMILAR_TO])
        assert [e.src_id for e in similar] == [new]
    finally:
        slow.gate.set()
        writer.close()


def test_model_calls_are_batched_across_remembers(store, user):
    slow = SlowEmbedder()
    writer = Writer(store, embedder=slow, embed_queue=queued(batch_size=32, max_wait_ms=200))
    try:
        slow.gate.clear()  # a model that does not answer holds up no remember
        said = "The weekly meeting with Ana and the design team moved to room {}."
        results = [writer.remember(said.format(i), user_id=user, at=T + timedelta(minutes=i))
                   for i in range(40)]
        stored = sum(len(r.memory_ids) for r in results)
        assert len(missing(store, user)) == stored
        slow.gate.set()
        assert writer.flush(30)
    finally:
        slow.gate.set()
        writer.close()
    assert sum(slow.sizes) == stored and max(slow.sizes) >= 16
    assert len(slow.sizes) <= stored // 32 + 2  # the worker's first batch, then full ones
    assert missing(store, user) == []
    # Linked to earlier notes of the same model call, as inline they would have been.
    last, first = results[-1].memory_ids[0], results[0].memory_ids[0]
    similar = store.get_edges(user, node_ids=[last], types=[EdgeType.SIMILAR_TO])
    assert similar and {e.src_id for e in similar} == {last}
    assert not [e for e in store.get_edges(user, node_ids=[first], types=[EdgeType.SIMILAR_TO])
                if e.src_id == first]  # the first note had nothing before it


def test_a_full_queue_is_bounded_and_embeds_inline(store, user):
    slow = SlowEmbedder(delay=0)
    writer = Writer(store, embedder=slow, embed_queue=queued(queue_size=3, block_ms=0, max_wait_ms=0))
    queue = writer.embed_queue
    assert queue is not None
    try:
        slow.gate.clear()  # the worker takes at most one batch and holds it
        for i in range(8):
            writer.remember(f"Reminder {i}: water the plants.", user_id=user, at=T + timedelta(minutes=i))
            assert len(queue._items) <= 3
        assert queue.inline > 0
        slow.gate.set()
        assert writer.flush(30)
    finally:
        slow.gate.set()
        writer.close()
    assert missing(store, user) == []


def test_two_writers_on_one_store(store, store_url, user):
    second_store = open_store(store_url, dimension=DIM)
    writers = [Writer(s, embedder=SlowEmbedder(), embed_queue=queued(batch_size=8))
               for s in (store, second_store)]
    try:
        def talk(w: Writer, who: int) -> None:
            for i in range(12):
                w.remember(f"Writer {who} heard that Bo likes sailing, item {i}.", user_id=user,
                           at=T + timedelta(minutes=i))

        threads = [threading.Thread(target=talk, args=(w, n)) for n, w in enumerate(writers)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        # Each also embeds what the other left (its recovery does this when it opens): the
        # second write of a vector sets and links nothing.
        assert writers[1].embed_queue is not None
        assert writers[1].embed_queue.recover(user) >= 0  # the user's: the Neo4j server is shared
        assert all(w.flush(30) for w in writers)
        assert missing(store, user) == []
        edges = store.get_edges(user, types=[EdgeType.SIMILAR_TO])
        assert edges and len({(e.src_id, e.dst_id) for e in edges}) == len(edges)
    finally:
        for w in writers:
            w.close()
        second_store.close()


def test_set_vectors_writes_once(store, user):
    slow = SlowEmbedder(delay=0)
    slow.gate.clear()
    writer = Writer(store, embedder=slow, embed_queue=queued())
    try:
        writer.remember("I play the cello on Sundays.", user_id=user, at=T)
        (version,) = [v for v in store.versions_without_vector(user) if v.text.startswith("I play")]
        vector = slow.inner.embed([version.text])[0]
        assert store.set_vectors(user, {version.id: vector}) == [version.id]
        assert store.set_vectors(user, {version.id: vector}) == []
        assert version.id not in {v.id for v in store.versions_without_vector(limit=10_000)}
    finally:
        slow.gate.set()
        writer.close()


KILLED = """
import sys, threading, time
sys.path[:0] = [{tests!r}]
from test_embed_queue import SlowEmbedder, queued
from dualmem_core import open_store
from dualmem_core.writer.writer import Writer
slow = SlowEmbedder()
slow.gate.clear()  # the worker never embeds: the process dies with the vectors queued
writer = Writer(open_store({url!r}, dimension=384), embedder=slow, embed_queue=queued())
writer.remember("My sister Lena moved to Lisbon for a job at a bakery.", user_id={user!r})
writer.remember("I ran a half marathon in the rain.", user_id={user!r})
print("stored", flush=True)
time.sleep(60)
"""


@pytest.mark.parametrize("backend", ["sqlite"], indirect=True)
def test_a_process_killed_before_its_vectors_land_loses_nothing(store_url, user, tmp_path):
    script = KILLED.format(tests=str(Path(__file__).parent), url=store_url, user=user)
    child = subprocess.Popen([sys.executable, "-c", textwrap.dedent(script)], stdout=subprocess.PIPE,
                             text=True, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})
    try:
        assert child.stdout is not None and child.stdout.readline().strip() == "stored"
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait(30)
    store = open_store(store_url, dimension=DIM)
    try:
        assert len(missing(store, user)) >= 2  # both messages stored, without vectors
        slow = SlowEmbedder()
        writer = Writer(store, embedder=slow, embed_queue=queued(recover=True))
        assert writer.embed_queue is not None and writer.embed_queue._recovery is not None
        writer.embed_queue._recovery.join(30)
        assert writer.flush(30)
        assert missing(store, user) == []
        hits = store.vector_search(slow.inner.embed(["My sister Lena moved to Lisbon"])[0],
                                   SearchFilter(user), k=1)
        assert hits[0].version.text.startswith("My sister Lena moved to Lisbon")
        writer.close()
    finally:
        store.close()
