"""Tests of the local Neo4j launcher itself (dualmem_core.local_neo4j).

They always start their own server from the Maven Central build, whether or not
NEO4J_URI points at another Neo4j: what is under test is the launcher.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from dualmem_core.local_neo4j import LocalNeo4j, Neo4jUnavailable, ensure_built
from dualmem_core.local_neo4j import server as server_mod

pytestmark = pytest.mark.neo4j


def _group_exists(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    return True


@pytest.fixture(scope="module")
def build():
    """The launcher build; like conftest's neo4j_uri: fail under CI=true, else skip."""
    try:
        return ensure_built()
    except Neo4jUnavailable as exc:
        message = f"local Neo4j launcher could not be built: {exc}"
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            pytest.fail(message, pytrace=False)
        pytest.skip(message)


def test_ensure_built_twice_rebuilds_nothing(build):
    jar_mtime = build.launcher_jar.stat().st_mtime_ns
    cp_mtime = build.classpath_file.stat().st_mtime_ns
    again = ensure_built()
    assert again == build
    assert build.launcher_jar.stat().st_mtime_ns == jar_mtime
    assert build.classpath_file.stat().st_mtime_ns == cp_mtime
    assert "neo4j-5.26.30.jar" in build.classpath


def test_start_query_vector_index_and_stop(build, tmp_path: Path):
    from neo4j import GraphDatabase

    server = LocalNeo4j(tmp_path / "neo4j")
    uri = server.start()
    pid = server.pid
    assert pid is not None
    try:
        assert uri == server.uri == f"bolt://127.0.0.1:{server.port}"
        with GraphDatabase.driver(uri, auth=None) as driver:
            records, _, _ = driver.execute_query("RETURN 1 AS one")
            assert records[0]["one"] == 1

            # Nodes first, then the index: exercises population of existing data,
            # the path that stalls when the JVM lacks the module opens Neo4j needs.
            driver.execute_query(
                "UNWIND $rows AS row CREATE (:Doc {id: row.id, emb: row.emb})",
                rows=[
                    {"id": "x", "emb": [1.0, 0.0, 0.0]},
                    {"id": "y", "emb": [0.0, 1.0, 0.0]},
                    {"id": "xy", "emb": [0.7, 0.7, 0.0]},
                ],
            )
            driver.execute_query(
                "CREATE VECTOR INDEX doc_emb FOR (d:Doc) ON d.emb OPTIONS {indexConfig: "
                "{`vector.dimensions`: 3, `vector.similarity_function`: 'cosine'}}"
            )
            driver.execute_query("CALL db.awaitIndexes(60)")
            state, _, _ = driver.execute_query(
                "SHOW VECTOR INDEXES YIELD name, state, populationPercent "
                "WHERE name = 'doc_emb' RETURN state, populationPercent"
            )
            assert state[0]["state"] == "ONLINE"
            assert state[0]["populationPercent"] == 100.0
            hits, _, _ = driver.execute_query(
                "CALL db.index.vector.queryNodes('doc_emb', 2, [0.9, 0.1, 0.0]) "
                "YIELD node, score RETURN node.id AS id ORDER BY score DESC"
            )
            assert [h["id"] for h in hits] == ["x", "xy"]
    finally:
        server.stop()
    assert server.pid is None
    assert not _group_exists(pid)
    assert (tmp_path / "neo4j" / "logs" / "debug.log").is_file()
    assert "DUALMEM_NEO4J_READY" in server.log_path.read_text()


def test_context_manager_and_restart_keep_data(build, tmp_path: Path):
    from neo4j import GraphDatabase

    with LocalNeo4j(tmp_path / "neo4j") as server:
        with GraphDatabase.driver(server.uri, auth=None) as driver:
            driver.execute_query("CREATE (:Kept {n: 42})")
        pid = server.pid
    assert pid is not None and not _group_exists(pid)
    with LocalNeo4j(tmp_path / "neo4j") as server:
        with GraphDatabase.driver(server.uri, auth=None) as driver:
            records, _, _ = driver.execute_query("MATCH (k:Kept) RETURN k.n AS n")
        assert [r["n"] for r in records] == [42]


def test_port_in_use_is_reported_clearly(build, tmp_path: Path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        server = LocalNeo4j(tmp_path / "neo4j", port=port)
        with pytest.raises(Neo4jUnavailable, match=f"port {port} .*already in use"):
            server.start(timeout=60)
        assert server.pid is None


def test_port_taken_after_precheck_still_reported(build, tmp_path: Path, monkeypatch):
    # The race the pre-check cannot see: the port is taken when the JVM binds it.
    monkeypatch.setattr(server_mod, "_port_in_use", lambda port: False)
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        server = LocalNeo4j(tmp_path / "neo4j", port=port)
        with pytest.raises(Neo4jUnavailable) as info:
            server.start(timeout=60)
    message = str(info.value)
    assert "Address already in use" in message
    assert f"port {port} is taken" in message
    assert str(server.log_path) in message
    assert server.pid is None


def test_main_start_detached_then_main_stop(build, tmp_path: Path, capsys):
    data = tmp_path / "neo4j"
    uri = server_mod.main_start(data, None, foreground=False)
    assert capsys.readouterr().out.strip() == uri
    pid = int((data / "neo4j.pid").read_text().split()[0])
    try:
        assert _group_exists(pid)
        with pytest.raises(Neo4jUnavailable, match="already running"):
            server_mod.main_start(data, None, foreground=False)
    finally:
        assert server_mod.main_stop(data) is True
    assert not _group_exists(pid)
    assert not (data / "neo4j.pid").exists()
    assert server_mod.main_stop(data) is False


def test_server_exits_when_its_python_parent_dies(build, tmp_path: Path):
    # A test run killed with SIGKILL must not leave a Neo4j behind.
    script = (
        "import os, sys\n"
        "from dualmem_core.local_neo4j import LocalNeo4j\n"
        "server = LocalNeo4j(sys.argv[1])\n"
        "server.start()\n"
        "print(server.pid, flush=True)\n"
        "os.kill(os.getpid(), 9)\n"
    )
    repo = Path(__file__).resolve().parents[2]
    env = {**os.environ, "PYTHONPATH": f"{repo}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    result = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path / "neo4j")],
        capture_output=True,
        text=True,
        timeout=180,
        env=env,
    )
    assert result.returncode == -9, result.stderr
    pid = int(result.stdout.split()[0])
    deadline = time.monotonic() + 30
    while server_mod._group_alive(pid) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not server_mod._group_alive(pid)
    assert "parent process" in (tmp_path / "neo4j" / "neo4j-launcher.log").read_text()
