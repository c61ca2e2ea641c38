"""The Editor in the Dagster UI: the webserver on loopback, its asset graph in headless Chromium.

Starts ``dagster-webserver -w workspace.yaml`` on 127.0.0.1 and a free port, with a DAGSTER_HOME,
store and snapshot folder of its own in a temporary folder, then opens the global asset lineage
in Debian's Chromium (driven over the DevTools protocol on a pipe, see ``tests/browser/cdp.py``)
and checks that every Editor asset is a node of the graph, and that selecting ``change_set`` and
``publish`` lists their checks. Then it materialises one Editor run for a user into the same
instance and store, and captures the pictures ``docs/screenshots/`` holds: the asset graph after
that run, the ``supersede`` stage's latest materialisation with its metadata and sample table, the
run's page with its asset check evaluations, and the automation page (the nightly schedule and
the new-memories sensor).
Every screenshot is checked (PNG bytes of the viewport's size) and goes to the test's temporary
folder and, when ``DUALMEM_ARTIFACTS`` is set, to that folder too; the four pictures go to
``docs/screenshots/`` only when ``DUALMEM_UPDATE_SCREENSHOTS=1``, so a normal run leaves the tree
as it was::

    DUALMEM_UPDATE_SCREENSHOTS=1 .venv/bin/python -m pytest tests/pipeline/test_dagster_ui.py

Without Chromium the test is skipped, except under ``CI=true``, where it fails. Every process it
starts (the webserver and its code server, Chromium and its helpers) runs in a process group of
its own that the fixtures end, and each fixture checks that nothing of its group is left.
"""

from __future__ import annotations

import ctypes
import os
import shutil
import signal
import socket
import struct
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from browser.cdp import CDPError, Chromium, Page, find_chromium, group_alive, processes_mentioning

from dualmem_core import Writer, open_store
from dualmem_core.editor.invariants import INVARIANTS

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")
ASSETS = ["graph_snapshot", "dedupe", "supersede", "entities", "relations", "confidence", "change_set",
          "publish"]
CHECKS = {"change_set": list(INVARIANTS), "publish": ["memory_quality"]}
START_TIMEOUT = 90.0  # two busy cores: the webserver, then its code server loading the definitions
PAGE_TIMEOUT = 90.0
WIDTH, HEIGHT = 1600, 1000  # wide enough for a stage's sample table
DOCS_SCREENSHOTS = ROOT / "docs" / "screenshots"
UPDATE_DOCS = os.environ.get("DUALMEM_UPDATE_SCREENSHOTS", "") == "1"
USER = "ana"  # the user whose Editor run the pictures show
MOVE = [("I live in Seattle.", datetime(2026, 1, 5, 18, tzinfo=UTC)),
        ("I work at a bakery.", datetime(2026, 1, 12, 9, tzinfo=UTC)),
        ("I moved to Portland last week.", datetime(2026, 3, 2, 18, tzinfo=UTC))]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def end_group(proc: subprocess.Popen[bytes], grace: float = 10.0) -> None:
    """SIGTERM to the process group led by ``proc``, SIGKILL after ``grace`` s, and reap ``proc``."""
    try:
        os.killpg(proc.pid, signal.SIGTERM)
    except ProcessLookupError:
        pass
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline and group_alive(proc.pid):
        proc.poll()  # reap the leader, so that it does not count as alive
        time.sleep(0.1)
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    proc.wait(timeout=10)


def die_with_parent() -> None:
    """In the child before exec: SIGTERM it if this test process dies without its teardown (Linux).

    Its code server then stops by its heartbeat. Chromium needs nothing of the kind: it quits when
    its protocol pipe closes.
    """
    try:
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def wait_for_group_gone(pgid: int, timeout: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout
    while group_alive(pgid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.1)
    return True


@pytest.fixture
def chromium_path() -> str:
    path = find_chromium()
    if path is None:
        message = ("Chromium is not installed (Debian: apt-get install chromium), or CHROMIUM does not "
                   "name an executable")
        if IN_CI:
            pytest.fail(message, pytrace=False)
        pytest.skip(message)
    return path


@pytest.fixture
def artifacts(tmp_path: Path) -> list[Path]:
    """Where screenshots go: the test's temporary folder, and ``$DUALMEM_ARTIFACTS`` when set."""
    folders = [tmp_path / "screenshots"]
    if os.environ.get("DUALMEM_ARTIFACTS"):
        folders.append(Path(os.environ["DUALMEM_ARTIFACTS"]))
    for folder in folders:
        folder.mkdir(parents=True, exist_ok=True)
    return folders


@pytest.fixture
def dagster_ui(tmp_path: Path) -> Iterator[str]:
    """The base URL of a Dagster webserver serving the project's definitions on loopback."""
    home = tmp_path / "dagster_home"
    home.mkdir()
    # The project's instance settings, plus: no newsletter dialog over the page, no telemetry.
    (home / "dagster.yaml").write_text(
        (ROOT / "dagster.yaml").read_text() + "\nnux:\n  enabled: false\ntelemetry:\n  enabled: false\n"
    )
    env = {
        **os.environ,
        "DAGSTER_HOME": str(home),
        "DUALMEM_STORE": f"sqlite:///{tmp_path / 'memory.db'}",
        "DUALMEM_SNAPSHOT_DIR": str(tmp_path / "snapshots"),
    }
    port = free_port()
    log_path = tmp_path / "webserver.log"
    with log_path.open("wb") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "dagster_webserver", "-w", str(ROOT / "workspace.yaml"),
             "-h", "127.0.0.1", "-p", str(port)],
            cwd=ROOT, env=env, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group: the code server it forks goes with it
            preexec_fn=die_with_parent,
        )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + START_TIMEOUT
        while True:
            if proc.poll() is not None:
                pytest.fail(f"dagster-webserver exited with {proc.returncode}:\n{tail(log_path)}",
                            pytrace=False)
            try:
                with urllib.request.urlopen(f"{url}/server_info", timeout=5) as answer:
                    if answer.status == 200:
                        break
            except (urllib.error.URLError, OSError):
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"dagster-webserver did not answer in {START_TIMEOUT:.0f} s:\n{tail(log_path)}",
                            pytrace=False)
            time.sleep(0.5)
        yield url
    finally:
        end_group(proc)
    assert wait_for_group_gone(proc.pid), f"processes of the webserver's group {proc.pid} were left running"


@pytest.fixture
def browser(chromium_path: str, tmp_path: Path) -> Iterator[Chromium]:
    chromium = Chromium(chromium_path, tmp_path / "chromium", width=WIDTH, height=HEIGHT)
    try:
        yield chromium
    finally:
        chromium.close()
    assert wait_for_group_gone(chromium.pid), (
        f"processes of Chromium's group {chromium.pid} were left running")
    left = processes_mentioning(str(chromium.workdir))
    assert not left, f"Chromium processes left running: {left}"


def tail(path: Path, lines: int = 40) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return ""


def graph_nodes(page: Page) -> list[str]:
    """The texts of the asset graph's nodes (each an HTML box in an SVG ``foreignObject``)."""
    return page.evaluate("[...document.querySelectorAll('svg foreignObject')].map(n => n.textContent)") or []


def wait_for_nodes(page: Page, wanted: dict[str, list[str]], timeout: float) -> list[str]:
    """Poll until, for each asset in ``wanted``, a graph node shows its name and the given texts."""
    deadline = time.monotonic() + timeout
    while True:
        nodes = graph_nodes(page)
        missing = {name: texts for name, texts in wanted.items()
                   if not any(node.startswith(name) and all(t in node for t in texts) for node in nodes)}
        if not missing:
            return nodes
        if time.monotonic() > deadline:
            raise CDPError(f"asset graph nodes not shown after {timeout:.0f} s: {missing}; nodes: {nodes}; "
                           f"page text:\n{page.text()}")
        time.sleep(0.5)


def wait_for_materialized(page: Page, assets: list[str], timeout: float) -> None:
    """Poll until the lineage's asset list marks each asset materialised (its green run_success icon)."""
    js = ("[...document.querySelectorAll('button')].filter(b => b.querySelector('[aria-label=run_success]'))"
          ".map(b => (b.querySelector('[title]') || {}).title)")
    deadline = time.monotonic() + timeout
    while True:
        done = page.evaluate(js) or []
        if all(asset in done for asset in assets):
            return
        if time.monotonic() > deadline:
            raise CDPError(f"not shown materialised after {timeout:.0f} s: {sorted(set(assets) - set(done))}")
        time.sleep(0.5)


def save(page: Page, name: str, folders: list[Path]) -> Path:
    first = page.screenshot(folders[0] / name)
    for folder in folders[1:]:
        shutil.copyfile(first, folder / name)
    return first


def png_size(data: bytes) -> tuple[int, int]:
    """Width and height from a PNG's header (its first chunk, IHDR); ValueError if it is no PNG."""
    if data[:8] != b"\x89PNG\r\n\x1a\n" or data[12:16] != b"IHDR":
        raise ValueError("not a PNG")
    return struct.unpack(">II", data[16:24])


def doc_shot(page: Page, name: str, folders: list[Path]) -> Path:
    """A picture for ``docs/screenshots/``: taken and checked always, written there only on request."""
    shot = save(page, name, folders)
    data = shot.read_bytes()
    assert png_size(data) == (WIDTH, HEIGHT), f"{name}: {png_size(data)}, not the viewport's size"
    assert len(data) > 20_000, f"{name}: {len(data)} bytes, suspiciously small for a rendered page"
    if UPDATE_DOCS:
        DOCS_SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(shot, DOCS_SCREENSHOTS / name)
    return shot


def materialise_editor_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """One Editor run for ``USER`` (the deployed job, its checks included) into the webserver's
    instance and store, executed in this process; its Dagster run id."""
    from dagster import DagsterInstance

    from dualmem_pipeline.definitions import build_definitions

    url = f"sqlite:///{tmp_path / 'memory.db'}"
    with open_store(url) as store:
        writer = Writer(store)
        for i, (text, when) in enumerate(MOVE):
            writer.remember(text, user_id=USER, session_id=f"s{i}", at=when, source_id=f"m{i}")
    # The webserver's environment (its fixture's), for the resources the job reads at run time.
    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path / "dagster_home"))
    monkeypatch.setenv("DUALMEM_STORE", url)
    monkeypatch.setenv("DUALMEM_SNAPSHOT_DIR", str(tmp_path / "snapshots"))
    with DagsterInstance.from_config(str(tmp_path / "dagster_home")) as instance:
        instance.add_dynamic_partitions("users", [USER])
        job = build_definitions().resolve_job_def("editor_job")
        result = job.execute_in_process(partition_key=USER, instance=instance)
    assert result.success
    return result.run_id


def test_asset_graph_shows_the_editor(chromium_path: str, dagster_ui: str, browser: Chromium,
                                      artifacts: list[Path], tmp_path: Path,
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    # chromium_path comes first: without Chromium the test skips (or fails) before any server starts.
    page = browser.new_page()
    page.send("Emulation.setDeviceMetricsOverride",
              {"width": WIDTH, "height": HEIGHT, "deviceScaleFactor": 1, "mobile": False})
    deadline = time.monotonic() + PAGE_TIMEOUT

    try:
        # The global asset lineage: every Editor asset a node of the graph.
        page.goto(f"{dagster_ui}/asset-groups")
        wait_for_nodes(page, dict.fromkeys(ASSETS, []), deadline - time.monotonic())
        page.wait_for_text(ASSETS, timeout=max(deadline - time.monotonic(), 5))
        page.wait_for_network_idle()  # the assets' statuses, for the screenshot
        shot = save(page, "asset_graph_fresh.png", artifacts)

        # The graph with an asset selected, zoomed in on it (nodes out of view are not drawn): its
        # node counts its checks, and the side panel lists them by name.
        for asset, checks in CHECKS.items():
            page.goto(f"{dagster_ui}/asset-groups/{asset}")
            page.wait_for_text([*checks, "View all check details"],
                               timeout=max(deadline - time.monotonic(), 5))
            # None of the checks has run on this fresh instance.
            wait_for_nodes(page, {asset: ["Asset checks", f"0 / {len(checks)} Passed"]},
                           max(deadline - time.monotonic(), 10))
            page.wait_for_network_idle()
            save(page, f"asset_graph_{asset}.png", artifacts)

        # The pictures of docs/screenshots, after one Editor run on this instance.
        run_id = materialise_editor_run(tmp_path, monkeypatch)
        deadline = time.monotonic() + PAGE_TIMEOUT

        page.goto(f"{dagster_ui}/asset-groups")
        page.wait_for_text(ASSETS, timeout=max(deadline - time.monotonic(), 5))
        # More room for the pages: the navigation folded to its icons (remembered by the profile).
        page.evaluate("(b => b ? (b.click(), true) : false)([...document.querySelectorAll('button')]"
                      ".find(e => e.textContent.trim() === 'Hide navigation'))")
        wait_for_nodes(page, dict.fromkeys(ASSETS, []), max(deadline - time.monotonic(), 5))
        wait_for_materialized(page, ASSETS, max(deadline - time.monotonic(), 5))
        page.wait_for_network_idle()
        doc_shot(page, "asset_graph.png", artifacts)

        # A stage's materialisation of the run: its metadata, the sample table of its decisions.
        page.goto(f"{dagster_ui}/assets/supersede?view=events")
        page.wait_for_text([f"materialized in run {run_id[:8]}", "sample", "single-valued", "stored_in"],
                           timeout=max(deadline - time.monotonic(), 5))
        page.wait_for_network_idle()
        doc_shot(page, "stage_supersede.png", artifacts)

        # The run, its event log filtered to the asset check evaluations.
        page.goto(f"{dagster_ui}/runs/{run_id}?logs=type%3AASSET_CHECK_EVALUATION")
        page.wait_for_text(["Success", f"partition: {USER}", "succeeded for materialization of"],
                           timeout=max(deadline - time.monotonic(), 5))
        page.wait_for_network_idle()
        doc_shot(page, "run_checks.png", artifacts)

        # The automation page: the sensor (on from the start) and the nightly schedule.
        page.goto(f"{dagster_ui}/automation")
        page.wait_for_text(["nightly_editor_schedule", "new_memories_sensor", "03:00 AM UTC"],
                           timeout=max(deadline - time.monotonic(), 5))
        page.wait_for_network_idle()
        doc_shot(page, "automation.png", artifacts)
    except CDPError as exc:
        try:
            save(page, "failure.png", artifacts)
        except (CDPError, OSError):
            pass
        pytest.fail(f"{exc}\n--- webserver log ---\n{tail(tmp_path / 'webserver.log')}", pytrace=False)

    assert shot.stat().st_size > 10_000, "the screenshot is suspiciously small"
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
