"""Start and stop the local Neo4j built by :mod:`.build`: one process group, no orphans."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from .build import (
    FAILED_MARKER,
    HOST,
    LOG_FILE,
    MAIN_CLASS,
    NEO4J_VERSION,
    PID_FILE,
    READY_MARKER,
    LauncherBuild,
    Neo4jUnavailable,
    _tail_text,
    _write_atomic,
    ensure_built,
)


class LocalNeo4j:
    """One embedded Neo4j with Bolt on 127.0.0.1, run as a child process group.

    ``with LocalNeo4j(tmp_path) as neo: driver = GraphDatabase.driver(neo.uri, auth=None)``

    With ``exit_with_parent`` (the default) the server also shuts itself down within about
    a second of this Python process dying, so a crashed or killed test run leaves no
    orphan; :func:`main_start` turns it off for a detached server.
    """

    def __init__(
        self,
        data_dir: Path,
        port: int | None = None,
        heap: str = "512m",
        pagecache: str = "128m",
        *,
        extra_jvm_args: Sequence[str] = (),
        cache_dir: Path | None = None,
        exit_with_parent: bool = True,
    ) -> None:
        self.data_dir = Path(data_dir).resolve()
        self.port = port
        self.heap = heap
        self.pagecache = pagecache
        self.extra_jvm_args = tuple(extra_jvm_args)
        self.cache_dir = cache_dir
        self.exit_with_parent = exit_with_parent
        self.pid: int | None = None
        self._proc: subprocess.Popen[bytes] | None = None
        self._log_offset = 0

    @property
    def uri(self) -> str:
        """``bolt://127.0.0.1:PORT``; empty until a port is chosen (by start() when None)."""
        return f"bolt://{HOST}:{self.port}" if self.port else ""

    @property
    def log_path(self) -> Path:
        return self.data_dir / LOG_FILE

    def __enter__(self) -> LocalNeo4j:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def start(self, timeout: float = 120.0) -> str:
        """Start the server and wait until Bolt answers; returns the URI."""
        if self._proc is not None and self._proc.poll() is None:
            return self.uri
        return self._launch(ensure_built(self.cache_dir), timeout)

    def _launch(self, build: LauncherBuild, timeout: float) -> str:
        self.data_dir.mkdir(parents=True, exist_ok=True)
        if self.port is None:
            self.port = _free_port()
        elif _port_in_use(self.port):
            raise Neo4jUnavailable(
                f"port {self.port} on {HOST} is already in use (another Neo4j still running? "
                f"see `ss -ltnp`, or stop it with its pid file {self.data_dir / PID_FILE}); "
                "choose another port or pass port=None for a free one"
            )
        cmd = build.command(
            self.data_dir,
            self.port,
            self.heap,
            self.pagecache,
            self.extra_jvm_args,
            exit_with_parent=self.exit_with_parent,
        )
        started = time.monotonic()
        with open(self.log_path, "ab") as log:
            log.write(f"=== dualmem: starting Neo4j {NEO4J_VERSION} on {self.uri} ===\n".encode())
            log.flush()
            self._log_offset = log.tell()
            self._proc = subprocess.Popen(
                cmd,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                cwd=self.data_dir,
                start_new_session=True,  # own process group: stop() kills exactly it
                close_fds=True,
            )
        self.pid = self._proc.pid
        try:
            self._wait_ready(started + timeout, timeout)
        except BaseException:
            self._kill_group(signal.SIGKILL)
            self._proc = None
            self.pid = None
            raise
        return self.uri

    def _wait_ready(self, deadline: float, timeout: float) -> None:
        assert self._proc is not None
        while READY_MARKER not in self._read_log():
            self._check_alive()
            if time.monotonic() > deadline:
                self._timed_out(timeout)
            time.sleep(0.1)
        from neo4j import GraphDatabase

        while True:
            self._check_alive()
            try:
                with GraphDatabase.driver(self.uri, auth=None) as driver:
                    driver.verify_connectivity()
                return
            except Exception as e:  # any driver error here means "not up yet"
                if time.monotonic() > deadline:
                    self._timed_out(timeout, f"last driver error: {e!r}")
            time.sleep(0.2)

    def _check_alive(self) -> None:
        assert self._proc is not None
        code = self._proc.poll()
        if code is None:
            return
        text = self._read_log()
        failed = [ln for ln in text.splitlines() if ln.startswith(FAILED_MARKER)]
        reason = failed[-1][len(FAILED_MARKER) :].strip() if failed else f"exit status {code}"
        hint = ""
        if "Address already in use" in text:
            hint = f" (port {self.port} is taken: choose another port or pass port=None)"
        raise Neo4jUnavailable(
            f"Neo4j exited during start-up: {reason}{hint}; its log is at {self.log_path} "
            f"(Neo4j's own logs in {self.data_dir / 'logs'}). Last lines:\n{_tail_text(text, 20)}"
        )

    def _timed_out(self, timeout: float, extra: str = "") -> None:
        raise Neo4jUnavailable(
            f"Neo4j did not start within {timeout:g} s; its log is at {self.log_path} "
            f"(Neo4j's own logs in {self.data_dir / 'logs'}){'; ' + extra if extra else ''}. "
            f"Last lines:\n{_tail_text(self._read_log(), 20)}"
        )

    def _read_log(self) -> str:
        try:
            with open(self.log_path, "rb") as fh:
                fh.seek(self._log_offset)
                return fh.read().decode("utf-8", "replace")
        except OSError:
            return ""

    def stop(self, timeout: float = 30.0) -> None:
        """SIGTERM the server's process group (clean shutdown), SIGKILL it after ``timeout``."""
        if self.pid is None:
            return
        self._kill_group(signal.SIGTERM)
        if not self._wait_gone(timeout):
            self._kill_group(signal.SIGKILL)
            self._wait_gone(10.0)
        self._proc = None
        self.pid = None

    def _kill_group(self, sig: signal.Signals) -> None:
        if self.pid is None:
            return
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.pid, sig)
        if sig == signal.SIGKILL:
            self._wait_gone(10.0)

    def _wait_gone(self, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        if self._proc is not None:  # our child: reap it, so the group really disappears
            try:
                self._proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                return False
        assert self.pid is not None
        while _group_alive(self.pid):
            if time.monotonic() > deadline:
                return False
            time.sleep(0.05)
        return True

    def _detach(self) -> None:
        """Leave the server running after this Python process exits."""
        if self._proc is not None:
            _DETACHED.append(self._proc)  # keep it referenced: no "still running" warning


_DETACHED: list[subprocess.Popen[bytes]] = []


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((HOST, 0))
        return int(s.getsockname()[1])


def _port_in_use(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        # As Netty does: a port in TIME_WAIT is free, one with a listener is not.
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((HOST, port))
        except OSError:
            return True
        return False


def _group_alive(pgid: int) -> bool:
    """True while any non-zombie process is in process group ``pgid``."""
    proc = Path("/proc")
    if proc.is_dir():
        for entry in proc.iterdir():
            if not entry.name.isdigit():
                continue
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            fields = stat[stat.rfind(")") + 2 :].split()  # state ppid pgrp ...
            if len(fields) > 2 and int(fields[2]) == pgid and fields[0] not in ("Z", "X"):
                return True
        return False
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True




# --------------------------------------------------------------------------- CLI helpers


def main_start(
    data_dir: Path,
    port: int | None = None,
    foreground: bool = False,
    *,
    heap: str = "512m",
    pagecache: str = "128m",
    timeout: float = 120.0,
) -> str:
    """Start a server for ``data_dir``, write ``data_dir/neo4j.pid`` and print the URI.

    Detached (default): returns once Bolt answers, leaving the server running; stop it
    with :func:`main_stop`. Foreground: runs until Ctrl-C/SIGTERM, then stops it.
    """
    data_dir = Path(data_dir).resolve()
    pid_file = data_dir / PID_FILE
    running = _running_pid(pid_file)
    if running is not None:
        raise Neo4jUnavailable(
            f"a Neo4j is already running for {data_dir} (pid {running}, {pid_file}); stop it first"
        )
    # Detached: the server outlives this process; foreground: it dies with it.
    server = LocalNeo4j(data_dir, port, heap, pagecache, exit_with_parent=foreground)
    uri = server.start(timeout)
    _write_atomic(pid_file, f"{server.pid}\n{uri}\n")
    print(uri, flush=True)
    if not foreground:
        server._detach()
        return uri
    previous = signal.signal(signal.SIGTERM, _raise_interrupt)
    try:
        assert server._proc is not None
        server._proc.wait()
    except KeyboardInterrupt:
        pass
    finally:
        signal.signal(signal.SIGTERM, previous)
        server.stop()
        pid_file.unlink(missing_ok=True)
    return uri


def main_stop(data_dir: Path, timeout: float = 30.0) -> bool:
    """Stop the server recorded in ``data_dir/neo4j.pid``; False if none was running."""
    pid_file = Path(data_dir).resolve() / PID_FILE
    pid = _running_pid(pid_file)
    if pid is None:
        pid_file.unlink(missing_ok=True)
        print(f"no Neo4j running for {pid_file.parent}", file=sys.stderr)
        return False
    server = LocalNeo4j(pid_file.parent)
    server.pid = pid
    # Started detached by this same process: hand over the Popen, so stop() reaps it.
    server._proc = next((p for p in _DETACHED if p.pid == pid), None)
    server.stop(timeout)
    _DETACHED[:] = [p for p in _DETACHED if p.pid != pid]
    pid_file.unlink(missing_ok=True)
    return True


def _running_pid(pid_file: Path) -> int | None:
    """The pid in ``pid_file`` if that process is still our launcher (not a reused pid)."""
    try:
        pid = int(pid_file.read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return None
    if Path("/proc").is_dir():
        try:
            if MAIN_CLASS.encode() not in Path(f"/proc/{pid}/cmdline").read_bytes():
                return None
        except OSError:
            return None
    return pid if _group_alive(pid) else None


def _raise_interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt
