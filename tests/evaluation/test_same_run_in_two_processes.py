"""The same evaluation in two separate Python processes prints the same bytes, on each store.

The in-process check (``test_the_loop_gives_the_same_numbers_every_run``) shares the interpreter's
state between its runs: hash seeds, caches, import-time tables. Here each run is a fresh
interpreter writing fresh users (a fresh file on SQLite, new user ids on the shared Neo4j): the
Writer and the Editor over the fixture's dev users, the metrics, then every dev question recalled
again with its ranked hits, scores and reasons (``one_evaluation.py``).
"""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from dualmem_core import open_store
from dualmem_core.evaluation.fixture_loading import load_fixture

ROOT = Path(__file__).resolve().parents[2]
HELPER = Path(__file__).with_name("one_evaluation.py")


USERS = 1  # one dev user (about 90 messages, 15 questions): two Neo4j processes in about 50 s


def evaluate_apart(url: str, prefix: str) -> str:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONHASHSEED": "random"}
    done = subprocess.run([sys.executable, str(HELPER), url, prefix, str(USERS)], capture_output=True,
                          text=True, cwd=ROOT, env=env, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def test_two_processes_print_the_same_evaluation(backend: str, tmp_path: Path,
                                                 request: pytest.FixtureRequest) -> None:
    prefixes = [f"run{uuid.uuid4().hex[:8]}-" for _ in range(2)]
    if backend == "sqlite":
        urls = [f"sqlite:///{tmp_path / f'{n}.db'}" for n in range(2)]
    else:
        urls = [request.getfixturevalue("neo4j_uri")] * 2
    try:
        first, second = (evaluate_apart(url, prefix) for url, prefix in zip(urls, prefixes, strict=True))
    finally:
        if backend == "neo4j":  # the server is shared with the rest of the session
            with open_store(urls[0]) as store:
                for prefix in prefixes:
                    for user in load_fixture(part="dev").users("dev")[:USERS]:
                        store.delete_user(prefix + user)
    assert '"score":' in first and '"recall@5":' in first  # something was measured and recalled
    assert first == second
