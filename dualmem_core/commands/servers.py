"""Frontends for other programs: the MCP server agents launch, and the REST API.

Their packages (the MCP SDK, FastAPI, uvicorn) are imported only here, when a server starts; a
missing one is a one-line error naming the extra to install."""

from __future__ import annotations

import argparse
import os

from ..extras import require_server
from .common import HelpFormatter


def _settings(args: argparse.Namespace) -> str:
    """The store URL to serve; the resolved provider settings go into this process's environment,
    where the server's ``open_services`` reads them (so the config file and flags apply too)."""
    from ..settings import provider_environ, resolve_settings

    settings = resolve_settings(args.store, args.embedder, args.config)
    os.environ.update(provider_environ(settings))
    return settings.store_url


def mcp(args: argparse.Namespace) -> int:
    require_server("MCP server over HTTP" if args.http else "MCP server")
    store_url = _settings(args)
    from ..mcp_server import run_server

    # allow_remote only when asked, so the server's own default (loopback only) stays in charge
    extra = {"allow_remote": True} if args.allow_remote else {}
    run_server(transport="http" if args.http else "stdio", host=args.host, port=args.port,
               store_url=store_url, **extra)
    return 0


def serve(args: argparse.Namespace) -> int:
    require_server("REST server")
    store_url = _settings(args)
    from ..rest import serve as serve_rest

    serve_rest(host=args.host, port=args.port, store_url=store_url)
    return 0


def register(commands: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    p = commands.add_parser(
        "mcp", parents=[common], formatter_class=HelpFormatter,
        help="run the MCP server (stdio for agents, or --http)",
        description="Serve memory to agents over the Model Context Protocol: on stdin/stdout "
        "(default; what an MCP client launches) or, with --http, streamable HTTP on HOST:PORT.",
        epilog="examples:\n"
        "  dualmem mcp --store sqlite:////home/me/memory.db\n"
        "  dualmem mcp --http --port 8765          (http://127.0.0.1:8765/mcp)\n"
        "  dualmem mcp --http --host 0.0.0.0       (refused until 'dualmem token create' made a token)\n\n"
        "a client configuration (e.g. Claude Desktop's mcpServers):\n"
        '  {"dualmem": {"command": "dualmem", "args": ["mcp", "--store", "sqlite:////home/me/memory.db"]}}',
    )
    p.add_argument("--http", action="store_true", help="streamable HTTP instead of stdio")
    p.add_argument("--host", default="127.0.0.1", help="HTTP interface (default: 127.0.0.1)")
    p.add_argument("--port", type=int, default=8765, help="HTTP port (default: 8765)")
    p.add_argument("--allow-remote", action="store_true",
                   help="no longer needed: a non-loopback --host is served once an API token exists "
                   "('dualmem token create'), and refused before")
    p.set_defaults(run=mcp)

    p = commands.add_parser(
        "serve", parents=[common], formatter_class=HelpFormatter,
        help="run the REST API (FastAPI + uvicorn)",
        description="Serve memory over HTTP/JSON until Ctrl-C.",
        epilog="examples:\n"
        "  dualmem serve --port 8000 --store sqlite:////home/me/memory.db    (loopback: no token needed)\n"
        "  dualmem token create --user u1 --store bolt://127.0.0.1:7687      (prints the token once)\n"
        "  dualmem serve --host 0.0.0.0 --store bolt://127.0.0.1:7687        (needs a token; then every\n"
        "      request sends 'Authorization: Bearer <token>'; put TLS in front: docs/security.md)",
    )
    p.add_argument("--host", default="127.0.0.1", help="interface (default: 127.0.0.1)")
    p.add_argument("--port", type=int, default=8000, help="port (default: 8000)")
    p.set_defaults(run=serve)
