"""``dualmem token create|list|revoke`` through the CLI's own entry point: the token is printed once
and stored only hashed; list never shows it; revoke says what is left; mistakes are one line."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest

from dualmem_core.cli import main
from dualmem_core.service.tokens import TokenFile


@pytest.fixture
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("DUALMEM_STORE", f"sqlite:///{tmp_path / 'memory.db'}")
    monkeypatch.setenv("DUALMEM_EMBEDDER", "hashing")
    monkeypatch.delenv("DUALMEM_CONFIG", raising=False)
    return tmp_path / "memory.db.tokens.json"


def test_create_list_revoke(capsys: pytest.CaptureFixture[str], store: Path) -> None:
    assert main(["token", "list"]) == 0
    assert "no tokens in" in capsys.readouterr().out

    assert main(["token", "create", "--user", "u1", "--user", "u2", "--label", "laptop"]) == 0
    made = capsys.readouterr()
    secret = made.out.strip()
    assert secret.startswith("dm_") and "\n" not in secret  # the token alone on stdout
    assert "shown only now" in made.err and str(store) in made.err
    assert secret not in store.read_text() and oct(store.stat().st_mode)[-3:] == "600"
    assert TokenFile(store).check(secret) is not None

    assert main(["token", "create", "--all-users", "--json"]) == 0
    admin = json.loads(capsys.readouterr().out)
    assert admin["all_users"] and admin["token"].startswith("dm_")

    assert main(["token", "list"]) == 0
    listed = capsys.readouterr().out
    assert "laptop" in listed and "u1, u2" in listed and "all users" in listed and admin["id"] in listed
    assert secret not in listed and admin["token"] not in listed

    assert main(["token", "revoke", admin["id"]]) == 0
    assert "1 token left" in capsys.readouterr().out
    assert main(["token", "list", "--json"]) == 0
    assert [t["label"] for t in json.loads(capsys.readouterr().out)] == ["laptop"]


def test_mistakes_are_one_line(capsys: pytest.CaptureFixture[str], store: Path) -> None:
    assert main(["token", "create"]) == 2
    assert "--user U" in capsys.readouterr().err
    assert main(["token", "create", "--user", "u1", "--all-users"]) == 2
    capsys.readouterr()
    assert main(["token", "create", "--user", " u1"]) == 1
    assert "not allowed" in capsys.readouterr().err  # the user-id rule every frontend applies
    assert main(["token", "revoke", "tok_nope"]) == 1
    assert "dualmem token list" in capsys.readouterr().err
    store.write_text("{not json")
    assert main(["token", "list"]) == 1
    assert "cannot be read" in capsys.readouterr().err


def test_tokens_made_at_the_same_time_are_all_kept(store: Path) -> None:
    # each thread has its own TokenFile, as separate `dualmem token create` processes would
    made: list[str] = []

    def create(n: int) -> None:
        made.append(TokenFile(store).create([f"u{n}"])[1])

    threads = [threading.Thread(target=create, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(TokenFile(store).tokens()) == 8
    assert all(TokenFile(store).check(secret) for secret in made)
