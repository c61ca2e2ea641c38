"""The FastAPI application: one ``MemoryService`` for its lifetime, our errors as status codes, a body
limit, API tokens (``service/http_auth.py``) once any exist, and always beyond loopback.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Iterable
from contextlib import asynccontextmanager
from http import HTTPStatus
from importlib.metadata import PackageNotFoundError, version

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse
from starlette.exceptions import HTTPException

from ..errors import DualmemError
from ..service import STATUS_OF_ERROR, MemoryService, redact, status_of
from ..service.http_auth import BearerAuth, FailureLimit
from ..service.invalid import describe
from ..service.tokens import TokenFile, require_tokens_beyond_loopback, tokens_path
from .docs import docs_page
from .hosts import HostCheck, allowed_hosts
from .logs import log_paths_only
from .middleware import BodySizeLimit, InternalErrors
from .routes import health, router

__all__ = ["MAX_BODY_BYTES", "STATUS_OF_ERROR", "create_app", "serve", "status_of"]

log = logging.getLogger(__name__)

MAX_BODY_BYTES = 2 * 1024 * 1024  # the store takes up to 2M characters of text; a message is far less

DESCRIPTION = """Long-term memory for AI agents over HTTP: the Writer's remember, recall, history,
profile and forget, and the Editor's runs and rollbacks, each scoped to the user in the path.

Times are ISO 8601 dates or date-times (`2026-03-02`, `2026-03-02T18:00:00+01:00`), UTC when
they have no offset. An open interval end, or an unknown start, is `null`.
Every error is `{"error": <type>, "detail": <what was wrong and what to do>}`; a request that
does not match the schema is 422 `{"error": "InvalidInput", "detail": "query.as_of: is not an ISO
8601 date ..."}`, each problem after the place it was found (`body.content[0].role`).

Once any API token exists (`dualmem token create`), and always when served beyond loopback, every
request but `/healthz` and these docs needs `Authorization: Bearer <token>` (else 401), and a token
reaches only the users it was made for (else 403)."""

OPEN_PATHS = ("/healthz", "/docs", "/openapi.json")  # liveness and the API's own description: no memories


def create_app(store_url: str | None = None, *, max_body_bytes: int = MAX_BODY_BYTES,
               hosts: Iterable[str] | None = None, tokens: TokenFile | None = None,
               require_token: bool = False, failure_limit: FailureLimit | None = None) -> FastAPI:
    """The API over the store at ``store_url`` (else ``DUALMEM_STORE``, else the embedded default),
    with providers from the environment. The store opens when the app starts and closes when it stops.

    hosts: the names the API answers to in ``Host`` and ``Origin`` (default ``allowed_hosts()``:
        loopback and ``DUALMEM_ALLOWED_HOSTS``); others get 421 and 403 (``rest/hosts.py``).
    tokens: the API tokens (default: the file beside the store, ``service/tokens.py``); a token is
        needed once the file holds any, or always with ``require_token`` (what ``serve`` sets beyond
        loopback, so revoking the last token shuts the door instead of opening it).
    """
    tokens = tokens or TokenFile(tokens_path(store_url))

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        services = MemoryService.open(store_url)
        if services.created_note():  # shown: a mistyped URL would otherwise answer from an empty store
            log.warning("%s", services.created_note())
        app.state.services = services
        try:
            yield
        finally:
            services.close()

    # FastAPI's /docs and /redoc load their assets from a CDN (blank offline): docs.py's page instead.
    app = FastAPI(title="dualmem", version=_version(), description=DESCRIPTION, lifespan=lifespan,
                  docs_url=None, redoc_url=None)
    app.include_router(router)
    app.include_router(health)
    app.add_middleware(InternalErrors)
    app.add_middleware(BodySizeLimit, max_bytes=max_body_bytes)
    # before the body is read; after the Host check, so a rebinding page is not counted as a failure
    app.add_middleware(BearerAuth, tokens=tokens, always=require_token, open_paths=OPEN_PATHS,
                       limit=failure_limit)
    # added last, so it runs first: a refused request is not read or logged as a failure
    app.add_middleware(HostCheck, hosts=allowed_hosts() if hosts is None else hosts)

    @app.get("/docs", include_in_schema=False)
    async def docs() -> HTMLResponse:
        return HTMLResponse(docs_page(app.openapi()))

    @app.exception_handler(RequestValidationError)
    async def invalid_request(request: Request, exc: RequestValidationError) -> JSONResponse:
        # FastAPI's own {"detail": [...]} was the one error not in our shape, with pydantic's words
        return JSONResponse({"error": "InvalidInput", "detail": describe(exc.errors())}, status_code=422)

    @app.exception_handler(HTTPException)
    async def http_error(request: Request, exc: HTTPException) -> JSONResponse:
        # Starlette's own refusals (an unknown path, a method the path does not take, a body that
        # is not UTF-8 or nests too deep) were {"detail": "Not Found"}, not our shape (red-team pass)
        name = HTTPStatus(exc.status_code).phrase.title().replace(" ", "").replace("-", "")
        return JSONResponse({"error": name, "detail": _http_detail(request, exc)},
                            status_code=exc.status_code, headers=exc.headers)

    @app.exception_handler(DualmemError)
    async def dualmem_error(request: Request, exc: DualmemError) -> JSONResponse:
        code = status_of(exc)
        detail = _redact(str(exc), getattr(getattr(request.app.state, "services", None), "store", None))
        if code >= 500:
            log.warning("%s %s failed: %s: %s", request.method, request.url.path, type(exc).__name__, detail)
        return JSONResponse({"error": type(exc).__name__, "detail": detail}, status_code=code)

    return app


def serve(host: str = "127.0.0.1", port: int = 8000, store_url: str | None = None, *,
          log_queries: bool = False) -> None:
    """Serve the API with uvicorn until interrupted.

    log_queries: keep query strings (a recall's question) in the access log; by default it logs
        the path only, so a forgotten user's questions do not outlive them there (``logs.py``).
    """
    import uvicorn

    tokens = TokenFile(tokens_path(store_url))
    required = require_tokens_beyond_loopback(host, tokens, "the REST API")  # refuses with no tokens
    app = create_app(store_url, hosts=allowed_hosts(host), tokens=tokens, require_token=required)
    log.info("API tokens: %s (%s)", "required" if required or tokens.any() else
             "none yet, so none asked for on loopback", tokens.path)
    config = uvicorn.Config(app, host=host, port=port)
    if not log_queries:
        log_paths_only()  # after Config, which (re)configures uvicorn's loggers
    uvicorn.Server(config).run()


def _http_detail(request: Request, exc: HTTPException) -> str:
    said = f"{request.method} {request.url.path}"
    if exc.status_code == 404:
        return f"no such path: {said}; /docs lists the API's paths (users are /v1/users/ID/...)"
    if exc.status_code == 405:
        allowed = (exc.headers or {}).get("Allow", "")
        return f"{said}: this path does not take {request.method}" + (f"; it takes {allowed}" * bool(allowed))
    if exc.status_code == 400:
        return "body: could not be read as JSON (not UTF-8, or nested too deeply); send one JSON object"
    return str(exc.detail)


def _redact(detail: str, store: object) -> str:
    """The detail without the store URL's credentials or options (``service.redact``)."""
    return redact(detail, store)


def _version() -> str:
    try:
        return version("dualmem")
    except PackageNotFoundError:
        return "0.0.0"
