"""How dualmem's errors reach a caller, for every frontend: the REST status of each error type, and a
detail that never shows a store URL's credentials. (The CLI prints the message and exits 1, 2 for a
usage error; the MCP server returns the message as a tool error.)"""

from __future__ import annotations

from urllib.parse import urlsplit

from ..errors import (
    ConflictError,
    DualmemError,
    InvalidInput,
    NotFound,
    ProviderConfigError,
    ProviderError,
    StoreUnavailable,
    TenantViolation,
)

# First match wins, so a subclass comes before its base.
STATUS_OF_ERROR: tuple[tuple[type[DualmemError], int], ...] = (
    (InvalidInput, 422),  # and DimensionMismatch
    (NotFound, 404),
    (ConflictError, 409),
    (TenantViolation, 403),
    (StoreUnavailable, 503),
    (ProviderConfigError, 500),  # the server's settings are wrong, not the provider
    (ProviderError, 502),
)


def status_of(error: DualmemError) -> int:
    """The HTTP status of one of our errors (500 for a type not in ``STATUS_OF_ERROR``)."""
    return next((code for kind, code in STATUS_OF_ERROR if isinstance(error, kind)), 500)


def no_memory(user_id: str, memory_id: str, hint: str) -> NotFound:
    """The error for a memory id that names nothing of this user's (another user's memory is as
    unknown as a made-up id); ``hint`` says what happened or what to do."""
    return NotFound(f"user {user_id!r} has no memory {memory_id!r}; {hint}")


def redact(detail: str, store: object) -> str:
    """The detail without the store URL's credentials or options (a Neo4j URL may carry a password)."""
    url = getattr(store, "url", None)
    if not url or url not in detail:
        return detail
    parts = urlsplit(url)
    host = parts.hostname or ""
    shown = f"{parts.scheme}://{host}{f':{parts.port}' if parts.port else ''}{parts.path}"
    return detail.replace(url, shown)
