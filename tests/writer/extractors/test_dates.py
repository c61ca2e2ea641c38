"""Relative date resolution: fixed "now" values across month, year and leap-year boundaries."""

from __future__ import annotations

import random
import re
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest

from dualmem_core.writer.extractors.rules import date_calendar, date_patterns, dates
from dualmem_core.writer.extractors.rules.date_calendar import add_months, add_years
from dualmem_core.writer.extractors.rules.date_patterns import parse_count
from dualmem_core.writer.extractors.rules.dates import find_time_expressions, looks_future, resolve_relative


def d(year: int, month: int, day: int) -> datetime:
    return datetime(year, month, day, tzinfo=UTC)


MID_JUNE = datetime(2024, 6, 15, 14, 30, tzinfo=UTC)  # a Saturday
NEW_YEAR = datetime(2025, 1, 1, 9, 0, tzinfo=UTC)  # a Wednesday
LEAP_DAY = datetime(2024, 2, 29, 18, 0, tzinfo=UTC)  # a Thursday
END_OF_MARCH = datetime(2023, 3, 31, 8, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("text", "now", "expected"),
    [
        ("yesterday", MID_JUNE, (d(2024, 6, 14), None)),
        ("yesterday", NEW_YEAR, (d(2024, 12, 31), None)),
        ("the day before yesterday", LEAP_DAY, (d(2024, 2, 27), None)),
        ("tomorrow", LEAP_DAY, (d(2024, 3, 1), None)),
        ("last week", MID_JUNE, (d(2024, 6, 3), None)),
        ("last week", NEW_YEAR, (d(2024, 12, 23), None)),
        ("last month", NEW_YEAR, (d(2024, 12, 1), None)),
        ("last month", END_OF_MARCH, (d(2023, 2, 1), None)),
        ("last year", MID_JUNE, (d(2023, 1, 1), None)),
        ("next week", MID_JUNE, (d(2024, 6, 17), None)),
        ("next month", NEW_YEAR, (d(2025, 2, 1), None)),
        ("next year", NEW_YEAR, (d(2026, 1, 1), None)),
        ("two years ago", MID_JUNE, (d(2022, 6, 15), None)),
        ("a year ago", LEAP_DAY, (d(2023, 2, 28), None)),  # no 29 February in 2023
        ("4 years ago", LEAP_DAY, (d(2020, 2, 29), None)),
        ("3 months ago", MID_JUNE, (d(2024, 3, 15), None)),
        ("one month ago", END_OF_MARCH, (d(2023, 2, 28), None)),  # 31 March minus a month clamps
        ("a couple of weeks ago", MID_JUNE, (d(2024, 6, 1), None)),
        ("a few days ago", NEW_YEAR, (d(2024, 12, 29), None)),
        ("a decade ago", MID_JUNE, (d(2014, 6, 15), None)),
        ("twenty-one years ago", MID_JUNE, (d(2003, 6, 15), None)),
        ("since March", MID_JUNE, (d(2024, 3, 1), None)),
        ("since March", d(2024, 3, 10), (d(2024, 3, 1), None)),
        ("since March", d(2024, 2, 10), (d(2023, 3, 1), None)),
        ("since December", NEW_YEAR, (d(2024, 12, 1), None)),
        ("in 2019", MID_JUNE, (d(2019, 1, 1), None)),
        ("since 2019", MID_JUNE, (d(2019, 1, 1), None)),
        ("on May 3rd", MID_JUNE, (d(2024, 5, 3), None)),
        ("on May 3rd", d(2024, 4, 1), (d(2023, 5, 3), None)),
        ("May 3, 2024", NEW_YEAR, (d(2024, 5, 3), None)),
        ("3 May 2021", NEW_YEAR, (d(2021, 5, 3), None)),
        ("the 3rd of May", MID_JUNE, (d(2024, 5, 3), None)),
        ("on February 29", d(2025, 6, 1), (d(2024, 2, 29), None)),  # the last leap day
        ("2024-02-29", MID_JUNE, (d(2024, 2, 29), None)),
        ("in June 2020", MID_JUNE, (d(2020, 6, 1), None)),
        ("I've lived here for five years", MID_JUNE, (d(2019, 6, 15), None)),
        ("for five years", LEAP_DAY, (d(2019, 2, 28), None)),
        ("for the past 18 months", MID_JUNE, (d(2022, 12, 15), None)),
        ("for about six years now", MID_JUNE, (d(2018, 6, 15), None)),
        ("until 2020", MID_JUNE, (None, d(2020, 1, 1))),
        ("up until last month", MID_JUNE, (None, d(2024, 5, 1))),
        ("from 2015 to 2018", MID_JUNE, (d(2015, 1, 1), d(2019, 1, 1))),
        ("between 2010 and 2012", MID_JUNE, (d(2010, 1, 1), d(2013, 1, 1))),
        ("2015-2018", MID_JUNE, (d(2015, 1, 1), d(2019, 1, 1))),
        ("from November to February", MID_JUNE, (d(2023, 11, 1), d(2024, 3, 1))),
        ("last summer", MID_JUNE, (d(2023, 6, 1), None)),  # in June, last summer is the previous one
        ("last summer", d(2024, 10, 2), (d(2024, 6, 1), None)),
        ("last winter", d(2024, 1, 20), (d(2022, 12, 1), None)),
        ("this summer", d(2024, 4, 1), (d(2024, 6, 1), None)),
        ("last weekend", MID_JUNE, (d(2024, 6, 8), None)),
        ("last Friday", MID_JUNE, (d(2024, 6, 14), None)),
        ("on Monday", NEW_YEAR, (d(2024, 12, 30), None)),
        ("earlier this year", MID_JUNE, (d(2024, 1, 1), None)),
        ("recently", MID_JUNE, (None, None)),
        ("a while ago", MID_JUNE, (None, None)),
        ("for years", MID_JUNE, (None, None)),
        ("I live in Denver", MID_JUNE, (None, None)),
        ("moved in on the 10th", MID_JUNE, (d(2024, 6, 10), None)),  # a day of this month
        ("he turned 18 on the 20th and we had lunch", MID_JUNE, (d(2024, 5, 20), None)),  # not yet: May's
        ("back since the 31st!", END_OF_MARCH, (d(2023, 3, 31), None)),
    ],
)
def test_resolve_relative(text: str, now: datetime, expected: tuple) -> None:
    assert resolve_relative(text, now) == expected


@pytest.mark.parametrize(
    ("text", "now", "expected"),
    [
        ("in April", MID_JUNE, d(2025, 4, 1)),  # a plan: the next April
        ("in June", MID_JUNE, d(2024, 6, 1)),  # this month still counts as upcoming
        ("on Friday", MID_JUNE, d(2024, 6, 21)),
        ("next spring", MID_JUNE, d(2025, 3, 1)),
        ("in two weeks", MID_JUNE, d(2024, 6, 29)),
        ("in a few months", NEW_YEAR, d(2025, 4, 1)),
        ("on March 1st", LEAP_DAY, d(2024, 3, 1)),
        ("see you on the 2nd", MID_JUNE, d(2024, 7, 2)),
    ],
)
def test_future_reading(text: str, now: datetime, expected: datetime) -> None:
    assert resolve_relative(text, now, prefer_future=True)[0] == expected


def test_future_is_guessed_from_the_text() -> None:
    assert resolve_relative("I'm going to Lisbon in April", MID_JUNE)[0] == d(2025, 4, 1)
    assert resolve_relative("I was in Lisbon in April", MID_JUNE)[0] == d(2024, 4, 1)
    assert looks_future("we will move next year") and not looks_future("we moved last year")


def test_spans_cover_the_expression_and_its_preposition() -> None:
    text = "I moved to Denver last week for work"
    (expr,) = find_time_expressions(text, MID_JUNE)
    assert text[expr.start : expr.end] == "last week"
    assert expr.kind == "point" and expr.period_end == d(2024, 6, 10)
    (since,) = find_time_expressions("I've been here since 2019", MID_JUNE)
    assert since.text == "since 2019" and since.kind == "since"


def test_vague_words_are_found_but_unresolved() -> None:
    found = find_time_expressions("I recently moved and I live there now", MID_JUNE)
    assert [e.kind for e in found] == ["vague", "now"]
    assert all(e.valid_from is None for e in found)


def test_fuzzy_counts_are_less_confident() -> None:
    (exact,) = find_time_expressions("three days ago", MID_JUNE)
    (fuzzy,) = find_time_expressions("a few days ago", MID_JUNE)
    assert fuzzy.confidence < exact.confidence
    assert parse_count("a couple of") == (2, 0.6)
    assert parse_count("seventeen")[0] == 17 and parse_count("12")[0] == 12


def test_words_that_look_like_dates_are_not() -> None:
    assert find_time_expressions("I may move to Spain", MID_JUNE) == []
    assert find_time_expressions("I talked to Jan about it", MID_JUNE) == []
    assert find_time_expressions("we have 2000 followers", MID_JUNE) == []
    assert find_time_expressions("I want to march in the parade", MID_JUNE) == []
    assert find_time_expressions("we live on the 10th floor", MID_JUNE) == []
    assert find_time_expressions("for the 3rd time this week", MID_JUNE)[0].text == "this week"


def test_month_and_year_arithmetic_clamps() -> None:
    assert add_months(d(2024, 1, 31), 1) == d(2024, 2, 29)
    assert add_months(d(2023, 1, 31), 1) == d(2023, 2, 28)
    assert add_months(d(2024, 3, 31), -13) == d(2023, 2, 28)
    assert add_months(d(2024, 12, 15), 1) == d(2025, 1, 15)
    assert add_years(d(2024, 2, 29), 1) == d(2025, 2, 28)
    assert add_years(d(2024, 2, 29), -4) == d(2020, 2, 29)


def test_results_are_midnight_utc() -> None:
    start, _ = resolve_relative("two days ago", datetime(2024, 6, 15, 23, 59, tzinfo=UTC))
    assert start == d(2024, 6, 13) and start.tzinfo is UTC


def _every_pattern(text: str) -> list:
    """The ungated list: every anchor pattern runs, as before the gates existed."""
    return list(date_patterns._RANKED)


def test_gates_skip_only_patterns_that_cannot_match(monkeypatch: pytest.MonkeyPatch) -> None:
    """Reading a text with the word gates finds exactly what running every pattern finds."""
    rng = random.Random(5)
    source = "".join(Path(m.__file__).read_text() for m in (dates, date_patterns, date_calendar))
    words = sorted(set(re.findall(r"[A-Za-z]+", source)))
    words += ["3", "21st", "2019", "1990-1995", "2019-21", "2024-02-29", "twenty-one", ",", "-", "é"]
    texts = [" ".join(rng.choice(words) for _ in range(rng.randint(1, 7))) for _ in range(3000)]
    texts += [t.title() for t in texts[:300]] + [t.upper() for t in texts[300:600]]
    texts += ["I moved here last week", "We met on May 3rd, 2019", "back in the day", "Kelvin K"]
    for text in texts:
        for prefer_future in (None, True, False):
            gated = find_time_expressions(text, MID_JUNE, prefer_future)
            with monkeypatch.context() as m:
                m.setattr(dates, "anchors_for", _every_pattern)
                assert gated == find_time_expressions(text, MID_JUNE, prefer_future), text


def test_a_reading_memoizes_only_within_itself() -> None:
    with dates.reading():
        first = find_time_expressions("since 2019", MID_JUNE)
        first.clear()  # callers get their own list
        assert find_time_expressions("since 2019", MID_JUNE)[0].kind == "since"
        assert dates._READING.get()
    assert dates._READING.get() is None


def test_an_announced_start_is_the_coming_day_unless_it_is_far_off() -> None:
    said = datetime(2025, 9, 8, tzinfo=UTC)
    [coming] = dates.find_time_expressions("starting 6 October", said)
    assert coming.valid_from == datetime(2025, 10, 6, tzinfo=UTC)
    [started] = dates.find_time_expressions("I started on 6 October", said)
    assert started.valid_from == datetime(2024, 10, 6, tzinfo=UTC)  # no announcement: the one before
    [far] = dates.find_time_expressions("from 1 August", said)
    assert far.valid_from == datetime(2025, 8, 1, tzinfo=UTC)  # eleven months ahead: the one before


def test_dates_past_the_ends_of_the_calendar_are_no_dates() -> None:
    assert dates.find_time_expressions("tomorrow", datetime(9999, 12, 30, 23, tzinfo=UTC)) == []
    assert dates.find_time_expressions("last week", datetime(1, 1, 1, 1, tzinfo=UTC)) == []


def _season_anchor_by_list(season: str, now: datetime, mode: str, future: bool) -> datetime:
    """The first written form of ``date_calendar.season_anchor`` (every season start listed), kept as the
    reference its faster form must agree with."""
    month = date_calendar.SEASONS[season]
    starts = [datetime(y, m, 1, tzinfo=UTC) for y in range(now.year - 2, now.year + 2) for m in (3, 6, 9, 12)]
    current = max(s for s in starts if s <= now)
    mine = [datetime(y, month, 1, tzinfo=UTC) for y in range(now.year - 2, now.year + 2)]
    if mode == "last":
        return max(s for s in mine if s < current)
    if mode == "next":
        return min(s for s in mine if s > now)
    if mode == "this":
        return min(mine, key=lambda s: abs((s - now).total_seconds()))
    if future:
        return min(s for s in mine if s >= current)
    return max(s for s in mine if s <= now)


def test_season_anchor_agrees_with_the_listed_form() -> None:
    nows = [datetime(2023, 12, 31, 23, 30, tzinfo=UTC) + timedelta(hours=7 * i) for i in range(1500)]
    nows += [datetime(2024, 3, 1, 0, 30, tzinfo=timezone(timedelta(hours=2)))]  # still February in UTC
    for now in nows:
        for season in date_calendar.SEASONS:
            for mode in ("last", "next", "this", ""):
                for future in (False, True):
                    assert date_calendar.season_anchor(season, now, mode, future) == _season_anchor_by_list(
                        season, now, mode, future
                    ), (season, now, mode, future)
