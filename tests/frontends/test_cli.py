"""The ``dualmem`` command line: every memory and Editor verb against a temporary SQLite store,
the settings precedence (flag > environment > config file > default), and the error paths
(one line on stderr, a non-zero exit code, no traceback)."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import types
from pathlib import Path

import pytest

from dualmem_core.cli import main

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def clean_settings(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No setting from the machine running the tests: no DUALMEM_* variable, no config file."""
    for name in list(os.environ):
        if name.startswith("DUALMEM_") or name == "OPENAI_API_KEY":
            monkeypatch.delenv(name)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg-config"))


@pytest.fixture
def store(tmp_path: Path) -> list[str]:
    return ["--store", f"sqlite:///{tmp_path}/m.db"]


def run(capsys: pytest.CaptureFixture, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def ok(capsys: pytest.CaptureFixture, *argv: str) -> str:
    code, out, err = run(capsys, *argv)
    assert code == 0, err
    return out


def one_line_error(err: str) -> str:
    assert "Traceback" not in err
    assert len(err.strip().splitlines()) == 1, err
    return err.strip()


def remember_move(capsys: pytest.CaptureFixture, store: list[str]) -> None:
    ok(capsys, "remember", *store, "--user", "u1", "--at", "2026-01-05", "--source-id", "m1",
       "I live in Seattle.")
    ok(capsys, "remember", *store, "--user", "u1", "--at", "2026-03-02T18:00:00Z", "--source-id", "m2",
       "I moved to Portland last week.")


# -- memory verbs -------------------------------------------------------------------------------


def test_remember_then_recall_as_table_and_json(capsys, store):
    out = ok(capsys, "remember", *store, "--user", "u1", "--session", "s1", "--at", "2026-03-02T18:00Z",
             "--source-id", "msg-17", "I moved to Portland last week.")
    assert "1 fact" in out and "lives_in Portland" in out and "since 2026-02-23" in out

    table = ok(capsys, "recall", *store, "--user", "u1", "Where does the user live?")
    header, *rows = table.splitlines()
    assert header.split() == ["SCORE", "NOW", "KIND", "VALID", "SOURCES", "MEMORY", "TEXT"]
    assert any("current" in r and "fact" in r and "msg-17" in r and "Portland" in r for r in rows)

    hits = json.loads(ok(capsys, "recall", *store, "--user", "u1", "-k", "1", "--json", "Portland"))
    assert len(hits) == 1 and hits[0]["sources"] == ["msg-17"] and hits[0]["valid_to"] is None
    assert set(hits[0]) >= {"memory_id", "score", "why", "current", "kind", "text"}
    assert json.loads(ok(capsys, "recall", *store, "--user", "u1", "--session", "other", "--json",
                         "Portland")) == []


def test_remember_reads_stdin(capsys, store, monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.StringIO("My sister Lena lives in Seattle.\n"))
    result = json.loads(ok(capsys, "remember", *store, "--user", "u1", "--json", "-"))
    assert len(result["episode_ids"]) == 1 and result["memory_ids"]


def test_as_of_recall_after_a_move_and_an_edit(capsys, store):
    remember_move(capsys, store)
    ok(capsys, "edit", *store, "--user", "u1")
    then = json.loads(ok(capsys, "recall", *store, "--user", "u1", "--as-of", "2026-02-01", "--json",
                         "Where does the user live?"))
    facts = [h["text"] for h in then if h["kind"] == "fact"]
    assert facts == ["user lives in Seattle"]
    now = json.loads(ok(capsys, "recall", *store, "--user", "u1", "--json", "Where does the user live?"))
    current = {h["text"]: h["current"] for h in now if h["kind"] == "fact"}
    assert current == {"user lives in Portland": True, "user lives in Seattle": False}


def test_reads_of_a_missing_store_fail_and_only_writes_create(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    url = ["--store", "sqlite:///tmp/x.db"]  # meant /tmp/x.db: relative to the working directory
    where = tmp_path / "tmp" / "x.db"
    for argv in (["recall", "--user", "u1", "q"], ["history", "mem_x"], ["runs", "--user", "u1"],
                 ["edit", "--user", "u1"], ["forget", "--user", "u1", "--source-id", "s1"]):
        code, _, err = run(capsys, *argv, *url)
        assert code == 1
        assert f"no store at {where}" in one_line_error(err) and "dualmem remember" in err
    assert not (tmp_path / "tmp").exists()
    code, _, err = run(capsys, "remember", *url, "--user", "u1", "I live in Lisbon.")
    assert code == 0 and err == f"dualmem: created a new store at {where}\n"
    code, _, err = run(capsys, "remember", *url, "--user", "u1", "I work at Acme.")
    assert code == 0 and err == ""  # said once, when it was created
    assert json.loads(ok(capsys, "recall", *url, "--user", "u1", "--json", "Lisbon"))


def test_a_reused_source_id_is_a_no_op_or_an_error(capsys, store, tmp_path):
    ok(capsys, "remember", *store, "--user", "u1", "--source-id", "s-1", "I live in Lisbon.")
    out = ok(capsys, "remember", *store, "--user", "u1", "--source-id", "s-1", "I live in Lisbon.")
    assert out == "already stored for u1: source id s-1 has this text; nothing new was written\n"
    code, _, err = run(capsys, "remember", *store, "--user", "u1", "--source-id", "s-1", "I live in Rome.")
    assert code == 1 and "source_id 's-1' already names a different message" in one_line_error(err)
    [hit] = json.loads(ok(capsys, "recall", *store, "--user", "u1", "--json", "-k", "1", "Lisbon"))
    assert hit["sources"] == ["s-1"]
    path = tmp_path / "changed.jsonl"
    path.write_text(json.dumps({"user_id": "u1", "source_id": "s-2", "content": "I work at Acme."}) + "\n"
                    + json.dumps({"user_id": "u1", "source_id": "s-1", "content": "I live in Rome."}) + "\n")
    code, _, err = run(capsys, "import", *store, str(path))
    assert code == 1 and f"{path}:2: source_id 's-1' already names" in one_line_error(err)
    hits = json.loads(ok(capsys, "recall", *store, "--user", "u1", "--json", "Acme"))
    assert all(h["sources"] != ["s-2"] for h in hits)  # refused before anything was written


def test_user_ids_are_refused_not_stripped(capsys, store):
    for bad in (" u1", "u1 ", "u\n1", "a/b"):
        code, _, err = run(capsys, "remember", *store, "--user", bad, "I live in Lisbon.")
        assert code == 1 and "is not allowed: a user id is 1-512 printable" in one_line_error(err)
    assert not Path(store[1].removeprefix("sqlite:///")).exists()  # refused before a store was made


def test_history_as_table_and_json(capsys, store):
    remember_move(capsys, store)
    ok(capsys, "edit", *store, "--user", "u1")
    hits = json.loads(ok(capsys, "recall", *store, "--user", "u1", "--json", "Seattle"))
    hit = next(h for h in hits if h["kind"] == "fact" and "Seattle" in h["text"])
    out = ok(capsys, "history", *store, hit["memory_id"])
    assert out.startswith(f"memory {hit['memory_id']} of user u1")
    assert "VERSION" in out and "sources: m1" in out
    found = json.loads(ok(capsys, "history", *store, hit["memory_id"], "--user", "u1", "--json"))
    assert found["memory_id"] == hit["memory_id"] and found["sources"] == ["m1"]
    assert len(found["versions"]) == 2  # the Editor closed the belief in "still in Seattle"
    assert found["superseded_by"]


def test_forget_prints_the_receipt(capsys, store):
    remember_move(capsys, store)
    out = ok(capsys, "forget", *store, "--user", "u1", "--source-id", "m1")
    assert out.startswith("forgot for user u1: 1 episode, 2 memories")
    hits = json.loads(ok(capsys, "recall", *store, "--user", "u1", "--json", "Seattle"))
    assert all("m1" not in h["sources"] for h in hits)

    code, _, err = run(capsys, "forget", *store, "--user", "u1", "--everything")
    assert code == 2 and "--yes" in one_line_error(err)
    receipt = json.loads(ok(capsys, "forget", *store, "--user", "u1", "--everything", "--yes", "--json"))
    assert receipt and all(isinstance(n, int) for n in receipt.values())
    assert json.loads(ok(capsys, "recall", *store, "--user", "u1", "--json", "Portland")) == []


# -- import -------------------------------------------------------------------------------------


def test_import_jsonl_reports_counts_and_skips_what_is_stored(capsys, store, tmp_path):
    lines = [
        {"user_id": "a", "session_id": "s1", "source_id": "a1", "at": "2026-01-05T10:00", "content":
         "I live in Seattle."},
        {"user_id": "a", "session_id": "s1", "source_id": "a2", "role": "assistant", "content": "Noted!"},
        {"user_id": "a", "session_id": "s2", "source_id": "a3", "at": "2026-03-02T18:00:00+00:00",
         "speaker": "Ann", "content": "I moved to Portland last week."},
        {"user_id": "b", "agent_id": "planner", "text": "I work at Acme.", "extra": "ignored"},
    ]
    path = tmp_path / "conversations.jsonl"
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n\n")
    code, out, err = run(capsys, "import", *store, str(path), "--batch-size", "2")
    assert code == 0, err
    assert out.startswith(f"imported 4 messages from {path} for 2 users (2 sessions) in 3 batches")
    assert "Traceback" not in err
    hits = json.loads(ok(capsys, "recall", *store, "--user", "a", "--json", "Portland"))
    assert "a3" in hits[0]["sources"]

    again = json.loads(ok(capsys, "import", *store, str(path), "--json"))
    assert again["skipped_existing"] == 3 and again["messages"] == 1  # b's line has no source id


def test_import_takes_the_evaluation_fixture_format(capsys, store, tmp_path):
    path = tmp_path / "part.jsonl"
    fixture = (ROOT / "fixtures/eval/conversations.jsonl").read_text().splitlines()
    path.write_text("\n".join(fixture[:12]) + "\n")
    report = json.loads(ok(capsys, "import", *store, str(path), "--json"))
    assert report["messages"] == 12 and report["episodes"] == 12 and report["facts"] > 0


def test_import_names_the_bad_line_and_stores_nothing(capsys, store, tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_text('{"user_id": "a", "content": "fine"}\n{"user_id": "a", "at": "yesterday", '
                    '"content": "x"}\n')
    code, _, err = run(capsys, "import", *store, str(path))
    assert code == 1 and f"{path}:2: 'at'" in one_line_error(err)
    assert "no store at" in run(capsys, "recall", *store, "--user", "a", "fine")[2]  # not even created
    code, _, err = run(capsys, "import", *store, str(tmp_path / "missing.jsonl"))
    assert code == 1 and "no such file" in one_line_error(err)


# -- the Editor ---------------------------------------------------------------------------------


def test_edit_runs_rollback_round_trip(capsys, store):
    remember_move(capsys, store)
    dry = json.loads(ok(capsys, "edit", *store, "--user", "u1", "--dry-run", "--json"))
    assert dry["counts"]["supersede"] == {"supersede": 1} and dry["applied_at"] is None
    assert json.loads(ok(capsys, "runs", *store, "--user", "u1", "--json")) == []

    out = ok(capsys, "edit", *store, "--user", "u1")
    assert "operations applied, 0 skipped" in out and "supersede 1" in out
    run_id = out.split()[2]
    assert run_id.startswith("run-") and f"dualmem rollback {run_id}" in out

    table = ok(capsys, "runs", *store, "--user", "u1")
    assert run_id in table and "supersede: supersede 1" in table
    out = ok(capsys, "rollback", *store, run_id)
    assert out.startswith(f"rolled back {run_id} for user u1")
    runs = json.loads(ok(capsys, "runs", *store, "--user", "u1", "--json"))
    assert [r["kind"] for r in runs] == ["edit", "rollback"] and runs[1]["rollback_of"] == run_id
    now = json.loads(ok(capsys, "recall", *store, "--user", "u1", "--json", "Where does the user live?"))
    assert all(h["current"] for h in now if h["kind"] == "fact")  # Seattle is believed again

    again = ok(capsys, "rollback", *store, run_id)  # issue 36: it printed the first one's counts again
    assert again.startswith(f"{run_id} was already rolled back for user u1 (as rollback-{run_id}, at ")
    assert "nothing was undone this time" in again and "operations undone" not in again
    repeat = json.loads(ok(capsys, "rollback", *store, run_id, "--user", "u1", "--json"))
    assert repeat["already_rolled_back"] is True and repeat["run_id"] == f"rollback-{run_id}"
    assert len(json.loads(ok(capsys, "runs", *store, "--user", "u1", "--json"))) == 2  # no third record

    code, _, err = run(capsys, "rollback", *store, "run-nope", "--user", "u1")
    assert code == 1 and "no Editor run 'run-nope'" in one_line_error(err)


# -- settings -----------------------------------------------------------------------------------


def settings(capsys: pytest.CaptureFixture, *argv: str) -> dict[str, dict[str, str]]:
    return json.loads(ok(capsys, "config", "--json", *argv))["settings"]


def test_settings_precedence_flag_over_environment_over_file(capsys, monkeypatch, tmp_path):
    config = tmp_path / "dualmem.toml"
    config.write_text(f'store = "sqlite:///{tmp_path}/file.db"\nembedder = "hashing:64"\n'
                      '[llm]\nmodel = "from-file"\ntimeout = 30\n')
    got = settings(capsys, "--config", str(config))
    assert got["DUALMEM_STORE"] == {"value": f"sqlite:///{tmp_path}/file.db", "from": f"config file {config}"}
    assert got["DUALMEM_LLM_MODEL"]["value"] == "from-file" and got["DUALMEM_LLM_TIMEOUT"]["value"] == "30.0"

    monkeypatch.setenv("DUALMEM_CONFIG", str(config))  # found without --config
    monkeypatch.setenv("DUALMEM_STORE", f"sqlite:///{tmp_path}/env.db")
    monkeypatch.setenv("DUALMEM_LLM_MODEL", "")  # empty counts as unset: the file's value holds
    got = settings(capsys)
    assert got["DUALMEM_STORE"] == {"value": f"sqlite:///{tmp_path}/env.db", "from": "environment"}
    assert got["DUALMEM_LLM_MODEL"]["value"] == "from-file"

    got = settings(capsys, "--store", f"sqlite:///{tmp_path}/flag.db", "--embedder", "hashing:32")
    assert got["DUALMEM_STORE"] == {"value": f"sqlite:///{tmp_path}/flag.db", "from": "flag"}
    assert got["DUALMEM_EMBEDDER"] == {"value": "hashing:32", "from": "flag"}


def test_commands_open_the_store_the_settings_name(capsys, monkeypatch, tmp_path):
    default = tmp_path / "xdg-config" / "dualmem" / "config.toml"
    default.parent.mkdir(parents=True)
    default.write_text(f'store = "sqlite:///{tmp_path}/default-file.db"\nembedder = "hashing:64"\n')
    ok(capsys, "remember", "--user", "u1", "I live in Seattle.")
    assert (tmp_path / "default-file.db").exists()
    monkeypatch.setenv("DUALMEM_STORE", f"sqlite:///{tmp_path}/env.db")
    ok(capsys, "remember", "--user", "u1", "I live in Seattle.")
    assert (tmp_path / "env.db").exists()
    hits = json.loads(ok(capsys, "recall", "--user", "u1", "--json", "Seattle"))
    assert len(hits) == 2  # the env store got one message: observation and fact


def test_settings_errors_are_one_line(capsys, tmp_path, store):
    bad = tmp_path / "bad.toml"
    for text, expected in [('store = "unterminated\n', "is not valid TOML"),
                           ('[llm]\nmodle = "x"\n', "unknown key 'llm.modle'"),
                           ("store = 3\n", "store = 3 should be a str"),
                           ("[llm]\ntimeout = -1\n", "set as llm.timeout in config file")]:
        bad.write_text(text)
        code, _, err = run(capsys, "recall", "--config", str(bad), "--user", "u1", "x")
        assert code == 1 and expected in one_line_error(err)
    code, _, err = run(capsys, "recall", *store, "--config", str(tmp_path / "nope.toml"), "--user", "u", "x")
    assert code == 1 and "does not exist" in one_line_error(err)
    code, _, err = run(capsys, "recall", *store, "--embedder", "bogus", "--user", "u", "x")
    assert code == 1 and "from the command line" in one_line_error(err)


def test_api_keys_are_masked_in_config(capsys, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret")
    out = ok(capsys, "config")
    assert "sk-secret" not in out and "***" in out and "(OPENAI_API_KEY)" in out


# -- errors -------------------------------------------------------------------------------------


def test_user_errors_are_one_line_with_an_exit_code(capsys, store):
    code, _, err = run(capsys, "remember", *store, "--user", "u1", "--at", "2026-13-01", "hi")
    assert code == 2 and "argument --at: '2026-13-01' is not a date-time" in one_line_error(err)
    code, _, err = run(capsys, "recall", *store, "--user", "u1", "--as-of", "last week", "x")
    assert code == 2 and one_line_error(err).startswith("dualmem recall: error: argument --as-of")
    code, _, err = run(capsys, "recall", *store, "x")
    assert code == 2 and "--user" in one_line_error(err)
    code, _, err = run(capsys, "recall", *store, "--user", "u1", "--bogus", "x")
    assert code == 2 and "unrecognized arguments: --bogus" in one_line_error(err)
    ok(capsys, "remember", *store, "--user", "u1", "I live in Lisbon.")
    code, _, err = run(capsys, "history", *store, "mem_unknown")
    assert code == 1 and "mem_unknown" in one_line_error(err)
    code, _, err = run(capsys, "remember", *store, "--user", "u1", "  ")
    assert code == 1 and "nothing to remember" in one_line_error(err)
    code, _, err = run(capsys, "recall", "--store", "mysql://x", "--user", "u1", "x")
    assert code == 1 and "unknown store URL scheme" in one_line_error(err)


def test_also_list_messages_and_exit_codes(capsys, store, tmp_path):
    ok(capsys, "remember", *store, "--user", "u1", "I live in Lisbon.")
    code, _, err = run(capsys, "forget", *store, "--user", "u1", "--memory-id", "mem_nope")
    assert code == 1 and "user 'u1' has no memory 'mem_nope'; nothing was deleted" in one_line_error(err)
    code, _, err = run(capsys, "recall", *store, "--user", "u1", " ")
    assert code == 1 and "the query is empty" in one_line_error(err) and "store" not in err
    for k in ("0", "100000", "-1", "ten"):
        code, _, err = run(capsys, "recall", *store, "--user", "u1", "-k", k, "Lisbon")
        assert code == 2 and f"argument -k: '{k}' is not a whole number between 1 and 10000" in err
    path = tmp_path / "latin1.jsonl"
    path.write_bytes(b'{"user_id": "u1", "content": "fine"}\n{"user_id": "u1", "content": "caf\xe9"}\n')
    code, _, err = run(capsys, "import", *store, str(path))
    assert code == 1 and f"{path}:2: byte 0xe9 at column 34 is not UTF-8" in one_line_error(err)
    assert "the file must be UTF-8" in err


def test_unexpected_errors_are_one_line_unless_debug(capsys, store, monkeypatch):
    from dualmem_core.writer.writer import Writer

    def broken(*args, **kwargs):
        raise RuntimeError("boom\nsecond line")

    ok(capsys, "remember", *store, "--user", "u1", "I live in Lisbon.")
    monkeypatch.setattr(Writer, "recall", broken)
    code, _, err = run(capsys, "recall", *store, "--user", "u1", "x")
    assert code == 1 and "RuntimeError: boom second line (run with --debug" in one_line_error(err)
    with pytest.raises(RuntimeError):
        main(["--debug", "recall", *store, "--user", "u1", "x"])
    with pytest.raises(RuntimeError):
        main(["recall", *store, "--debug", "--user", "u1", "x"])


# -- servers and help ---------------------------------------------------------------------------


@pytest.mark.parametrize("command", ["remember", "recall", "history", "forget", "import", "edit",
                                     "rollback", "runs", "mcp", "serve", "config"])
def test_every_command_has_help(capsys, command):
    code, out, _ = run(capsys, command, "--help")
    assert code == 0
    assert "--store" in out and ("example" in out or command == "config")


def test_import_help_documents_the_format(capsys):
    out = ok(capsys, "import", "--help")
    assert all(key in out for key in ("user_id", "content", "session_id", "source_id", "at", "role",
                                      "speaker", "agent_id"))


def test_mcp_and_serve_call_the_server_functions(capsys, monkeypatch, tmp_path):
    calls = []
    monkeypatch.setattr(os, "environ", dict(os.environ))  # the servers' settings go into it
    mcp_server = types.ModuleType("dualmem_core.mcp_server")
    mcp_server.run_server = lambda **kwargs: calls.append(("mcp", kwargs))
    rest = types.ModuleType("dualmem_core.rest")
    rest.serve = lambda **kwargs: calls.append(("rest", kwargs))
    monkeypatch.setitem(sys.modules, "dualmem_core.mcp_server", mcp_server)
    monkeypatch.setitem(sys.modules, "dualmem_core.rest", rest)
    url = f"sqlite:///{tmp_path}/m.db"
    ok(capsys, "mcp", "--store", url)
    ok(capsys, "mcp", "--store", url, "--http", "--port", "9000")
    ok(capsys, "mcp", "--store", url, "--http", "--host", "0.0.0.0", "--allow-remote")
    ok(capsys, "serve", "--store", url, "--host", "0.0.0.0", "--embedder", "hashing:64")
    assert calls == [
        ("mcp", {"transport": "stdio", "host": "127.0.0.1", "port": 8765, "store_url": url}),
        ("mcp", {"transport": "http", "host": "127.0.0.1", "port": 9000, "store_url": url}),
        ("mcp", {"transport": "http", "host": "0.0.0.0", "port": 8765, "store_url": url,
                 "allow_remote": True}),
        ("rest", {"host": "0.0.0.0", "port": 8000, "store_url": url}),
    ]
    assert os.environ["DUALMEM_EMBEDDER"] == "hashing:64"


def test_installed_entry_point_shows_help():
    exe = Path(sys.executable).with_name("dualmem")
    result = subprocess.run([str(exe), "recall", "--help"], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert "--as-of" in result.stdout and "--known-at" in result.stdout


@pytest.mark.parametrize(("argv", "missing"), [
    (["serve"], "the REST server needs the [server] extra: pip install 'dualmem[server]' (missing: fastapi)"),
    (["mcp"], "the MCP server needs the [server] extra: pip install 'dualmem[server]' (missing: mcp)"),
])
def test_a_missing_server_package_names_the_extra(capsys, store, monkeypatch, argv, missing):
    from dualmem_core import extras

    absent = {"fastapi", "mcp"}
    real = extras.find_spec
    monkeypatch.setattr(extras, "find_spec", lambda name: None if name in absent else real(name))
    code, _, err = run(capsys, *argv, *store)
    assert code == 1 and one_line_error(err) == f"dualmem: error: {missing}"


def test_a_lone_surrogate_in_an_id_is_refused_with_a_reason(capsys: pytest.CaptureFixture,
                                                            store: list[str]) -> None:
    """Issue 36: a non-UTF-8 byte in an argument is a lone surrogate in Python (\\udcff); in an id it
    was "unexpected error: UnicodeEncodeError" from the store, now the service's one check."""
    ok(capsys, "remember", *store, "--user", "u1", "--source-id", "m0", "I work at Acme.")  # makes the store
    for flag in ("--source-id", "--session", "--agent"):
        code, _, err = run(capsys, "remember", *store, "--user", "u1", flag, "m\udcff", "I live in Oslo.")
        assert code == 1 and flag.lstrip("-").replace("-", "_") in err, err
        assert "is not valid Unicode: a lone surrogate" in one_line_error(err)
    assert "Oslo" not in ok(capsys, "recall", *store, "--user", "u1", "Oslo")  # nothing was written
