"""The MCP server agents launch: remember, recall, forget and history over one store.

Stdio is what agent hosts (Claude Desktop, IDEs) launch; streamable HTTP is for a host that
connects to a running server: on loopback, or beyond it once API tokens exist (``service/tokens.py``).
stdout is the stdio protocol channel, so everything this process logs goes to stderr.
"""

from __future__ import annotations

import argparse
import contextvars
import logging
import sys
from collections.abc import Callable, Sequence
from types import TracebackType
from typing import Annotated, Any, Literal, TypeVar

import anyio
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.transport_security import TransportSecuritySettings
from mcp.shared._stream_protocols import ReadStream, WriteStream
from mcp.shared.message import SessionMessage
from mcp.types import (
    CallToolResult,
    JSONRPCError,
    JSONRPCNotification,
    JSONRPCRequest,
    JSONRPCResponse,
    RequestId,
    TextContent,
    ToolAnnotations,
)
from pydantic import BaseModel, Field, ValidationError

from .errors import DualmemError, InvalidInput
from .service import MAX_HITS, MemoryService, parse_time
from .service.compact import AgentId, AsOf, KnownAt, SaidAt, SessionId, UserId
from .service.http_auth import BearerAuth, refusal
from .service.invalid import describe
from .service.models import ForgetOut, HistoryOut, ProfileOut, RecallOut, RememberOut, UpcomingOut
from .service.tokens import TokenFile, is_loopback, require_tokens_beyond_loopback, tokens_path
from .writer.writer import Writer

__all__ = ["build_server", "is_loopback", "main", "parse_time", "run_server"]

log = logging.getLogger("dualmem.mcp")

INSTRUCTIONS = """\
dualmem is the user's long-term memory. Call `recall` before answering anything that depends on \
the user's past, and `remember` after each user turn that states a durable fact or preference. \
Always pass the same user_id for the same person. Hits marked current=false are superseded or \
ended: say so instead of presenting them as today's truth, and cite their sources."""

T = TypeVar("T")


# -- outputs ------------------------------------------------------------------------------------

def _render_recall(out: RecallOut) -> str:
    if not out.hits:
        return "No memories match."
    lines = []
    for i, h in enumerate(out.hits, 1):
        state = "current" if h.current else "NOT current"
        span = f"valid {h.valid_from or '?'} to {h.valid_to or 'now'}"
        lines.append(f"{i}. [{state}] {h.text} ({span}; sources: {', '.join(h.sources) or 'none'}; "
                     f"score {h.score}; id {h.memory_id})")
    return "\n".join(lines)


def _render_history(out: HistoryOut) -> str:
    lines = [f"Memory {out.memory_id}, sources: {', '.join(out.sources) or 'none'}"]
    for v in out.versions:
        lines.append(f"- [{v.status}] {v.text} (valid {v.valid_from or '?'} to {v.valid_to or 'now'}; "
                     f"believed {v.tx_from} to {v.tx_to or 'now'})")
    if out.superseded_by:
        lines.append(f"Superseded by: {', '.join(out.superseded_by)}")
    if out.supersedes:
        lines.append(f"Supersedes: {', '.join(out.supersedes)}")
    return "\n".join(lines)


def _result(out: BaseModel, text: str) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=text)],
                          structured_content=out.model_dump(mode="json"))


def _content(content: str | None, text: str | None) -> str:
    """The message of a remember call: ``content``, or ``text``, its deprecated old name."""
    if content is not None and text is not None:
        raise InvalidInput("remember got both content and text; pass the message once, as content "
                           "(text is its deprecated old name)")
    message = content if content is not None else text
    if message is None:
        raise InvalidInput("remember needs content: the message, in the speaker's own words")
    if text is not None:
        log.warning("remember was called with text, the deprecated name of content; pass content")
    return message


def _guarded(ctx: Context, user_id: str, call: Callable[[], T]) -> T:
    """Run a tool body; our own errors become tool errors the agent reads (the SDK logs them), and
    anything else a generic tool error with the traceback on stderr: never a crash of the server.
    Over HTTP the request's API token must reach ``user_id`` first (stdio has no tokens)."""
    request = ctx.request_context.request
    why = refusal(request.scope, user_id) if request is not None and hasattr(request, "scope") else None
    if why:
        raise ToolError(why)
    try:
        return call()
    except DualmemError as exc:
        raise ToolError(str(exc)) from exc


# -- the server ---------------------------------------------------------------------------------

class _Server(MCPServer):
    """The SDK's server, but arguments that do not match a tool's schema are a tool error in our
    words (``service/invalid.py``): the SDK passed on pydantic's text, its error codes and a link
    to errors.pydantic.dev. An argument the tool does not take is refused as REST refuses an
    unknown field: the SDK dropped it, so a misspelt ``source_ids`` on remember stored the message
    with no source id and told the agent it had worked (the red-team pass)."""

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Context | None = None) -> Any:
        tool = self._tool_manager.get_tool(name)
        unknown = sorted(set(arguments) - set(tool.parameters.get("properties", {}))) if tool else []
        if unknown:
            raise ToolError(f"{name} was called with arguments it cannot take: " + describe(
                [{"type": "extra_forbidden", "loc": (key,)} for key in unknown]))
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            if not isinstance(exc.__cause__, ValidationError):
                raise
            raise ToolError(f"{name} was called with arguments it cannot take: "
                            f"{describe(exc.__cause__.errors())}") from exc.__cause__


def build_server(memory: MemoryService | Writer) -> MCPServer:
    """An MCP server whose tools call ``memory`` (a ``MemoryService``, or a bare Writer)."""
    if not isinstance(memory, MemoryService):
        memory = MemoryService(memory)
    server = _Server("dualmem", instructions=INSTRUCTIONS, log_level="WARNING")

    @server.tool(
        description=(
            "Store something the user said so later conversations can recall it. Call it after each "
            "user turn that states a durable fact or preference worth keeping: where they live or work, "
            "people and pets in their life, likes and dislikes, diet, plans, dates, and corrections "
            "('I moved to ...', 'I no longer ...'). Pass the user's own words, one message per call; "
            "skip small talk and questions. Facts are extracted with their valid time ('last week' is "
            "read against `at`); the message itself is kept too, under source_id."
        ),
        annotations=ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=False),
    )
    def remember(
        ctx: Context,
        user_id: UserId,
        content: Annotated[str | None, Field(
            description="The message, in the speaker's own words. Required (`text` is accepted "
                        "instead for now: deprecated, and to be removed in a later release).")] = None,
        session_id: SessionId = None,
        agent_id: AgentId = None,
        source_id: Annotated[str | None, Field(
            description="Your id for this message (e.g. the host's message id): recall cites it and "
                        "forget deletes by it.")] = None,
        at: SaidAt = None,
        role: Annotated[Literal["user", "assistant", "system", "tool"], Field(
            description="Who said it; only the user's words are mined for facts.")] = "user",
        text: Annotated[str | None, Field(
            description="Deprecated: the old name of `content`, accepted for now; pass `content`.")] = None,
    ) -> Annotated[CallToolResult, RememberOut]:
        def call() -> CallToolResult:
            message = _content(content, text)
            out = RememberOut.of(memory.remember(message, user_id=user_id, session_id=session_id,
                                                 agent_id=agent_id, at=parse_time(at, "at"),
                                                 source_id=source_id, role=role))
            if out.already_stored:
                return _result(out, f"Already stored (source id {source_id}); nothing new was written.")
            facts = "; ".join(f.text for f in out.facts) or "no facts extracted"
            return _result(out, f"Remembered ({facts}).")
        return _guarded(ctx, user_id, call)

    @server.tool(
        description=(
            "Search the user's long-term memory. Call it before answering anything that depends on the "
            "user's past: their facts, preferences, people, earlier conversations. For a question about "
            "an earlier time ('where did I live last year?') pass as_of, the moment the answer should "
            "hold; known_at asks what memory believed at an earlier moment. Each hit has text, current "
            "(false: superseded or ended, do not present it as today's truth), valid_from/valid_to and "
            "sources (message ids to cite)."
        ),
        annotations=ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True),
    )
    def recall(
        ctx: Context,
        user_id: UserId,
        query: Annotated[str, Field(min_length=1, description="What to look for, in plain words.")],
        k: Annotated[int, Field(ge=1, le=MAX_HITS, description="How many memories to return.")] = 5,
        as_of: AsOf = None,
        known_at: KnownAt = None,
        session_id: Annotated[str | None, Field(
            description="Only memories from this conversation; omit to search all of them.")] = None,
        agent_id: Annotated[str | None, Field(description="Only memories this agent wrote.")] = None,
    ) -> Annotated[CallToolResult, RecallOut]:
        def call() -> CallToolResult:
            hits = memory.recall(query, user_id=user_id, k=k, as_of=parse_time(as_of, "as_of"),
                                 known_at=parse_time(known_at, "known_at"), agent_id=agent_id,
                                 session_id=session_id)
            out = RecallOut.of(query, hits)
            return _result(out, _render_recall(out))
        return _guarded(ctx, user_id, call)

    @server.tool(
        description=(
            "Explain how one memory changed over time: every version, oldest belief first, when each "
            "held and when it was believed, what superseded it and where it came from. Call it when the "
            "user asks how or when something changed, or to understand a recall hit with current=false. "
            "memory_id comes from a recall hit."
        ),
        annotations=ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True),
    )
    def history(
        ctx: Context,
        user_id: UserId,
        memory_id: Annotated[str, Field(min_length=1, description="A memory_id from a recall hit.")],
    ) -> Annotated[CallToolResult, HistoryOut]:
        def call() -> CallToolResult:
            # no versions: another user's memory looks the same as none at all
            out = HistoryOut.of(memory.history(memory_id, user_id=user_id,
                                               missing="take the id from a recall hit"))
            return _result(out, _render_history(out))
        return _guarded(ctx, user_id, call)

    @server.tool(
        description=(
            "Delete memories for real (not hide them). Call it only when the user asks to delete or "
            "forget something. Pass the source_ids of the messages to delete (a recall hit's sources): "
            "they go with every memory that came only from them. Or pass one memory_id. "
            "everything=true erases all of this user's memories: only on an explicit request. "
            "Returns a receipt of what was deleted."
        ),
        annotations=ToolAnnotations(read_only_hint=False, destructive_hint=True, idempotent_hint=True),
    )
    def forget(
        ctx: Context,
        user_id: UserId,
        source_ids: Annotated[list[str] | None, Field(
            description="Source ids of the messages to delete, as recall hits list them.")] = None,
        memory_id: Annotated[str | None, Field(
            description="One memory to delete, from a recall hit.")] = None,
        # strict: in lax mode the string "yes" counted as true and deleted the user
        everything: Annotated[bool, Field(strict=True,
            description="Delete everything stored for this user. Only on an explicit request.")] = False,
    ) -> Annotated[CallToolResult, ForgetOut]:
        def call() -> CallToolResult:
            if everything:
                gone = memory.forget_user(user_id)  # runs the dualmem.on_forget hooks, as REST and CLI
                out = ForgetOut.of(gone.deleted, user_id, gone.hook_lines())
            else:
                out = ForgetOut.of(memory.forget(user_id=user_id, source_ids=source_ids,
                                                 memory_id=memory_id), user_id)
            total = sum(out.deleted.values())
            text = (f"Deleted {total} records: " + ", ".join(f"{n} {kind}" for kind, n in
                                                            out.deleted.items() if n)
                    if total else "Nothing matched; nothing was deleted.")
            text += "".join(f"\n{line}" for line in out.hooks)
            return _result(out, text)
        return _guarded(ctx, user_id, call)

    @server.tool(
        description=(
            "The user's open plans coming due: what they said they would do ('I'm flying to Lisbon next "
            "Friday') and have not since said is done or dropped, due from the start of today to now plus "
            "`within`. Call it at the start of a conversation to follow up on plans proactively. "
            "A plan said without a date is not listed."
        ),
        annotations=ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True),
    )
    def upcoming(
        ctx: Context,
        user_id: UserId,
        within: Annotated[str, Field(
            description="How far ahead: a whole number and h, d or w, like 7d or 12h.")] = "7d",
    ) -> Annotated[CallToolResult, UpcomingOut]:
        def call() -> CallToolResult:
            out = UpcomingOut.of(user_id, within, memory.upcoming(user_id, within=within))
            text = "\n".join(f"{i.due.date().isoformat()}: {i.text}" for i in out.intentions)
            return _result(out, text or f"No open plans come due within {within}.")
        return _guarded(ctx, user_id, call)

    @server.tool(
        description=(
            "Who the user is and what lasts about them: `entries` holds the current value of each "
            "single-valued fact (lives in, works at, ...); `lasting` the preferences and traits (likes, "
            "hobbies, languages, ...) told on two or more sessions or days, each with its sources. "
            "Call it at the start of a conversation to personalise it."
        ),
        annotations=ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True),
    )
    def profile(
        ctx: Context,
        user_id: UserId,
        subject: Annotated[str, Field(
            description="Whose profile: 'user', or a person they mentioned.")] = "user",
    ) -> Annotated[CallToolResult, ProfileOut]:
        def call() -> CallToolResult:
            out = ProfileOut.of(user_id, subject, memory.layered_profile(user_id, subject=subject))
            lines = [f"{e.predicate}: {e.value}" for e in out.entries.values()]
            lines += [f"{e.predicate}: {e.value} ({e.occasions} occasions)" for e in out.lasting]
            return _result(out, "\n".join(lines) or f"Nothing known about {subject} yet.")
        return _guarded(ctx, user_id, call)

    return server


# -- running ------------------------------------------------------------------------------------

def _loopback_security(host: str) -> TransportSecuritySettings:
    """DNS-rebinding protection: only Host and Origin headers that name this machine."""
    named = f"[{host}]" if ":" in host else host
    hosts = sorted({"127.0.0.1:*", "localhost:*", "[::1]:*", f"{named}:*"})
    return TransportSecuritySettings(allowed_hosts=hosts, allowed_origins=[f"http://{h}" for h in hosts])


def run_server(transport: str = "stdio", host: str = "127.0.0.1", port: int = 8765,
               store_url: str | None = None, *, allow_remote: bool = False) -> None:
    """Serve the memory at ``store_url`` (default: ``DUALMEM_STORE``, else the embedded store) over MCP
    until the host disconnects (stdio) or the process is stopped (HTTP).

    transport: ``stdio`` or ``http`` (streamable HTTP at ``http://host:port/mcp``). Over HTTP a
        request needs an API token once any exists, and always beyond loopback, where the server
        refuses to start without one (``dualmem token create``).
    allow_remote: no longer needed (kept so old callers work): beyond loopback tokens decide.
    """
    if transport not in ("stdio", "http", "streamable-http"):
        raise InvalidInput(f"unknown MCP transport {transport!r}; use 'stdio' or 'http'")
    http = transport != "stdio"
    tokens = TokenFile(tokens_path(store_url))
    required = http and require_tokens_beyond_loopback(host, tokens, "MCP over HTTP")  # or refuses
    if not 0 < port < 65536:
        raise InvalidInput(f"port must be between 1 and 65535, got {port}")
    logging.basicConfig(level=logging.INFO, stream=sys.stderr,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    with MemoryService.open(store_url) as services:
        if services.created_note():  # shown: a mistyped URL would otherwise answer from an empty store
            log.warning("%s", services.created_note())
        server = build_server(services)
        log.info("dualmem MCP server on a %s over %s", type(services.store).__name__,
                 "streamable HTTP" if http else "stdio")
        if not http:
            anyio.run(_run_stdio, server)
            return
        log.info("API tokens: %s (%s)", "required" if required or tokens.any() else
                 "none yet, so none asked for on loopback", tokens.path)
        _serve_http(server, host, port, tokens, required)


async def _run_stdio(server: MCPServer) -> None:
    """``MCPServer.run("stdio")``, with a read stream that answers what it cannot read and a
    write stream that notes which requests were answered."""
    from mcp.server.stdio import stdio_server

    low = server._lowlevel_server  # the SDK's own stdio loop, which we must wrap, uses it too
    async with stdio_server() as (read_stream, write_stream):
        unanswered = _Unanswered()
        await low.run(_Answering(read_stream, write_stream, unanswered), _Noting(write_stream, unanswered),
                      low.create_initialization_options())


class _Unanswered:
    """Ids of the requests read and not yet answered. At the end of input the SDK cancels the
    handlers still running, so a client that pipes its requests and closes stdin lost the later
    replies; the read stream holds back the end of input until this is empty instead."""

    def __init__(self) -> None:
        self._ids: set[RequestId] = set()
        self._changed = anyio.Event()

    def add(self, request_id: RequestId) -> None:
        self._ids.add(request_id)

    def settle(self, request_id: object) -> None:
        if isinstance(request_id, int | str) and request_id in self._ids:
            self._ids.discard(request_id)
            self._changed.set()

    async def wait_empty(self) -> None:
        while self._ids:
            self._changed = anyio.Event()
            await self._changed.wait()


class _Answering:
    """The stdio read stream, but a line that is not a JSON-RPC message (not JSON, a lone
    surrogate, the wrong shape) gets a JSON-RPC error reply: the SDK only logs it and drops it,
    so the client waited for an answer forever. Its end comes once every request is answered."""

    def __init__(self, inner: ReadStream[SessionMessage | Exception], write: WriteStream[SessionMessage],
                 unanswered: _Unanswered) -> None:
        self._inner, self._write, self._unanswered = inner, write, unanswered

    @property
    def last_context(self) -> contextvars.Context | None:
        return getattr(self._inner, "last_context", None)  # the dispatcher runs handlers in it

    async def receive(self) -> SessionMessage:
        while True:
            try:
                item = await self._inner.receive()
            except anyio.EndOfStream:
                await self._unanswered.wait_empty()
                raise
            if isinstance(item, Exception):
                await self._write.send(SessionMessage(_error_reply(item)))
                continue
            message = item.message
            if isinstance(message, JSONRPCRequest):
                self._unanswered.add(message.id)
            elif isinstance(message, JSONRPCNotification) and message.method == "notifications/cancelled":
                self._unanswered.settle((message.params or {}).get("requestId"))  # never answered: spec
            return item

    async def aclose(self) -> None:
        await self._inner.aclose()

    def __aiter__(self) -> _Answering:
        return self

    async def __anext__(self) -> SessionMessage:
        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None

    async def __aenter__(self) -> _Answering:
        return self

    async def __aexit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                        tb: TracebackType | None) -> bool | None:
        await self.aclose()
        return None


class _Noting:
    """The stdio write stream, noting each reply so the end of input can wait for the rest."""

    def __init__(self, inner: WriteStream[SessionMessage], unanswered: _Unanswered) -> None:
        self._inner, self._unanswered = inner, unanswered

    async def send(self, item: SessionMessage, /) -> None:
        try:
            await self._inner.send(item)
        finally:  # settled even when stdout is gone: a reply that cannot be written must not hang exit
            if isinstance(item.message, JSONRPCResponse | JSONRPCError):
                self._unanswered.settle(item.message.id)

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def __aenter__(self) -> _Noting:
        return self

    async def __aexit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                        tb: TracebackType | None) -> bool | None:
        await self.aclose()
        return None


def _error_reply(exc: Exception):
    """-32700 for a line that is not JSON; -32600, with the request's id when it has one, for
    JSON that is not a valid JSON-RPC message (e.g. a string holding a lone surrogate)."""
    import json

    from mcp.types import ErrorData
    from pydantic import ValidationError

    errors = exc.errors() if isinstance(exc, ValidationError) else []
    raw: Any  # pydantic's input, whatever the client sent; json.loads raises TypeError on a non-string
    raw, code = errors[0].get("input") if errors else None, -32600
    message = "Invalid request: not a JSON-RPC 2.0 message (jsonrpc, id, method, params)"
    if errors and errors[0]["type"] == "json_invalid":
        try:
            raw = json.loads(raw)  # Python reads a lone surrogate escape; the SDK refuses it
            message = ("Invalid request: the JSON is not valid Unicode (a lone surrogate such as "
                       "\\ud800 without its pair?); send valid UTF-8")
        except (TypeError, ValueError):
            raw, code = None, -32700
            message = "Parse error: the line is not JSON; send one JSON-RPC message per line"
    request_id = raw.get("id") if isinstance(raw, dict) else None
    if isinstance(request_id, bool) or not isinstance(request_id, str | int):
        request_id = None
    log.warning("answered an unreadable message with %d: %s", code, message)
    return JSONRPCError(jsonrpc="2.0", id=request_id, error=ErrorData(code=code, message=message))


def _serve_http(server: MCPServer, host: str, port: int, tokens: TokenFile, required: bool) -> None:
    import uvicorn

    security = _loopback_security(host) if is_loopback(host) else None
    # the tokens wrap the SDK's app: no request reaches a session without one, when one is needed
    app = BearerAuth(server.streamable_http_app(host=host, transport_security=security), tokens,
                     always=required)
    # log_config=None: uvicorn's own config sends access logs to stdout; ours sends all to stderr.
    uvicorn.Server(uvicorn.Config(app, host=host.strip("[]"), port=port, log_config=None)).run()
    log.info("dualmem MCP server stopped")


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m dualmem_core.mcp_server [--http] [--host H] [--port P] [--store URL]``."""
    parser = argparse.ArgumentParser(prog="python -m dualmem_core.mcp_server",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--http", action="store_true", help="streamable HTTP instead of stdio")
    parser.add_argument("--host", default="127.0.0.1", help="HTTP bind address (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8765, help="HTTP port (default 8765)")
    parser.add_argument("--store", default=None, help="store URL (default: DUALMEM_STORE, else embedded)")
    parser.add_argument("--allow-remote", action="store_true",
                        help="no longer needed: a non-loopback --host is served once an API token exists")
    args = parser.parse_args(argv)
    try:
        run_server("http" if args.http else "stdio", args.host, args.port, args.store,
                   allow_remote=args.allow_remote)
    except DualmemError as exc:
        print(f"dualmem mcp: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
