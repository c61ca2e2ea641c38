"""The frontends' optional packages: a clear message naming the extra to install when one is missing,
checked before the frontend's module (which imports them) is loaded."""

from __future__ import annotations

from importlib.util import find_spec

from .errors import MissingExtra

SERVER_EXTRA = "server"

# What each frontend needs, beyond the core library.
NEEDS: dict[str, tuple[str, ...]] = {
    "REST server": ("fastapi", "uvicorn"),
    "MCP server": ("mcp",),
    "MCP server over HTTP": ("mcp", "uvicorn"),
}


def require(frontend: str, extra: str = SERVER_EXTRA) -> None:
    """Raise ``MissingExtra`` when a package ``frontend`` needs is not installed."""
    missing = [name for name in NEEDS[frontend] if find_spec(name) is None]
    if missing:
        raise MissingExtra(f"the {frontend} needs the [{extra}] extra: pip install 'dualmem[{extra}]' "
                           f"(missing: {', '.join(missing)})")
