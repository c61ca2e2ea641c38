"""The calendar under the date reader: arithmetic on days and months, and the instant a named date is.

``add_months`` and ``add_years`` clamp month ends, ``period_end`` steps to the start of the next day,
week, month, season, year or decade, and the anchors turn "May", "3 June", "summer", "Friday" or
"next week" into the day they name, looking back from ``now`` or ahead of it. They know nothing of how
the date was written; ``date_patterns.py`` finds the words and ``dates.py`` what surrounds them.
"""

from __future__ import annotations

import calendar
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

SEASONS = {"spring": 3, "summer": 6, "fall": 9, "autumn": 9, "winter": 12}


# ---------------------------------------------------------------- calendar arithmetic


def day_start(value: datetime) -> datetime:
    """Midnight UTC of ``value``'s day (in UTC)."""
    value = value.astimezone(UTC)
    return datetime(value.year, value.month, value.day, tzinfo=UTC)


def add_months(value: datetime, months: int) -> datetime:
    """``value`` moved by whole months, the day clamped to the target month's length."""
    index = value.year * 12 + (value.month - 1) + months
    year, month = divmod(index, 12)
    day = min(value.day, calendar.monthrange(year, month + 1)[1])
    return value.replace(year=year, month=month + 1, day=day)


def add_years(value: datetime, years: int) -> datetime:
    return add_months(value, 12 * years)


def shift(now: datetime, unit: str, count: int) -> datetime:
    unit = unit.rstrip("s")
    base = day_start(now)
    if unit == "day":
        return base + timedelta(days=count)
    if unit == "week":
        return base + timedelta(weeks=count)
    if unit == "month":
        return add_months(base, count)
    if unit == "decade":
        return add_years(base, 10 * count)
    return add_years(base, count)


def end_of_period(start: datetime, granularity: str) -> datetime | None:
    step = _PERIOD_STEPS.get(granularity)
    return step(start) if step else None


# Built once: ``end_of_period`` runs for every dated point; a fresh table per call cost more than the step.
_PERIOD_STEPS: dict[str, Callable[[datetime], datetime]] = {
    "day": lambda d: d + timedelta(days=1),
    "week": lambda d: d + timedelta(weeks=1),
    "weekend": lambda d: d + timedelta(days=2),
    "month": lambda d: add_months(d, 1),
    "season": lambda d: add_months(d, 3),
    "year": lambda d: add_years(d, 1),
    "decade": lambda d: add_years(d, 10),
}




# ---------------------------------------------------------------- anchors: what a date names


@dataclass(frozen=True, slots=True)
class Anchor:
    start: datetime | None
    granularity: str
    direction: int
    confidence: float
    kind: str = "point"  # anchors may already be durations or vague


def month_anchor(month: int, now: datetime, mode: str, future: bool | None) -> datetime:
    """The 1st of ``month`` chosen by ``mode``: "last", "next", "this" or bare (past/future)."""
    this_year = datetime(now.year, month, 1, tzinfo=UTC)
    if mode == "this":
        return this_year
    if mode == "last":
        return this_year if month < now.month else add_years(this_year, -1)
    if mode == "next" or future:
        upcoming = month > now.month or (mode != "next" and month == now.month)
        return this_year if upcoming else add_years(this_year, 1)
    return this_year if month <= now.month else add_years(this_year, -1)


def day_anchor(month: int, day: int, year: int | None, now: datetime, future: bool | None) -> datetime | None:
    def make(y: int) -> datetime | None:
        try:
            return datetime(y, month, day, tzinfo=UTC)
        except ValueError:  # 30 February, or 29 February outside a leap year
            return None

    if year is not None:
        return make(year)
    today = day_start(now)
    if future:
        for y in range(now.year, now.year + 9):  # nine years always includes a leap year for 29 Feb
            candidate = make(y)
            if candidate and candidate >= today:
                return candidate
        return None
    for y in range(now.year, now.year - 9, -1):
        candidate = make(y)
        if candidate and candidate <= today:
            return candidate
    return None


def season_anchor(season: str, now: datetime, mode: str, future: bool | None) -> datetime:
    month = SEASONS[season]
    mine = [datetime(y, month, 1, tzinfo=UTC) for y in range(now.year - 2, now.year + 2)]  # checks the years
    # The latest season start (1 Mar/Jun/Sep/Dec) not after ``now``: walking down from the top finds the
    # one the full list's max() would, after a few candidates instead of sixteen.
    current = next((
        s
        for y in range(now.year + 1, now.year - 3, -1)
        for m in (12, 9, 6, 3)
        if (s := datetime(y, m, 1, tzinfo=UTC)) <= now
    ), None)
    if current is None:
        raise ValueError("no season start before now")  # as max() of nothing would: no date to give
    if mode == "last":
        return max(s for s in mine if s < current)
    if mode == "next":
        return min(s for s in mine if s > now)
    if mode == "this":
        return min(mine, key=lambda s: abs((s - now).total_seconds()))
    if future:
        return min(s for s in mine if s >= current)
    return max(s for s in mine if s <= now)


def weekday_anchor(weekday: int, now: datetime, mode: str, future: bool | None) -> datetime:
    today = day_start(now)
    back = (today.weekday() - weekday) % 7
    ahead = (weekday - today.weekday()) % 7
    if mode == "last":
        return today - timedelta(days=back or 7)
    if mode == "next" or future:
        return today + timedelta(days=ahead or 7)
    if mode == "this":
        return today + timedelta(days=ahead)
    return today - timedelta(days=back)


def relative_period(word: str, unit: str, now: datetime) -> Anchor:
    """'last/this/next' + week/weekend/month/year/decade."""
    step = {"last": -1, "past": -1, "previous": -1, "this past": -1, "this": 0, "next": 1, "coming": 1,
            "this coming": 1}[word]  # fmt: skip
    today = day_start(now)
    direction = -1 if step < 0 else (1 if step > 0 else 0)
    if unit == "week":
        monday = today - timedelta(days=today.weekday())
        return Anchor(monday + timedelta(weeks=step), "week", direction, 0.9)
    if unit == "weekend":
        saturday = today - timedelta(days=today.weekday()) + timedelta(days=5)
        return Anchor(saturday + timedelta(weeks=step), "weekend", direction, 0.9)
    if unit == "month":
        return Anchor(add_months(today.replace(day=1), step), "month", direction, 0.9)
    if unit == "decade":
        decade = datetime(now.year - now.year % 10 + 10 * step, 1, 1, tzinfo=UTC)
        return Anchor(decade, "decade", direction, 0.8)
    return Anchor(datetime(now.year + step, 1, 1, tzinfo=UTC), "year", direction, 0.9)
