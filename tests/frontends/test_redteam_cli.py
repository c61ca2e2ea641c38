"""The red-team pass on the CLI (issue 36): bad arguments, stdin and files given to ``dualmem`` as a
subprocess. Each is refused with exit code 1 (our refusal) or 2 (a usage error) and a message that
says why, never "unexpected error" or a traceback, and nothing is written."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# (what, arguments, stdin, exit code, words the message holds)
CASES: list[tuple[str, list[str], bytes | None, int, str]] = [
    ("empty text", ["remember", "--user", "u1", ""], None, 1, "empty"),
    ("stdin not UTF-8", ["remember", "--user", "u1", "-"], b"\xff\xfe", 1, "not valid Unicode"),
    ("stdin over the limit", ["remember", "--user", "u1", "-"], b"x " * 60_000, 1, "at most 100,000"),
    ("path-like user", ["remember", "--user", "../x", "hi"], None, 1, "is not allowed"),
    ("user with a leading space", ["remember", "--user", " u", "hi"], None, 1, "is not allowed"),
    ("600-character user", ["remember", "--user", "u" * 600, "hi"], None, 1, "the limit is 512"),
    ("empty source id", ["remember", "--user", "u1", "hi", "--source-id", ""], None, 1, "non-empty"),
    ("empty memory id for history (fixed)", ["history", "--user", "u1", ""], None, 1,
     "the memory id is empty"),
    ("empty memory id for forget (fixed)", ["forget", "--user", "u1", "--memory-id", ""], None, 1,
     "the memory id is empty"),
    ("source id with a trailing space (fixed)", ["remember", "--user", "u1", "hi", "--source-id", "a "], None,
     1, "starts or ends with whitespace"),
    ("February 30", ["remember", "--user", "u1", "hi", "--at", "2024-02-30"], None, 2, "is not a date-time"),
    ("off the calendar in UTC", ["recall", "--user", "u1", "hi", "--as-of", "9999-12-31T23:59:59-14:00"],
     None, 2, "outside the calendar"),
    ("huge k", ["recall", "--user", "u1", "hi", "-k", "99999999999999999999999"], None, 2, "whole number"),
    ("not a store", ["recall", "--user", "u1", "hi", "--store", "sqlite:////etc/passwd"], None, 1,
     "not a usable dualmem SQLite store"),
]


@pytest.mark.parametrize(("what", "arguments", "stdin", "code", "words"), CASES, ids=[c[0] for c in CASES])
def test_bad_cli_input_is_refused_with_a_reason(tmp_path: Path, what: str, arguments: list[str],
                                                stdin: bytes | None, code: int, words: str) -> None:
    db = tmp_path / "memory.db"
    env = {**os.environ, "DUALMEM_EMBEDDER": "hashing", "DUALMEM_CACHE_MODE": "off",
           "DUALMEM_STORE": f"sqlite:///{db}"}
    done = subprocess.run([sys.executable, "-m", "dualmem_core.cli", *arguments], cwd=ROOT, env=env,
                          input=stdin or b"", capture_output=True, timeout=120)
    said = (done.stdout + done.stderr).decode("utf-8", "replace")
    assert done.returncode == code and words in said, said
    assert "unexpected error" not in said and "Traceback" not in said, said
    if db.exists():
        with sqlite3.connect(db) as conn:
            assert conn.execute("SELECT count(*) FROM episodes").fetchone()[0] == 0


def test_an_import_line_with_a_nul_in_its_source_id_is_refused(tmp_path: Path) -> None:
    """Fixed: the message was stored and ``forget --source-id`` could never match it again."""
    lines = tmp_path / "chat.jsonl"
    lines.write_text('{"user_id": "u1", "source_id": "a\\u0000b", "content": "hello"}\n')
    env = {**os.environ, "DUALMEM_EMBEDDER": "hashing", "DUALMEM_CACHE_MODE": "off"}
    done = subprocess.run([sys.executable, "-m", "dualmem_core.cli", "import", str(lines), "--store",
                           f"sqlite:///{tmp_path / 'memory.db'}"], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 1 and "source_id holds a NUL" in done.stderr, done.stderr


def test_an_import_line_whose_source_id_ends_in_a_space_is_refused_naming_it(tmp_path: Path) -> None:
    """Fixed: stored as an id apart from the same id without the space."""
    lines = tmp_path / "chat.jsonl"
    lines.write_text('{"user_id": "u1", "source_id": "m1", "content": "hello"}\n'
                     '{"user_id": "u1", "source_id": "m2 ", "content": "again"}\n')
    env = {**os.environ, "DUALMEM_EMBEDDER": "hashing", "DUALMEM_CACHE_MODE": "off"}
    db = tmp_path / "memory.db"
    done = subprocess.run([sys.executable, "-m", "dualmem_core.cli", "import", str(lines), "--store",
                           f"sqlite:///{db}"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 1 and "chat.jsonl:2: " in done.stderr, done.stderr
    assert "source_id 'm2 ' starts or ends with whitespace" in done.stderr, done.stderr
    if db.exists():
        with sqlite3.connect(db) as conn:
            assert conn.execute("SELECT count(*) FROM episodes").fetchone()[0] == 0
