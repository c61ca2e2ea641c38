"""The endpoints: one per ``MemoryService`` operation, scoped by the user in the path.

Endpoints are plain ``def``: FastAPI runs them in its threadpool, so blocking store calls never
hold up the event loop.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Path, Query, Request, Response, status
from fastapi.dependencies.models import Dependant
from fastapi.routing import APIRoute
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from pydantic import BeforeValidator
from pydantic_core import PydanticCustomError

from ..errors import InvalidInput, TenantViolation
from ..service import MAX_HITS, MemoryService
from ..service.http_auth import refusal
from ..service.models import (
    MEMORY_ID,
    RUN_ID,
    SAID_AT,
    EditorRunOut,
    EditorRunsOut,
    ErrorOut,
    ForgetOut,
    ForgetUserOut,
    HealthOut,
    HistoryOut,
    HitOut,
    ProfileOut,
    RecallOut,
    RememberIn,
    RememberOut,
    RollbackOut,
    Time,
    UpcomingOut,
)

MAX_K = MAX_HITS


async def _services(request: Request) -> MemoryService:
    return request.app.state.services


def _errors(*codes: int) -> dict[int | str, dict]:
    return {code: {"model": ErrorOut} for code in codes}


ServicesDep = Annotated[MemoryService, Depends(_services)]
UserId = Annotated[str, Path(description="Whose memory: every operation is scoped to one user.",
                             examples=["u1"])]
MemoryId = Annotated[str, Path(description="A memory id from remember or recall.", examples=[MEMORY_ID])]
RunId = Annotated[str, Path(description="An Editor run id.", examples=[RUN_ID])]

# Checked by the BearerAuth middleware (service/http_auth.py); declared here so the OpenAPI
# document names the scheme and clients generated from it send the header.
_bearer = HTTPBearer(auto_error=False, scheme_name="token",
                     description="An API token from 'dualmem token create'; needed once any exists.")


def _known_query(request: Request) -> None:
    """422 for a query parameter the endpoint does not take, as for an unknown body field: a
    misspelt ``dry_run`` or ``as_of`` was silently ignored (the red-team pass)."""
    route = request.scope.get("route")
    if not isinstance(route, APIRoute):
        return
    taken = _query_names(route.dependant)
    unknown = sorted(set(request.query_params) - taken)
    if unknown:
        takes = ", ".join(sorted(taken)) or "no query parameters"
        raise InvalidInput("; ".join(f"query.{name}: is not a parameter of this endpoint" for name in unknown)
                           + f" (it takes {takes})")


def _query_names(dependant: Dependant) -> set[str]:
    """The query parameters an endpoint takes, its dependencies' included."""
    names = {p.alias for p in dependant.query_params}
    for sub in dependant.dependencies:
        names |= _query_names(sub)
    return names


def _strict_bool(value: object) -> object:
    # pydantic's lax mode read "yes", "on", "1" and "t" as true: a flag is only true or false
    if isinstance(value, str) and value not in ("true", "false"):
        raise PydanticCustomError("bool_parsing", "must be true or false")
    return value


Flag = Annotated[bool, BeforeValidator(_strict_bool)]


def _reach(request: Request, user_id: UserId,
           _: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)]) -> None:
    """403 when the request's API token was not made for this user (before anything is read)."""
    why = refusal(request.scope, user_id)
    if why:
        raise TenantViolation(why)


router = APIRouter(prefix="/v1/users/{user_id}", responses=_errors(401, 403, 422, 429, 500, 503),
                   dependencies=[Depends(_reach), Depends(_known_query)])


@router.post("/memories", tags=["memories"], status_code=status.HTTP_201_CREATED,
             responses=_errors(413, 502))
def remember(user_id: UserId, body: RememberIn, services: ServicesDep) -> RememberOut:
    """Store one message or a conversation: episodes, observations and the facts found in them."""
    result = services.remember(
        body.messages(), user_id=user_id, session_id=body.session_id, agent_id=body.agent_id, at=body.at,
        source_id=body.source_id, role=body.role, speaker=body.speaker,
    )
    return RememberOut.of(result)


@router.get("/recall", tags=["memories"], responses=_errors(502))
def recall(
    user_id: UserId,
    services: ServicesDep,
    q: Annotated[str, Query(min_length=1, description="What to recall.",
                            examples=["Where does the user live?"])],
    k: Annotated[int, Query(ge=1, le=MAX_K, description="How many memories to return.")] = 5,
    as_of: Annotated[Time | None, Query(
        description="Valid time: what held in the world then (ISO 8601 date or date-time; UTC if no "
        "offset).",
        examples=["2025-02-01T00:00:00Z"])] = None,
    known_at: Annotated[Time | None, Query(
        description="Transaction time: what the memory believed then (ISO 8601; UTC if no offset).",
        examples=[SAID_AT])] = None,
    session_id: Annotated[str | None, Query(description="Only memories from this conversation.")] = None,
    agent_id: Annotated[str | None, Query(description="Only memories this agent heard.")] = None,
) -> RecallOut:
    """The k memories that best answer the query, each with its score, why, sources and validity."""
    hits = services.recall(q, user_id=user_id, k=k, as_of=as_of, known_at=known_at,
                           session_id=session_id, agent_id=agent_id)
    return RecallOut(query=q, hits=[HitOut.of(h) for h in hits])


@router.get("/memories/{memory_id}/history", tags=["memories"], responses=_errors(404))
def history(user_id: UserId, memory_id: MemoryId, services: ServicesDep) -> HistoryOut:
    """Every version of a memory, oldest belief first, and what superseded it."""
    found = services.history(memory_id, user_id=user_id, missing="take ids from recall or remember",
                             hide_unknown=True)  # another user's memory is as unknown as a made-up id
    return HistoryOut.of(found)


@router.get("/profile", tags=["memories"])
def profile(
    user_id: UserId,
    services: ServicesDep,
    subject: Annotated[str, Query(
        description="Whose profile: the user, or a person they mentioned.")] = "user",
) -> ProfileOut:
    """Identity: the current value of each single-valued fact (lives in, works at, ...); and the
    lasting preferences and traits (likes, hobbies, ...) told on two or more sessions or days;
    each with its sources."""
    return ProfileOut.of(user_id, subject, services.layered_profile(user_id, subject=subject))


@router.get("/upcoming", tags=["memories"])
def upcoming(
    user_id: UserId,
    services: ServicesDep,
    within: Annotated[str, Query(
        description="How far ahead: a whole number and h, d or w.", examples=["7d"])] = "7d",
) -> UpcomingOut:
    """The user's open plans coming due (from the start of today to now plus ``within``), soonest first."""
    return UpcomingOut.of(user_id, within, services.upcoming(user_id, within=within))


@router.delete("/memories", tags=["forget"])
def forget_sources(
    user_id: UserId,
    services: ServicesDep,
    source_id: Annotated[list[str], Query(
        min_length=1, description="Source ids of the messages to forget (repeat the parameter for more).",
        examples=[["msg-17"]])],
) -> ForgetOut:
    """Delete messages by your source ids, and every memory that came only from them."""
    return ForgetOut.of(services.forget(user_id=user_id, source_ids=source_id))


@router.delete("/memories/{memory_id}", tags=["forget"], responses=_errors(404))
def forget_memory(user_id: UserId, memory_id: MemoryId, services: ServicesDep) -> ForgetOut:
    """Delete one memory with every version and edge (the messages it came from stay)."""
    return ForgetOut.of(services.forget_memory(user_id=user_id, memory_id=memory_id,
                                               missing="nothing was deleted"))


@router.delete("", tags=["forget"])
def forget_user(user_id: UserId, services: ServicesDep) -> ForgetUserOut:
    """Delete everything stored for the user: messages, memories, entities, edges and Editor runs;
    then other installed packages' ``dualmem.on_forget`` hooks run, and ``hooks`` says what they did."""
    gone = services.forget_user(user_id)
    return ForgetUserOut(user_id=user_id, deleted=gone.deleted, hooks=gone.hook_lines())


@router.post("/editor/runs", tags=["editor"], responses=_errors(409, 502))
def run_editor(
    user_id: UserId,
    services: ServicesDep,
    dry_run: Annotated[Flag, Query(description="Decide and count, but change nothing.")] = False,
) -> EditorRunOut:
    """Run the Editor on the user's graph now, and wait for it: dedupe, supersede, resolve entities,
    mine relations, rescore. ``applied_at`` is null when nothing was published (a dry run, or
    nothing to change). A second run for the same user while one is in flight is refused (409)."""
    return EditorRunOut.of(services.edit(user_id, dry_run=dry_run))


@router.get("/editor/runs", tags=["editor"])
def editor_runs(user_id: UserId, services: ServicesDep) -> EditorRunsOut:
    """Every published Editor run and rollback of the user, oldest first."""
    return EditorRunsOut(runs=[EditorRunOut.of(r) for r in services.runs(user_id)])


@router.post("/editor/runs/{run_id}/rollback", tags=["editor"], responses=_errors(404, 409))
def rollback(
    user_id: UserId,
    run_id: RunId,
    services: ServicesDep,
    cascade: Annotated[Flag, Query(
        description="Also roll back later runs that changed the same memories, newest first.")] = False,
) -> RollbackOut:
    """Undo one Editor run exactly, keeping everything written since. Rolling back twice returns the
    first rollback with ``already_rolled_back: true`` (nothing undone this time); rolling back a
    rollback is refused (422); a later overlapping run refuses (409) unless ``cascade``."""
    earlier = services.rollback_of(run_id, user_id=user_id)  # asked first, as the CLI does
    run = earlier or services.rollback(run_id, user_id=user_id, cascade=cascade)
    return RollbackOut.of_rollback(run, already=earlier is not None)


health = APIRouter(tags=["health"], dependencies=[Depends(_known_query)])


@health.get("/healthz", responses=_errors(503))
def healthz(services: ServicesDep) -> HealthOut:
    """Whether the store answers a query."""
    return HealthOut(status="ok", backend=services.health())


@health.head("/healthz", include_in_schema=False)
def healthz_head(services: ServicesDep) -> Response:
    """GET's answer without a body, for ``curl -I`` and load balancers that check with HEAD."""
    services.health()  # StoreUnavailable: 503, as GET
    return Response(media_type="application/json")
