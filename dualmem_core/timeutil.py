"""Time conventions shared by every store: UTC, closed-open intervals, a far-future sentinel."""

from __future__ import annotations

from datetime import UTC, datetime

from .errors import InvalidInput

# Open interval ends use a sentinel instead of NULL so range indexes and plain comparisons work.
FAR_FUTURE = datetime(9999, 12, 31, tzinfo=UTC)
# Earliest instant a store accepts; older values are almost always a unit mistake.
EARLIEST = datetime(1, 1, 1, tzinfo=UTC)
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def utcnow() -> datetime:
    return datetime.now(UTC)


def require_aware(value: object, name: str) -> datetime:
    """Return ``value`` as a UTC datetime, or raise if it is not a timezone-aware datetime."""
    if not isinstance(value, datetime):
        raise InvalidInput(f"{name} must be a datetime, got {type(value).__name__}")
    if value.tzinfo is None or value.utcoffset() is None:
        raise InvalidInput(
            f"{name}={value.isoformat()} has no timezone; pass an aware datetime, "
            "e.g. datetime(..., tzinfo=timezone.utc)"
        )
    return value.astimezone(UTC)


def to_micros(value: datetime) -> int:
    """Microseconds since the Unix epoch (the embedded store's storage form)."""
    delta = value - _EPOCH
    return (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds


def from_micros(value: int) -> datetime:
    from datetime import timedelta

    return _EPOCH + timedelta(microseconds=value)


def is_open(value: datetime) -> bool:
    """True for an interval end that has not been closed."""
    return value >= FAR_FUTURE
