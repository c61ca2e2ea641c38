"""DNS-rebinding protection: the API answers only requests addressed to a name it was told about.

A web page can make a browser send requests to ``localhost:8000`` by pointing a name it owns at
127.0.0.1; the browser then sends that name in ``Host``, and a cross-site form post sends the
page's ``Origin``. Without authentication, checking both is what keeps a page from reading or
deleting memories. The MCP HTTP server does the same through its SDK (421 and 403).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from urllib.parse import urlsplit

from fastapi.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from ..settings import ENV_ALLOWED_HOSTS

LOOPBACK_NAMES = ("localhost", "127.0.0.1", "::1")
ANY = "*"


def allowed_hosts(bind_host: str | None = None, setting: str | None = None) -> frozenset[str]:
    """The loopback names, the host ``serve`` binds to, and the comma-separated names of the
    ``DUALMEM_ALLOWED_HOSTS`` setting (``*``: any name, for a proxy that checks it itself)."""
    if setting is None:
        setting = os.environ.get(ENV_ALLOWED_HOSTS, "")
    names = {*LOOPBACK_NAMES, *(n.strip() for n in setting.split(","))}
    if bind_host:
        names.add(bind_host.strip("[]"))
    return frozenset(n.casefold() for n in names if n)


def host_name(header: str) -> str:
    """``example.com:8000`` -> ``example.com``; ``[::1]:8000`` -> ``::1``; a bare ``::1`` stays whole."""
    if header.startswith("["):
        return header[1:].partition("]")[0].casefold()
    name, _, port = header.rpartition(":")
    return (name if header.count(":") == 1 and port.isdigit() else header).casefold()


class HostCheck:
    """421 to a ``Host`` header, and 403 to an ``Origin`` header, naming a host not allowed."""

    def __init__(self, app: ASGIApp, hosts: Iterable[str]):
        self.app = app
        self.hosts = frozenset(hosts)

    def _allowed(self, name: str | None) -> bool:
        return ANY in self.hosts or (name or "").casefold() in self.hosts

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or ANY in self.hosts:
            await self.app(scope, receive, send)
            return
        headers = dict(scope["headers"])
        host = headers.get(b"host", b"").decode("latin-1")
        origin = headers.get(b"origin")
        if not self._allowed(host_name(host)):
            code, error = 421, "MisdirectedRequest"
            detail = f"this server does not answer to the Host {host!r}"
        elif origin is not None and not self._allowed(urlsplit(origin.decode("latin-1")).hostname):
            code, error = 403, "ForbiddenOrigin"
            detail = f"requests from the web page origin {origin.decode('latin-1')!r} are refused"
        else:
            await self.app(scope, receive, send)
            return
        detail += (f"; allowed: {', '.join(sorted(self.hosts))}. To serve another name, add it to "
                   f"{ENV_ALLOWED_HOSTS} (config key allowed_hosts), comma-separated")
        await JSONResponse({"error": error, "detail": detail}, status_code=code)(scope, receive, send)
