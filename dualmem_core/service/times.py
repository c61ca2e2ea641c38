"""Times in, as every frontend reads them: an ISO 8601 date (its midnight) or date-time, UTC when
it has no offset. Each frontend words its own refusal (argparse's usage error, a tool error, a 422)."""

from __future__ import annotations

from datetime import UTC, datetime

from ..errors import InvalidInput


def read_time(text: str) -> datetime:
    """``text`` as an aware datetime, keeping its offset (UTC when it has none); ValueError if it
    is not ISO 8601."""
    value = datetime.fromisoformat(text.strip())
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value


def as_utc(moment: datetime, name: str = "") -> datetime:
    """An aware moment in UTC; a naive one is taken to be UTC already. ``InvalidInput`` (a
    ValueError, so pydantic makes it a 422) when UTC has no such day: 0001-01-01T00:00+14:00 is
    still year 0 there, and datetime raised OverflowError, a 500 or a tool error with no reason."""
    try:
        return (moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment).astimezone(UTC)
    except OverflowError:
        said = f"{name}={moment.isoformat()}" if name else moment.isoformat()
        raise InvalidInput(
            f"{said} falls outside the calendar once converted to UTC (before 0001-01-01 or after "
            "9999-12-31); give a time between 0001-01-02 and 9999-12-30"
        ) from None


def parse_time(value: str | None, name: str) -> datetime | None:
    """An optional ISO 8601 date or date-time as an aware UTC datetime (a bare date is its midnight,
    UTC); None for nothing or blank. Anything else is ``InvalidInput`` naming the parameter."""
    if value is None or not value.strip():
        return None
    try:
        parsed = read_time(value)
    except ValueError:
        raise InvalidInput(
            f"{name}={value!r} is not an ISO 8601 date or date-time; "
            "write e.g. 2026-02-01 or 2026-02-01T18:00:00Z"
        ) from None
    return as_utc(parsed, name)
