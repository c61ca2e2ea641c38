"""Errors a user of dualmem can hit. Each message says what was wrong and what to do."""

from __future__ import annotations


class DualmemError(Exception):
    """Base class of every error dualmem raises on purpose."""


class InvalidInput(DualmemError, ValueError):
    """The caller passed something dualmem cannot store or search with."""


class DimensionMismatch(InvalidInput):
    """A vector's length differs from the store's embedding dimension."""


class StoreConfigError(DualmemError):
    """The store URL or its options are wrong (unknown scheme, bad path, mismatched settings)."""


class EditorConfigError(DualmemError):
    """A setting of the Editor is wrong (an unknown layer in ``DUALMEM_EDITOR_LAYERS``)."""


class StoreNotFound(StoreConfigError):
    """A read named a store that does not exist (a mistyped URL must not make a new, empty one)."""


class StoreUnavailable(DualmemError):
    """The store could not be reached or opened; nothing was written."""


class ConflictError(DualmemError):
    """A write collided with existing data (an id already taken, a version already closed)."""


class SourceIdTaken(ConflictError):
    """A write's episode reused a (user, source id) that another stored episode already has: the
    store refused the whole write (nothing of it was written). ``taken`` maps each such source id
    to the text stored under it, so the caller can tell a repeat (same text) from a clash."""

    def __init__(self, user_id: str, taken: dict[str, str]):
        self.user_id, self.taken = user_id, dict(taken)
        super().__init__(
            f"source id(s) {sorted(taken)} of user {user_id!r} already name stored messages; "
            "nothing of this write was written")


class NotFound(DualmemError, KeyError):
    """A referenced memory, entity, episode or run does not exist for this user."""

    def __str__(self) -> str:  # KeyError would otherwise quote the message
        return str(self.args[0]) if self.args else ""


class MissingExtra(DualmemError, ImportError):
    """A feature needs a package from an optional extra that is not installed (extras.require)."""


class TenantViolation(DualmemError):
    """A write or change tried to cross from one user's data into another's."""


class ProviderError(DualmemError):
    """A model provider (LLM or embedder) could not be reached, refused the request, or answered
    with something unusable (not JSON, the wrong shape, the wrong number or length of vectors)."""


class ProviderConfigError(ProviderError):
    """The provider settings are wrong or incomplete (unknown embedder, missing API key, bad mode)."""


class CacheMiss(DualmemError):
    """Replay mode needed a model reply or vector that was never recorded.

    Deliberately not a ``ProviderError``: code that tolerates a flaky provider must not also
    swallow a replay miss, which means the recordings are out of date.
    """


class CacheError(DualmemError):
    """The provider cache file, or a recording being imported, is unreadable or inconsistent."""
