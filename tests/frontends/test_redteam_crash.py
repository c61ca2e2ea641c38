"""The red-team pass (issue 36): crashes and concurrency through the real frontends. A ``dualmem serve``
is SIGKILLed while it writes a batched remember and while it forgets a user, the moment its SQLite
write-ahead log starts to grow (inside the transaction, or just after its commit); a ``dualmem
import`` is killed between batches. Two ``dualmem serve`` processes share one SQLite file under
parallel remembers and forgets of the same users. Afterwards the file passes SQLite's integrity
check, every batch is wholly there or wholly absent, the graph passes the Editor's invariants, and
the next call works."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import closing, contextmanager
from pathlib import Path

import httpx
from serving import free_port, wait_until_listening

from dualmem_core.editor.invariants import check_graph
from dualmem_core.store import open_store

ROOT = Path(__file__).resolve().parents[2]
ENV = {**os.environ, "DUALMEM_EMBEDDER": "hashing", "DUALMEM_CACHE_MODE": "off"}


@contextmanager
def serving(db: Path, log: Path) -> Iterator[tuple[str, subprocess.Popen]]:
    # The log emptied first: a server killed, or one whose last writer left it behind, leaves it
    # long, and a write that reuses a long log from its start does not grow it, so
    # ``kill_when_the_log_grows`` would never see the write (it waited out its timeout).
    if db.exists():
        with closing(sqlite3.connect(db)) as conn:
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    port = free_port()
    with log.open("a") as out:
        server = subprocess.Popen(
            [sys.executable, "-m", "dualmem_core.cli", "serve", "--port", str(port), "--store", f"sqlite:///{db}"],
            cwd=ROOT, env=ENV, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT)
        try:
            wait_until_listening(server, port, log)
            yield f"http://127.0.0.1:{port}", server
        finally:
            if server.poll() is None:
                server.terminate()
            server.wait(timeout=30)


def _wal_size(db: Path) -> int:
    try:
        return Path(f"{db}-wal").stat().st_size
    except FileNotFoundError:
        return 0


def kill_when_the_log_grows(server: subprocess.Popen, db: Path, by: int, timeout: float = 120) -> bool:
    """SIGKILL ``server`` once its WAL has grown ``by`` bytes: the big write transaction is under way
    (SQLite appends its pages before the commit frame) or has just committed. False on timeout.
    The WAL only grows here: each round starts with it emptied (``serving``)."""
    start = _wal_size(db)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and server.poll() is None:
        if _wal_size(db) >= start + by:
            server.send_signal(signal.SIGKILL)
            server.wait(timeout=30)
            return True
        time.sleep(0.0005)
    return False


def sources(db: Path, prefix: str) -> list[str]:
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        found = conn.execute("SELECT source_id FROM episodes WHERE source_id LIKE ?", (f"{prefix}%",))
        return [r[0] for r in found]


def assert_whole(db: Path, *users: str) -> None:
    store = open_store(f"sqlite:///{db}", create=False)
    try:
        for user in users:
            checked = check_graph(store.export_graph(user))
            violations = {name: found for name, found in checked.items() if found}
            assert not violations, (user, violations)
    finally:
        store.close()


def post_in_background(url: str, body: dict) -> threading.Thread:
    def send() -> None:
        try:
            httpx.post(url, json=body, timeout=120)
        except httpx.TransportError:
            pass  # the server was killed under it: expected
    thread = threading.Thread(target=send, daemon=True)
    thread.start()
    return thread


def test_a_server_killed_inside_a_batched_remember_or_a_forget_leaves_all_or_nothing(tmp_path: Path) -> None:
    db, log, size = tmp_path / "memory.db", tmp_path / "server.log", 200
    with serving(db, log) as (base, _):
        httpx.post(f"{base}/v1/users/u1/memories", json={"content": "I live in Oslo.", "source_id": "seed"}
                   ).raise_for_status()
    killed, outcomes = 0, []
    for round_ in range(3):
        batch = [{"content": f"Note {round_}-{i}: I bought {i} apples in Bergen.",
                  "source_id": f"b{round_}-{i}"} for i in range(size)]
        with serving(db, log) as (base, server):
            sender = post_in_background(f"{base}/v1/users/u1/memories", {"content": batch})
            killed += kill_when_the_log_grows(server, db, by=64 * 1024)  # 16 pages: the batch's write
            sender.join(timeout=120)
        outcomes.append(len(sources(db, f"b{round_}-")))
        assert outcomes[-1] in (0, size)  # one transaction: whole or absent
        assert_whole(db, "u1")
    assert killed == 3, "the kill never landed while the server was writing"
    with serving(db, log) as (base, _):  # the store takes the batch after the crashes
        httpx.post(f"{base}/v1/users/u1/memories", json={"content": batch}, timeout=120).raise_for_status()
    assert len(sources(db, f"b{round_}-")) == size

    for _ in range(3):  # forget everything of u1, killed the same way
        before = len(sources(db, ""))
        with serving(db, log) as (base, server):
            sender = threading.Thread(daemon=True, target=lambda: _quietly(
                lambda: httpx.delete(f"{base}/v1/users/u1", timeout=120)))
            sender.start()
            landed = kill_when_the_log_grows(server, db, by=32 * 1024, timeout=30)
            sender.join(timeout=120)
        left = sources(db, "")
        outcomes.append(len(left))
        assert len(left) in (0, before), left  # forget of a user is one transaction too
        assert_whole(db, "u1")
        if landed:
            break
        # The forget committed (and its log was checkpointed away) between two looks at the log,
        # on an idle machine: tell the batch again and kill the next forget.
        with serving(db, log) as (base, _):
            told = httpx.post(f"{base}/v1/users/u1/memories", json={"content": batch}, timeout=120)
            told.raise_for_status()
    killed += landed
    print("messages found after each kill (3 remembers of 200, then forgets of all):", outcomes)
    assert killed == 4, "the kill never landed while the server was forgetting"
    with serving(db, log) as (base, _):  # and the store works: the forget goes through now
        assert httpx.delete(f"{base}/v1/users/u1", timeout=120).status_code == 200
        assert httpx.get(f"{base}/v1/users/u1/recall", params={"q": "Oslo"}).json()["hits"] == []
    assert sources(db, "") == []


def _quietly(call: Callable[[], object]) -> None:
    try:
        call()
    except httpx.TransportError:
        pass


def test_an_import_killed_between_batches_keeps_whole_batches_and_a_rerun_completes(tmp_path: Path) -> None:
    db, lines, batch = tmp_path / "memory.db", 300, 20
    jsonl = tmp_path / "chat.jsonl"
    jsonl.write_text("".join(json.dumps({"user_id": "u1", "session_id": "s1", "source_id": f"m{i}",
                                         "content": f"Day {i}: I walked {i} km in Tromsø."}) + "\n"
                             for i in range(lines)))
    command = [sys.executable, "-m", "dualmem_core.cli", "import", str(jsonl), "--store", f"sqlite:///{db}",
               "--batch-size", str(batch)]
    with (tmp_path / "import.log").open("w") as out:
        first = subprocess.Popen(command, cwd=ROOT, env=ENV, stdout=out, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and first.poll() is None and len(_stored(db)) < 3 * batch:
            time.sleep(0.01)
        killed = kill_when_the_log_grows(first, db, by=16 * 1024)
    stored = sources(db, "m")
    assert killed and 0 < len(stored) < lines, len(stored)
    assert len(stored) % batch == 0 and len(set(stored)) == len(stored)  # whole batches, no copies
    assert_whole(db, "u1")
    again = subprocess.run(command, cwd=ROOT, env=ENV, capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stderr
    final = sources(db, "m")
    assert sorted(final) == sorted(f"m{i}" for i in range(lines))  # the rest, none twice


def _stored(db: Path) -> list[str]:
    try:
        return sources(db, "m")
    except sqlite3.Error:
        return []  # not created yet, or mid-creation


def test_two_servers_on_one_sqlite_file_under_parallel_remember_and_forget(tmp_path: Path) -> None:
    db, log = tmp_path / "memory.db", tmp_path / "server.log"
    with serving(db, log) as (first, _), serving(db, log) as (second, _):
        kept: list[str] = []
        failures: list[str] = []
        lock = threading.Lock()

        def writer(base: str, name: str) -> None:
            with httpx.Client(base_url=base, timeout=120) as http:
                for i in range(40):
                    sid = f"{name}-{i}"
                    r = http.post("/v1/users/u1/memories", json={"content": f"{name} says {i} things.",
                                                                 "source_id": sid})
                    if r.status_code != 201:
                        failures.append(f"remember {sid}: {r.status_code} {r.text}")
                        continue
                    if i % 2 == 0:  # forget every second at once, on the other server
                        other = second if base == first else first
                        gone = httpx.delete(f"{other}/v1/users/u1/memories", params={"source_id": sid},
                                            timeout=120)
                        if gone.status_code != 200 or gone.json()["source_ids"] != [sid]:
                            failures.append(f"forget {sid}: {gone.status_code} {gone.text}")
                        continue
                    with lock:
                        kept.append(sid)

        def churn(base: str) -> None:  # u2 remembered and wholly forgotten over and over
            with httpx.Client(base_url=base, timeout=120) as http:
                for i in range(10):
                    for r in (http.post("/v1/users/u2/memories", json={"content": f"u2 note {i}"}),
                              http.delete("/v1/users/u2")):
                        if r.status_code >= 400:
                            failures.append(f"u2 {r.request.method}: {r.status_code} {r.text}")

        threads = [threading.Thread(target=writer, args=(first, "a")),
                   threading.Thread(target=writer, args=(second, "b")),
                   threading.Thread(target=writer, args=(first, "c")),
                   threading.Thread(target=churn, args=(second,))]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=600)
        assert not failures, failures[:5]
    stored = sources(db, "")
    assert sorted(s for s in stored if s[0] in "abc") == sorted(kept)  # each kept once, each forgotten gone
    assert_whole(db, "u1", "u2")
