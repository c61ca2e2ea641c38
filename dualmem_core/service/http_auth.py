"""Bearer-token checks for the HTTP frontends, as a plain ASGI middleware both servers wrap around
their app (REST's FastAPI, the MCP SDK's Starlette), so the rules and the answers are the same.

The middleware says who may come in; which users a request may touch is checked where the user id
is known (the REST path, an MCP tool's argument), through ``reaches(scope, user_id)``.
"""

from __future__ import annotations

import json
import logging
import math
import time
from collections import deque
from collections.abc import Callable, Collection, Mapping
from typing import Any

from ..errors import DualmemError
from .tokens import CREATE_HINT, Token, TokenFile

log = logging.getLogger(__name__)

GRANT = "dualmem.token"  # the scope key holding the request's Token (absent: no auth in force)
REALM = 'Bearer realm="dualmem"'


def grant_of(scope: Mapping[str, Any]) -> Token | None:
    return scope.get(GRANT)


def refusal(scope: Mapping[str, Any], user_id: str) -> str | None:
    """Why the request's token may not reach ``user_id``, or None when it may (or no token is needed)."""
    token = grant_of(scope)
    if token is None or token.reaches(user_id):
        return None
    return (f"this API token ({token.id}) reaches only {token.scope()}, not user {user_id!r}; use a token "
            f"made for that user ('dualmem token create --user {user_id}')")


class FailureLimit:
    """At most ``failures`` wrong tokens per client address in ``window`` seconds, in this process's
    memory (a restart forgets). Behind a proxy every client shares the proxy's address."""

    MAX_CLIENTS = 10_000  # addresses remembered at once; the oldest go first beyond it

    def __init__(self, failures: int = 10, window: float = 60.0, clock: Callable[[], float] = time.monotonic):
        self.failures, self.window, self.clock = failures, window, clock
        self._seen: dict[str, deque[float]] = {}

    def retry_after(self, client: str) -> int:
        """Seconds until ``client`` may try again; 0 when it may now."""
        times = self._seen.get(client)
        if not times:
            return 0
        now = self.clock()
        while times and times[0] <= now - self.window:
            times.popleft()
        if len(times) < self.failures:
            return 0
        return max(1, math.ceil(times[0] + self.window - now))

    def failed(self, client: str) -> None:
        times = self._seen.pop(client, deque())
        times.append(self.clock())
        self._seen[client] = times  # re-inserted: the dict is oldest-first
        while len(self._seen) > self.MAX_CLIENTS:
            del self._seen[next(iter(self._seen))]


class BearerAuth:
    """401 without a valid ``Authorization: Bearer`` token, when one is required: ``always`` (served
    beyond loopback) or once the token file holds any token. 429 after too many wrong tokens."""

    def __init__(self, app: Any, tokens: TokenFile, *, always: bool = False,
                 open_paths: Collection[str] = (), limit: FailureLimit | None = None):
        self.app, self.tokens, self.always = app, tokens, always
        self.open_paths = frozenset(open_paths)
        self.limit = limit or FailureLimit()

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope["path"] in self.open_paths:
            await self.app(scope, receive, send)
            return
        try:
            required = self.always or self.tokens.any()
            token = self._presented(scope) if required else None
            found = self.tokens.check(token) if token else None
        except DualmemError as exc:  # a broken token file: the operator's to fix, said plainly
            log.warning("token check failed: %s", exc)
            await _answer(send, 500, {"error": type(exc).__name__, "detail": str(exc)})
            return
        if not required:
            await self.app(scope, receive, send)
            return
        client = (scope.get("client") or ("unknown",))[0]
        wait = self.limit.retry_after(client)
        if wait:
            await _answer(send, 429, {"error": "TooManyFailedAttempts", "detail": (
                f"too many requests with a wrong API token from {client}; try again in {wait} s")},
                {"retry-after": str(wait)})
            return
        if found is None:
            if token:
                self.limit.failed(client)
                detail, challenge = "the API token is not valid (revoked, mistyped, or for another store)", \
                    f'{REALM}, error="invalid_token"'
            else:
                detail, challenge = "this server needs an API token", REALM
            await _answer(send, 401, {"error": "Unauthorized", "detail": (
                f"{detail}: send 'Authorization: Bearer <token>'; to make one, {CREATE_HINT}")},
                {"www-authenticate": challenge})
            return
        scope[GRANT] = found
        await self.app(scope, receive, send)

    @staticmethod
    def _presented(scope: dict[str, Any]) -> str | None:
        header = dict(scope["headers"]).get(b"authorization", b"").decode("latin-1").strip()
        scheme, _, value = header.partition(" ")
        return (value.strip() or None) if scheme.casefold() == "bearer" else None


async def _answer(send: Any, status: int, body: dict, headers: dict[str, str] | None = None) -> None:
    payload = json.dumps(body).encode()
    raw = [(b"content-type", b"application/json"), (b"content-length", str(len(payload)).encode())]
    raw += [(k.encode(), v.encode("latin-1")) for k, v in (headers or {}).items()]
    await send({"type": "http.response.start", "status": status, "headers": raw})
    await send({"type": "http.response.body", "body": payload})
