"""Editor runs in other processes, on both stores: one killed with SIGKILL inside publish (right
before its transaction commits), and two at once on one user (the store lease refuses the second).

The child runs this file as a script (``python tests/reliability/test_reliability_processes.py MODE ...``);
its fault points are patched into the child only, production code has none.
"""

from __future__ import annotations

import dataclasses
import json
import os
import signal
import subprocess
import sys
import threading
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from dualmem_core import ConflictError, Editor, Writer, open_store
from dualmem_core.editor.invariants import check_graph
from dualmem_core.store import DEFAULT_DIMENSION

ROOT = Path(__file__).resolve().parents[2]
T0 = datetime(2025, 1, 1, tzinfo=UTC)
# Moves and repeats: enough for the Editor to supersede, dedupe and mark reviews.
SCRIPT = [
    "I live in Boston.", "My sister Lena lives in Denver.", "I love ramen.", "I work at Acme.",
    "I moved to Chicago last month.", "I really love ramen.", "I work at Acme now.",
    "I moved to Seattle last week.", "Lena and I had tacos in Denver.", "I live in Seattle now.",
]
WAIT = 120.0  # generous: a child opening Neo4j on a loaded 2-core machine


def seed(store, user: str, prefix: str = "p") -> None:
    messages = [{"role": "user", "content": text, "source_id": f"{prefix}{i}",
                 "at": T0 + timedelta(days=9 * i)} for i, text in enumerate(SCRIPT)]
    Writer(store).remember(messages, user_id=user)


def fingerprint(graph) -> dict[str, list[str]]:
    """Every record of a graph (embeddings aside) as sorted text, to compare two exports."""
    out = {}
    for table in ("episodes", "memories", "versions", "entities", "edges"):
        rows = [{k: v for k, v in dataclasses.asdict(r).items() if k != "embedding"}
                for r in getattr(graph, table)]
        out[table] = sorted(repr(sorted(row.items())) for row in rows)
    return out


def assert_invariants(store, user: str) -> None:
    violations = {name: found for name, found in check_graph(store.export_graph(user)).items() if found}
    assert not violations, violations


def spawn(mode: str, url: str, user: str, folder: Path, lease_seconds: float = 60.0) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    return subprocess.Popen(
        [sys.executable, __file__, mode, url, user, str(folder), str(lease_seconds)],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def wait_for(path: Path, child: subprocess.Popen) -> None:
    deadline = time.monotonic() + WAIT
    while not path.exists():
        if child.poll() is not None:
            raise AssertionError(f"child exited with {child.returncode} before {path.name}: "
                                 f"{child.stderr.read() if child.stderr else ''}")
        assert time.monotonic() < deadline, f"no {path.name} from the child within {WAIT} s"
        time.sleep(0.05)


def stop(child: subprocess.Popen) -> None:
    if child.poll() is None:
        child.kill()
    child.communicate(timeout=30)


def test_an_editor_killed_inside_publish_leaves_the_store_as_before_and_the_next_run_completes(
    store, store_url, user, tmp_path
):
    seed(store, user)
    before = fingerprint(store.export_graph(user))
    child = spawn("kill-at-commit", store_url, user, tmp_path)
    try:
        wait_for(tmp_path / "about-to-commit", child)
        os.kill(child.pid, signal.SIGKILL)
        child.wait(30)
    finally:
        stop(child)
    assert child.returncode == -signal.SIGKILL
    sent = json.loads((tmp_path / "about-to-commit").read_text())
    assert sent["operations"] > 0, "the child was killed with operations written but not committed"

    assert fingerprint(store.export_graph(user)) == before, "a killed publish left part of itself behind"
    assert store.list_runs(user) == []
    assert_invariants(store, user)

    # The dead run's lease names a process on this host that no longer exists: taken over at once.
    rerun = Editor(store).run(user)
    assert rerun.operations > 0 and rerun.applied_at is not None
    assert [r.run_id for r in store.list_runs(user)] == [rerun.run_id]
    assert_invariants(store, user)


def test_a_second_editor_in_another_process_is_refused_and_other_users_are_not(
    store, store_url, user, other_user, tmp_path
):
    seed(store, user)
    seed(store, other_user, prefix="o")
    lease_seconds = 2.0  # renewed every 0.67 s by the child while it holds the run
    child = spawn("hold", store_url, user, tmp_path, lease_seconds)
    try:
        wait_for(tmp_path / "holding", child)
        with pytest.raises(ConflictError) as refused:
            Editor(store).run(user)
        message = str(refused.value)
        assert f":{child.pid}:" in message and user in message and "expires at" in message
        time.sleep(lease_seconds * 1.5)  # past the first expiry: the child renewed it
        with pytest.raises(ConflictError):
            Editor(store).run(user, dry_run=True)
        other = Editor(store).run(other_user)
        assert other.applied_at is not None
        (tmp_path / "go").touch()
        out, err = child.communicate(timeout=WAIT)
    finally:
        stop(child)
    assert child.returncode == 0, err
    held = json.loads(out)
    assert held["operations"] > 0
    again = Editor(store).run(user)  # released: runs (a fixpoint, so little or nothing to do)
    assert again.user_id == user
    assert {r.run_id for r in store.list_runs(user)} >= {held["run_id"]}
    assert_invariants(store, user)


def test_a_lease_of_a_holder_elsewhere_expires_and_forgetting_the_user_clears_it(store, user):
    seed(store, user)
    store.acquire_lease(user, "another-host:4242:abcd", 1.0)
    with pytest.raises(ConflictError, match="another-host:4242:abcd"):
        Editor(store).run(user)
    time.sleep(1.1)
    assert Editor(store).run(user).applied_at is not None

    store.acquire_lease(user, "another-host:4242:abcd", 3600)
    store.delete_user(user)
    taken = store.acquire_lease(user, "this-host:1:x", 5)
    assert taken.owner == "this-host:1:x"
    store.release_lease(user, "this-host:1:x")


def test_of_many_acquirers_racing_for_one_lease_exactly_one_wins(store, user):
    owners = [f"host-{i}:{i}:race" for i in range(8)]
    won, refused, errors = [], [], []
    start = threading.Barrier(len(owners))

    def take(owner: str) -> None:
        start.wait()
        try:
            store.acquire_lease(user, owner, 30)
            won.append(owner)
        except ConflictError:
            refused.append(owner)
        except Exception as exc:  # noqa: BLE001 - asserted below
            errors.append(exc)

    threads = [threading.Thread(target=take, args=(o,)) for o in owners]
    for t in threads:
        t.start()
    for t in threads:
        t.join(WAIT)
    assert not errors and len(won) == 1 and len(refused) == len(owners) - 1
    store.release_lease(user, won[0])


# -- the child ---------------------------------------------------------------------------------


def _child(mode: str, url: str, user: str, folder: Path, lease_seconds: float) -> None:
    store = open_store(url, dimension=DEFAULT_DIMENSION)
    if mode == "kill-at-commit":
        _stall_before_commit(store, folder / "about-to-commit")
        Editor(store, lease_seconds=lease_seconds).run(user)
        raise SystemExit("the publish should have stalled until killed")

    def hold(stage: str) -> None:  # inside the run, holding its lease, until the test says go
        if not (folder / "holding").exists():
            (folder / "holding").touch()
            while not (folder / "go").exists():
                time.sleep(0.05)

    run = Editor(store, lease_seconds=lease_seconds).run(user, on_stage=hold)
    print(json.dumps({"run_id": run.run_id, "operations": run.operations}))
    store.close()


def _stall_before_commit(store, marker: Path) -> None:
    """Every operation of the run is written in its transaction; stop there until killed."""
    def stall(count: int) -> None:
        # Written whole, then renamed: the parent kills as soon as the marker exists, which could
        # fall between write_text creating the file and writing it (an empty file, read as JSON).
        partial = marker.with_suffix(".partial")
        partial.write_text(json.dumps({"operations": count}))
        partial.replace(marker)
        time.sleep(600)

    if url_is_sqlite(store.url):
        original_apply = type(store)._apply_op
        applied = [0]

        def apply_op(self, conn, op, now):
            applied[0] += 1
            return original_apply(self, conn, op, now)

        def bump(self, conn, user_id):  # the last statement of apply_changes before COMMIT
            stall(applied[0])

        type(store)._apply_op = apply_op
        type(store)._bump = bump
    else:
        original_plan = type(store)._apply_plan

        def apply_plan(self, tx, user_id, ops, *rest):  # then only the run record and COMMIT
            original_plan(self, tx, user_id, ops, *rest)
            stall(len(ops))

        type(store)._apply_plan = apply_plan


def url_is_sqlite(url: str) -> bool:
    return url.startswith("sqlite:")


if __name__ == "__main__":
    _child(sys.argv[1], sys.argv[2], sys.argv[3], Path(sys.argv[4]), float(sys.argv[5]))
