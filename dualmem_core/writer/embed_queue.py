"""Embedding off the turn's path: a model embedder's vectors, computed in batches by one
background thread of the Writer's process.

With an embedder that is not cheap (a model: ``cheap = False`` on the embedder), ``remember``
stores its memories, their text index entries, provenance and entity links in its transaction
and returns; their versions are handed to this queue. One daemon thread takes up to
``batch_size`` texts at a time (waiting at most ``max_wait_ms`` after the oldest for more),
embeds them in one model call (texts of every user together), and writes each user's vectors
with their SIMILAR_TO links (``batch.similar_links``, the code path of an inline remember) in
one transaction (``Store.set_vectors``). Until then a memory is found by text and context;
after, by meaning too.

The queue is bounded (``queue_size`` texts): a ``remember`` that finds it full waits up to
``block_ms`` for room, then embeds its own texts inline. ``flush()`` waits until everything
queued has landed; ``close()`` flushes and stops the thread; so does interpreter exit.

Nothing is lost if the process dies before a vector lands: the memory is stored without one,
and the next embedding Writer on the store (``recover``, in the background when it opens)
embeds every current version that has none (``Store.versions_without_vector``).
"""

from __future__ import annotations

import atexit
import logging
import threading
import time
import weakref
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..providers import Embedder
from ..settings import EmbedQueueSettings
from ..store import MemoryVersion, Store
from .batch import similar_links

log = logging.getLogger(__name__)

_STATS = 100_000  # lags and batch sizes kept for ``stats`` (the newest)


@dataclass(slots=True)
class _Item:
    user_id: str
    version_id: str
    memory_id: str
    text: str
    queued_at: float  # time.monotonic()
    call: int  # which ``put``: memories of one remember call do not link to each other


class EmbedQueue:
    """The bounded queue and its one worker thread (see the module docstring)."""

    def __init__(self, store: Store, embedder: Embedder, settings: EmbedQueueSettings, *,
                 links: int, threshold: float, write_lock: threading.Lock | None = None):
        self.store, self.embedder, self.settings = store, embedder, settings
        # Held around each write, and by the Writer around a remember's: two connections of one
        # process contending for SQLite's write lock wait in its busy handler, which sleeps in
        # steps of up to 25 ms; a lock in process wakes the waiter as soon as the other is done.
        self.write_lock = write_lock or threading.Lock()
        self.links, self.threshold = links, threshold
        self._items: deque[_Item] = deque()
        self._ids: set[str] = set()  # versions queued or being embedded
        self._unfinished = 0  # items queued or being embedded
        self._hurry = 0  # flushes waiting: the worker does not wait for a fuller batch
        self._closed = False
        self._calls = 0
        self._cond = threading.Condition()
        self.lags: deque[float] = deque(maxlen=_STATS)  # seconds from queued to written
        self.batch_sizes: deque[int] = deque(maxlen=_STATS)  # texts per model call
        self.inline = 0  # remembers that found the queue full and embedded inline
        self.failures = 0  # batches whose embedding or write failed (left for ``recover``)
        self._thread = threading.Thread(target=self._work, name="dualmem-embed", daemon=True)
        self._thread.start()
        self._recovery: threading.Thread | None = None
        # Registered now, after the store opened: exit handlers run last-registered first, so
        # this one flushes before the store's own (Neo4j's) closes it.
        self._at_exit = _exit_flush(weakref.ref(self))
        atexit.register(self._at_exit)

    # -- what the Writer calls --------------------------------------------------------------

    def put(self, user_id: str, versions: list[MemoryVersion]) -> None:
        """Queue these stored versions for embedding; when the queue stays full for
        ``block_ms``, embed them now, in the caller's thread."""
        now = time.monotonic()
        with self._cond:
            self._calls += 1
            call = self._calls
        items = [_Item(user_id, v.id, v.memory_id, v.text, now, call) for v in versions]
        if not items:
            return
        deadline = now + self.settings.block_ms / 1000
        with self._cond:
            while not self._closed and len(self._items) + len(items) > self.settings.queue_size:
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                self._cond.wait(left)
            if not self._closed and len(self._items) + len(items) <= self.settings.queue_size:
                self._items.extend(items)
                self._ids.update(i.version_id for i in items)
                self._unfinished += len(items)
                self._cond.notify_all()
                return
            self.inline += 1
        self._embed(items)

    def flush(self, timeout: float | None = None) -> bool:
        """Wait until every queued vector is written (or failed); False on timeout."""
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._cond:
            self._hurry += 1
            self._cond.notify_all()
            try:
                while self._unfinished:
                    left = None if deadline is None else deadline - time.monotonic()
                    if left is not None and left <= 0:
                        return False
                    self._cond.wait(left)
                return True
            finally:
                self._hurry -= 1

    def close(self, timeout: float | None = None) -> None:
        """Flush, then stop the worker thread (and a recovery still running)."""
        self.flush(timeout)
        with self._cond:
            self._closed = True
            self._cond.notify_all()
        atexit.unregister(self._at_exit)
        self._thread.join(timeout)
        if self._recovery is not None:
            self._recovery.join(timeout)

    def pending(self) -> int:
        with self._cond:
            return self._unfinished

    def stats(self) -> dict[str, float]:
        """Lag (queued to written) p50/p95 in ms, mean texts per model call, inline fallbacks."""
        lags = np.asarray(self.lags, dtype=np.float64) * 1000
        sizes = np.asarray(self.batch_sizes, dtype=np.float64)
        return {
            "lag_p50_ms": float(np.percentile(lags, 50)) if lags.size else 0.0,
            "lag_p95_ms": float(np.percentile(lags, 95)) if lags.size else 0.0,
            "mean_batch": float(sizes.mean()) if sizes.size else 0.0,
            "batches": float(sizes.size),
            "inline": float(self.inline),
            "failures": float(self.failures),
        }

    # -- recovery -----------------------------------------------------------------------------

    def recover_in_background(self) -> None:
        """Embed, in a daemon thread, what earlier processes stored without a vector."""
        self._recovery = threading.Thread(target=self.recover, name="dualmem-embed-recover", daemon=True)
        self._recovery.start()

    def recover(self, user_id: str | None = None, page: int | None = None) -> int:
        """Queue every current version of the store (of ``user_id`` only, if given) that has no
        vector, a page at a time, and wait for each page to land; returns how many were queued.
        Versions this queue already holds are left to it; one that failed is not tried again by
        this call."""
        page = page or self.settings.batch_size * 4
        tried: set[str] = set()
        queued = 0
        while not self._closed:
            try:
                found = self.store.versions_without_vector(user_id, limit=page + len(tried))
            except Exception:  # the store closed under us, or is unreachable: the next open retries
                log.warning("embedding queue: could not read the versions without a vector", exc_info=True)
                return queued
            with self._cond:
                fresh = [v for v in found if v.id not in tried and v.id not in self._ids]
                tried.update(v.id for v in found)
            if not fresh:
                return queued
            by_user: dict[str, list[MemoryVersion]] = {}
            for version in fresh:
                by_user.setdefault(version.user_id, []).append(version)
            for user_id, versions in by_user.items():
                self.put(user_id, versions)
            queued += len(fresh)
            self.flush()
        return queued

    # -- the worker ---------------------------------------------------------------------------

    def _work(self) -> None:
        size, wait = self.settings.batch_size, self.settings.max_wait_ms / 1000
        while True:
            with self._cond:
                while not self._items and not self._closed:
                    self._cond.wait()
                if not self._items:
                    return  # closed and drained
                # A fuller batch is worth a short wait: one model call costs about the same
                # for 1 text as for 32.
                while len(self._items) < size and not self._closed and not self._hurry:
                    left = self._items[0].queued_at + wait - time.monotonic()
                    if left <= 0:
                        break
                    self._cond.wait(left)
                batch = [self._items.popleft() for _ in range(min(size, len(self._items)))]
                self._cond.notify_all()  # room for a remember waiting on a full queue
            try:
                self._embed(batch)
            finally:
                with self._cond:
                    self._unfinished -= len(batch)
                    self._ids.difference_update(i.version_id for i in batch)
                    self._cond.notify_all()

    def _embed(self, items: list[_Item]) -> None:
        """One model call for ``items``, then each user's vectors and links in one transaction.
        A failure is logged and counted; those versions keep no vector until ``recover``."""
        try:
            vectors = np.asarray(self.embedder.embed([i.text for i in items]), dtype=np.float32)
        except Exception:
            self.failures += 1
            log.warning("embedding queue: embedding %d texts failed; they are recallable by text "
                        "until a Writer's recovery embeds them", len(items), exc_info=True)
            return
        self.batch_sizes.append(len(items))
        by_user: dict[str, list[tuple[_Item, np.ndarray]]] = {}
        for item, vector in zip(items, vectors, strict=True):
            by_user.setdefault(item.user_id, []).append((item, vector))
        for user_id, rows in by_user.items():
            try:
                edges = similar_links(self.store, user_id, [(i.memory_id, v) for i, v in rows],
                                      self.links, self.threshold, [i.call for i, _ in rows])
                with self.write_lock:
                    self.store.set_vectors(user_id, {i.version_id: v for i, v in rows}, edges)
            except Exception:
                self.failures += 1
                log.warning("embedding queue: writing %d vectors of user %r failed", len(rows),
                            user_id, exc_info=True)
                continue
            done = time.monotonic()
            self.lags.extend(done - i.queued_at for i, _ in rows)


def queue_for(store: Store, embedder: Embedder, sync: bool | None, settings: EmbedQueueSettings | None,
              *, links: int, threshold: float) -> EmbedQueue | None:
    """The Writer's queue, started (with its recovery unless ``settings.recover`` is off), or None
    to embed inline: with ``sync=True``, or unless asked (``sync=False``) with an embedder that
    does not say it is costly (``cheap = False``), or with ``DUALMEM_EMBED_SYNC=1``."""
    if sync is None:
        if bool(getattr(embedder, "cheap", True)):  # an embedder that does not say: as before
            return None
        settings = settings or EmbedQueueSettings.from_env()
        sync = settings.sync
    if sync:
        return None
    settings = settings or EmbedQueueSettings.from_env()
    queue = EmbedQueue(store, embedder, settings, links=links, threshold=threshold)
    if settings.recover:
        queue.recover_in_background()
    return queue


def _exit_flush(ref: weakref.ReferenceType[EmbedQueue]) -> Callable[[], None]:
    def flush() -> None:
        queue = ref()
        if queue is not None and not queue._closed:
            queue.close(timeout=60)

    return flush
