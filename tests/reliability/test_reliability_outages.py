"""The store going away mid-call: a Neo4j server killed while an Editor's publish and a Writer's
transaction are both open (on a Neo4j of this test's own, restarted on the same data), and
a SQLite file whose write lock another process holds past the busy timeout.
"""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
import threading
import time
from datetime import timedelta

import pytest
from conftest import unavailable
from test_reliability_processes import T0, assert_invariants, fingerprint, seed

from dualmem_core import Editor, StoreUnavailable, Writer, open_store
from dualmem_core.store.sqlite.store import SQLiteStore

DIM = 384
RETRY_SECONDS = 3.0  # the driver's retry budget for this test (15 s by default)
# The message a Writer tries to store while the store goes away.
LATE = {"role": "user", "content": "I adopted a cat named Miso.", "source_id": "late",
        "at": T0 + timedelta(days=400)}


@pytest.fixture
def own_neo4j(tmp_path):
    """A Neo4j of this test's own, so killing it disturbs no other test."""
    from dualmem_core.local_neo4j import LocalNeo4j, Neo4jUnavailable, ensure_built

    server = LocalNeo4j(tmp_path / "neo4j")
    try:
        ensure_built()
        server.start()
    except Neo4jUnavailable as exc:
        server.stop()
        unavailable(f"Neo4j could not start: {exc}")
    try:
        yield server
    finally:
        server.stop()


def crash(server) -> None:
    """SIGKILL the server's whole process group: no shutdown, as a crash or a pulled plug."""
    os.killpg(server.pid, signal.SIGKILL)
    server.stop()  # reaps it; the data directory stays


@pytest.mark.neo4j
def test_neo4j_killed_mid_transaction_gives_a_clear_error_nothing_half_written_and_a_rerun_completes(
    own_neo4j, user, caplog
):
    store = open_store(own_neo4j.uri, dimension=DIM, retry_seconds=RETRY_SECONDS)
    try:
        seed(store, user)
        before = fingerprint(store.export_graph(user))
        writer = Writer(store)
        late = dict(LATE)
        original_insert, original_plan = store._checked_insert, store._apply_plan
        writer_in_tx, killed = threading.Event(), threading.Event()
        caught: dict[str, object] = {}

        def insert_and_hold(tx, user_id, batch, now):  # the Writer's rows sent, its commit held back
            inserted = original_insert(tx, user_id, batch, now)
            writer_in_tx.set()
            killed.wait(60)
            return inserted

        def remember_late() -> None:
            started = time.monotonic()
            try:
                writer.remember([late], user_id=user)
            except StoreUnavailable as exc:
                caught["writer"], caught["writer_s"] = exc, time.monotonic() - started

        def publish_then_die(tx, user_id, ops, *rest):  # the Editor's operations sent, not committed
            original_plan(tx, user_id, ops, *rest)
            if killed.is_set():
                return
            caught["editor_ops"] = len(ops)
            caught["thread"] = thread = threading.Thread(target=remember_late)
            thread.start()
            # The Writer may also wait on a lock the Editor's transaction holds: either way it is
            # inside its call when the server dies.
            caught["writer_reached_its_rows"] = writer_in_tx.wait(15)
            crash(own_neo4j)
            killed.set()

        store._checked_insert, store._apply_plan = insert_and_hold, publish_then_die
        caplog.set_level(logging.WARNING, logger="neo4j")
        try:
            with pytest.raises(StoreUnavailable) as editor_error:
                Editor(store, lease_seconds=3).run(user)
            caught["thread"].join(120)
        finally:
            del store._checked_insert, store._apply_plan

        assert caught["editor_ops"] > 0 and "writer" in caught, caught
        for error in (caught["writer"], editor_error.value):
            assert own_neo4j.uri in str(error) and "nothing was written" in str(error)
        # Transient errors are retried with backoff (logged by the driver) for the budget.
        retried = [r for r in caplog.records if "will be retried" in r.getMessage()]
        assert retried, "the driver should have retried the lost transactions"
        assert caught["writer_s"] >= RETRY_SECONDS

        with pytest.raises(StoreUnavailable, match=own_neo4j.uri):  # still down: a new call too
            writer.remember([late], user_id=user)

        own_neo4j.start()  # same data directory and port; the store object reconnects by itself
        assert fingerprint(store.export_graph(user)) == before, "a lost transaction left rows behind"
        assert store.list_runs(user) == []
        assert store.episodes_by_source(user, ["late"]) == []

        again = writer.remember([late], user_id=user)
        assert [e.text for e in store.episodes_by_source(user, ["late"])] == [late["content"]]
        assert again.memory_ids
        run = Editor(store).run(user)  # the failed run's lease was this process's: taken over
        assert run.applied_at is not None and run.operations > 0
        assert_invariants(store, user)
    finally:
        store.close()


LOCKER = """
import sqlite3, sys, time
conn = sqlite3.connect(sys.argv[1], isolation_level=None)
conn.execute("BEGIN IMMEDIATE")
print("locked", flush=True)
sys.stdin.readline()
conn.execute("ROLLBACK")
"""


def test_sqlite_locked_by_another_process_past_the_busy_timeout_refuses_cleanly(tmp_path, user):
    path = tmp_path / "memory.db"
    store = SQLiteStore(path, DIM, busy_timeout=0.5)
    locker = None
    try:
        seed(store, user)
        before = fingerprint(store.export_graph(user))
        writer = Writer(store)
        late = dict(LATE)
        locker = subprocess.Popen([sys.executable, "-c", LOCKER, str(path)], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, text=True)
        assert locker.stdout.readline().strip() == "locked"

        started = time.monotonic()
        with pytest.raises(StoreUnavailable) as refused:
            writer.remember([late], user_id=user)
        waited = time.monotonic() - started
        assert str(path) in str(refused.value) and "nothing was written" in str(refused.value)
        assert waited >= 0.5  # it waited for the lock before giving up
        with pytest.raises(StoreUnavailable, match="busy"):
            Editor(store).run(user)
        assert fingerprint(store.export_graph(user)) == before  # reads still work meanwhile

        locker.communicate("done\n", timeout=30)
        writer.remember([late], user_id=user)
        assert [e.text for e in store.episodes_by_source(user, ["late"])] == [late["content"]]
        assert Editor(store).run(user).applied_at is not None
        assert_invariants(store, user)
    finally:
        if locker is not None and locker.poll() is None:
            locker.kill()
            locker.wait(30)
        store.close()
