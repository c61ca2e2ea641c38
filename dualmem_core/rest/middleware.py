"""Two ASGI middlewares: a request body limit, and a 500 with no trace for errors that are not ours."""

from __future__ import annotations

import logging

from fastapi.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

log = logging.getLogger(__name__)

DRAIN_FACTOR = 8  # an oversized body up to this many times the limit is read and dropped before the 413


class InternalErrors:
    """Answers 500 with no trace to an exception that is not ours, and logs it.

    Unlike an ``Exception`` handler (after which Starlette re-raises and uvicorn drops the
    connection), the connection stays usable.
    """

    def __init__(self, app: ASGIApp):
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def watched(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, receive, watched)
        except Exception:
            if started:
                raise
            log.exception("%s %s failed", scope["method"], scope["path"])
            response = JSONResponse(
                {"error": "InternalError",
                 "detail": "an unexpected error occurred; the server log has the details"},
                status_code=500,
            )
            await response(scope, receive, send)


class BodySizeLimit:
    """Answers 413 to a request body over ``max_bytes``, before any endpoint reads it.

    A declared Content-Length is checked at once; a chunked body is counted while it is read.
    """

    def __init__(self, app: ASGIApp, max_bytes: int):
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = dict(scope["headers"])
        declared = headers.get(b"content-length", b"")
        if declared.isdigit() and int(declared) > self.max_bytes:
            # A client waiting for "100 Continue" has sent nothing yet: answer without reading.
            waiting = b"100-continue" in headers.get(b"expect", b"").lower()
            more = not waiting and int(declared) <= DRAIN_FACTOR * self.max_bytes
            await self._refuse(scope, receive, send, more)
            return
        chunks, size, more = [], 0, True
        while more:
            message = await receive()
            if message["type"] != "http.request":  # the client went away
                return
            chunks.append(message.get("body", b""))
            size += len(chunks[-1])
            more = message.get("more_body", False)
            if size > self.max_bytes:
                await self._refuse(scope, receive, send, more)
                return
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if replayed:
                return await receive()
            replayed = True
            return {"type": "http.request", "body": b"".join(chunks), "more_body": False}

        await self.app(scope, replay, send)

    async def _refuse(self, scope: Scope, receive: Receive, send: Send, more: bool) -> None:
        # Read the rest first (up to a cap) and drop it: a client still sending would otherwise see
        # the connection reset instead of this answer.
        dropped = 0
        while more and dropped <= DRAIN_FACTOR * self.max_bytes:
            message = await receive()
            if message["type"] != "http.request":
                return
            dropped += len(message.get("body", b""))
            more = message.get("more_body", False)
        response = JSONResponse(
            {"error": "PayloadTooLarge",
             "detail": f"the request body is over {self.max_bytes:,} bytes; send fewer or shorter "
                       "messages per request"},
            status_code=413,
        )
        await response(scope, receive, send)
