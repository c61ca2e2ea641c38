"""`pip install dualmem` is the Writer on the embedded store: using it pulls in no extra's package.

The core's dependencies are the `[project] dependencies` of pyproject.toml; the frontends, Neo4j,
Dagster and the evaluation report are extras. This runs the core's whole loop (remember, recall,
an Editor run) and loads the CLI and the frontends' shared layer in a fresh interpreter, then
checks that no extra's package was imported: a core install without extras cannot fail on a
missing import.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# Top-level modules of the extras' packages (pyproject.toml's optional dependencies).
EXTRAS_MODULES = {"neo4j", "dagster", "dagster_webserver", "pandas", "matplotlib", "mcp", "fastapi",
                  "starlette", "uvicorn", "sentence_transformers", "torch", "langgraph", "langchain_core"}

CORE_LOOP = """
import json, sys, tempfile
from dualmem_core import Editor, Writer, open_store
import dualmem_core.cli, dualmem_core.service  # the CLI and the frontends' shared layer load no server
store = open_store("sqlite:///" + tempfile.mkdtemp() + "/core.db")
writer = Writer(store)
writer.remember([{"role": "user", "content": "I moved to Lisbon last spring"},
                 {"role": "user", "content": "I live in Porto now"}], user_id="u")
assert writer.recall("where do I live?", user_id="u"), "recall found nothing"
Editor(store).run("u")
store.close()
print(json.dumps(sorted({name.split(".")[0] for name in sys.modules})))
"""


def test_the_core_loop_imports_no_extra() -> None:
    done = subprocess.run([sys.executable, "-c", CORE_LOOP], capture_output=True, text=True, cwd=ROOT,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    imported = set(json.loads(done.stdout.strip().splitlines()[-1]))
    assert imported & EXTRAS_MODULES == set()


def test_the_extras_hold_the_heavy_packages() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    core = " ".join(project["dependencies"]).lower()
    for heavy in ("dagster", "neo4j", "fastapi", "mcp", "uvicorn", "matplotlib", "pandas", "langgraph"):
        assert heavy not in core, f"{heavy} belongs in an extra, not the core install"
    extras = project["optional-dependencies"]
    assert {"neo4j", "dagster", "server", "langgraph", "local-embeddings", "all", "dev"} <= set(extras)


def test_a_neo4j_url_without_the_neo4j_extra_names_the_extra(monkeypatch) -> None:
    from dualmem_core import open_store
    from dualmem_core.errors import MissingExtra

    monkeypatch.setitem(sys.modules, "neo4j", None)  # what an install without the driver sees
    try:
        open_store("bolt://127.0.0.1:1")
    except MissingExtra as exc:
        assert "pip install 'dualmem[neo4j]'" in str(exc)
    else:
        raise AssertionError("open_store reached Neo4j without its driver")
