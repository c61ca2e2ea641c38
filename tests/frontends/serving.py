"""Starting a real server process for a frontend test: a free port, and waiting until it listens."""

from __future__ import annotations

import socket
import subprocess
import time
from pathlib import Path


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_until_listening(process: subprocess.Popen, port: int, log: Path, timeout: float = 60) -> None:
    """Until ``port`` on loopback accepts a connection; the server's log if it exits first."""
    deadline = time.monotonic() + timeout
    while True:
        assert process.poll() is None, log.read_text()
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            assert time.monotonic() < deadline, f"the HTTP server did not start within {timeout:.0f} s"
            time.sleep(0.2)
