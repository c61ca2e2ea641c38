"""Headless Chromium driven over the Chrome DevTools Protocol on a pipe, with the standard library only.

``--remote-debugging-pipe`` makes Chromium read protocol messages from fd 3 and write its
answers to fd 4, each a JSON object ended by a NUL byte: no debugging port, no websocket client,
no browser download. Chromium and every process it forks run in a session of their own, so
:meth:`Chromium.close` ends them all with one signal to the process group.
"""

from __future__ import annotations

import base64
import fcntl
import json
import os
import select
import shutil
import signal
import time
from pathlib import Path
from typing import Any

# Flags for a closed network and a root user: no sandbox (root), no GPU, and none of the
# background connections Chromium would otherwise try (update, sync, safe browsing, QUIC).
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-quic",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-extensions",
    "--mute-audio",
    "--hide-scrollbars",
)


class CDPError(RuntimeError):
    """Chromium answered a command with an error, closed the pipe, or did not answer in time."""


def find_chromium() -> str | None:
    """The Chromium to use: ``$CHROMIUM`` if set, else ``chromium`` on the PATH (Debian's package).

    None when there is none, or ``$CHROMIUM`` is not an executable file.
    """
    explicit = os.environ.get("CHROMIUM")
    if explicit:
        return explicit if os.access(explicit, os.X_OK) else None
    return shutil.which("chromium") or shutil.which("chromium-browser")


def _high_fd(fd: int) -> int:
    """A close-on-exec copy of ``fd`` numbered 10 or more, so the dup2 onto 3 and 4 cannot clobber it."""
    copy = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10)
    os.close(fd)
    return copy


class Chromium:
    """One headless Chromium process tree, and a synchronous protocol client on its pipe."""

    def __init__(self, executable: str, workdir: Path, width: int = 1600, height: int = 1000) -> None:
        """Start Chromium with everything it writes under ``workdir``: its profile, its config and
        cache folders (so its crash reporter's database too, whose handler processes leave the
        process group and are found again by that path), and its log ``chromium.log``."""
        self.workdir = workdir
        self.log_path = workdir / "chromium.log"
        for sub in ("profile", "config", "cache"):
            (workdir / sub).mkdir(parents=True, exist_ok=True)
        env = {**os.environ, "XDG_CONFIG_HOME": str(workdir / "config"),
               "XDG_CACHE_HOME": str(workdir / "cache")}
        to_browser_r, to_browser_w = (_high_fd(fd) for fd in os.pipe())
        from_browser_r, from_browser_w = (_high_fd(fd) for fd in os.pipe())
        argv = [executable, *FLAGS, "--remote-debugging-pipe", f"--user-data-dir={workdir / 'profile'}",
                f"--window-size={width},{height}", "about:blank"]
        try:
            self.pid = os.posix_spawn(
                executable, argv, env,
                file_actions=[
                    (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
                    (os.POSIX_SPAWN_OPEN, 1, str(self.log_path), os.O_WRONLY | os.O_CREAT | os.O_TRUNC,
                     0o644),
                    (os.POSIX_SPAWN_DUP2, 1, 2),
                    (os.POSIX_SPAWN_DUP2, to_browser_r, 3),
                    (os.POSIX_SPAWN_DUP2, from_browser_w, 4),
                ],
                setsid=True,  # its own session and process group, whose id is its pid
            )
        finally:
            os.close(to_browser_r)
            os.close(from_browser_w)
        self._out = to_browser_w
        self._in = from_browser_r
        self._buffer = b""
        self._next_id = 0
        self._returncode: int | None = None

    # -- the protocol ------------------------------------------------------------------------

    def send(self, method: str, params: dict[str, Any] | None = None, session: str | None = None,
             timeout: float = 30.0) -> dict[str, Any]:
        """Send one command and return its result; events that arrive meanwhile are dropped."""
        self._next_id += 1
        message: dict[str, Any] = {"id": self._next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        try:
            os.write(self._out, json.dumps(message).encode() + b"\0")
        except BrokenPipeError as exc:
            raise CDPError(f"{method}: Chromium closed its pipe (exit {self.poll()})") from exc
        deadline = time.monotonic() + timeout
        while True:
            answer = self._read(deadline, method)
            if answer.get("id") != self._next_id:
                continue
            if "error" in answer:
                raise CDPError(f"{method}: {answer['error']}")
            return answer.get("result", {})

    def _read(self, deadline: float, method: str) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                raise CDPError(f"{method}: no answer from Chromium in time")
            ready, _, _ = select.select([self._in], [], [], left)
            if ready:
                chunk = os.read(self._in, 1 << 20)
                if not chunk:
                    raise CDPError(f"{method}: Chromium closed its pipe (exit {self.poll()})")
                self._buffer += chunk
        raw, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(raw)

    def new_page(self) -> Page:
        """A new tab, attached in flat mode: its commands go over the same pipe with a session id."""
        target = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        return Page(self, session)

    # -- the process tree --------------------------------------------------------------------

    def poll(self) -> int | None:
        if self._returncode is None:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self._returncode = os.waitstatus_to_exitcode(status)
        return self._returncode

    def close(self, grace: float = 5.0) -> None:
        """Ask Chromium to quit, then end its whole process group, and reap it. Safe to call twice."""
        if self.poll() is None:
            try:
                self.send("Browser.close", timeout=grace)
            except (CDPError, OSError):
                pass
        _end_group(self.pid, grace)
        for pid in processes_mentioning(str(self.workdir)):  # any that left the group (crashpad)
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        if self._returncode is None:
            try:
                _, status = os.waitpid(self.pid, 0)
                self._returncode = os.waitstatus_to_exitcode(status)
            except ChildProcessError:
                self._returncode = -1
        for fd in (self._out, self._in):
            try:
                os.close(fd)
            except OSError:
                pass
        self._out = self._in = -1

    def __enter__(self) -> Chromium:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _end_group(pgid: int, grace: float) -> None:
    """SIGTERM to the process group, then SIGKILL to what is left of it after ``grace`` seconds."""
    try:
        os.killpg(pgid, signal.SIGTERM)
    except ProcessLookupError:
        return
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline:
        if not group_alive(pgid):
            return
        time.sleep(0.1)
    try:
        os.killpg(pgid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def group_alive(pgid: int) -> bool:
    """Whether any live (not zombie) process is in the process group ``pgid``, read from /proc."""
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2:].split()  # state, ppid, pgrp, ...
        if int(fields[2]) == pgid and fields[0] != "Z":
            return True
    return False


def processes_mentioning(needle: str) -> list[int]:
    """Live processes (of this user, not zombies) with ``needle`` in their command line."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            cmdline = Path(f"/proc/{entry}/cmdline").read_bytes().decode(errors="replace")
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        if needle in cmdline and stat[stat.rindex(")") + 2] != "Z":
            found.append(int(entry))
    return found


class Page:
    """One tab of a :class:`Chromium`."""

    def __init__(self, browser: Chromium, session: str) -> None:
        self.browser = browser
        self.session = session

    def send(self, method: str, params: dict[str, Any] | None = None,
             timeout: float = 30.0) -> dict[str, Any]:
        return self.browser.send(method, params, session=self.session, timeout=timeout)

    def goto(self, url: str) -> None:
        answer = self.send("Page.navigate", {"url": url})
        if answer.get("errorText"):
            raise CDPError(f"navigating to {url}: {answer['errorText']}")

    def evaluate(self, expression: str) -> Any:
        answer = self.send("Runtime.evaluate", {"expression": expression, "returnByValue": True})
        if "exceptionDetails" in answer:
            raise CDPError(f"{expression!r}: {answer['exceptionDetails']}")
        return answer["result"].get("value")

    def text(self) -> str:
        """The page's visible text (``innerText`` of the body), or '' before there is a body."""
        return self.evaluate("document.body ? document.body.innerText : ''") or ""

    def wait_for_text(self, needles: list[str], timeout: float = 60.0, settle: float = 1.0) -> str:
        """Poll until every needle is in the page's text, then wait ``settle`` s and return the text.

        Raises :class:`CDPError` naming the missing needles, and the text seen last, on timeout.
        """
        deadline = time.monotonic() + timeout
        while True:
            text = self.text()
            missing = [n for n in needles if n not in text]
            if not missing:
                time.sleep(settle)
                return self.text()
            if time.monotonic() > deadline:
                raise CDPError(f"not on the page after {timeout:.0f} s: {missing}; its text was:\n{text}")
            time.sleep(0.5)

    def wait_for_network_idle(self, idle: float = 1.5, timeout: float = 15.0) -> bool:
        """Wait until the page has finished no new request for ``idle`` s; False if it never did.

        A heuristic (requests in flight are not counted), for a screenshot after the page's
        first round of data has arrived rather than for correctness.
        """
        count_js = "performance.getEntriesByType('resource').length"
        deadline = time.monotonic() + timeout
        count, since = self.evaluate(count_js), time.monotonic()
        while time.monotonic() < deadline:
            time.sleep(0.25)
            now = self.evaluate(count_js)
            if now != count:
                count, since = now, time.monotonic()
            elif time.monotonic() - since >= idle:
                return True
        return False

    def screenshot(self, path: Path) -> Path:
        data = self.send("Page.captureScreenshot", {"format": "png"})["data"]
        path.write_bytes(base64.b64decode(data))
        return path
