"""The optional parts of an install: importing one that is missing says which extra brings it.

`pip install dualmem` is the Writer on the embedded store; Neo4j, the frontends, the Dagster
Editor and the evaluation report each come with an extra (pyproject.toml). Code that needs one
imports it through ``require`` at the point of use, so the core never pays for what it does not
use and a missing package gets a message with the command that fixes it.
"""

from __future__ import annotations

import importlib
from importlib.util import find_spec
from types import ModuleType

from .errors import MissingExtra


def require(module: str, extra: str, purpose: str) -> ModuleType:
    """Import ``module``, or raise MissingExtra naming the extra that installs it."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise MissingExtra(
            f"{purpose} needs the '{extra}' extra, which is not installed "
            f"({exc.name or module} is missing): pip install 'dualmem[{extra}]'"
        ) from exc


# What each server needs beyond the core, checked before its module (which imports them) loads.
SERVERS: dict[str, tuple[str, ...]] = {
    "REST server": ("fastapi", "uvicorn"),
    "MCP server": ("mcp",),
    "MCP server over HTTP": ("mcp", "uvicorn"),
}


def require_server(server: str) -> None:
    """Raise MissingExtra when a package ``server`` needs is not installed (the [server] extra)."""
    missing = [name for name in SERVERS[server] if find_spec(name) is None]
    if missing:
        raise MissingExtra(f"the {server} needs the [server] extra: pip install 'dualmem[server]' "
                           f"(missing: {', '.join(missing)})")
