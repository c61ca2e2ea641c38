"""The optional parts of an install: importing one that is missing says which extra brings it.

`pip install dualmem` is the Writer on the embedded store; Neo4j, the frontends, the Dagster
Editor and the evaluation report each come with an extra (pyproject.toml). Code that needs one
imports it through ``require`` at the point of use, so the core never pays for what it does not
use and a missing package gets a message with the command that fixes it.
"""

from __future__ import annotations

import importlib
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
