"""A bare weekday or month is dated forward when its clause looks forward, back when it looks back.

Through the Writer on a real SQLite store, as a message is remembered: "turning 56 in August" and
"I start at Globex on Monday" point to the coming August or Monday, as "I'll be 56 in August" does;
"I turned 35 on saturday" and plain present verbs keep the latest one.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from dualmem_core import Writer, open_store
from dualmem_core.writer.extractors.rules import dates


def d(year: int, month: int, day: int) -> datetime:
    return datetime(year, month, day, tzinfo=UTC)


@pytest.fixture
def writer(tmp_path: Path) -> Iterator[Writer]:
    with open_store(f"sqlite:///{tmp_path}/dates.db") as store:
        yield Writer(store)


def remembered(writer: Writer, text: str, at: datetime) -> list[tuple[str, datetime | None, datetime | None]]:
    result = writer.remember(text, user_id="u", at=at)
    return [(f.text, f.valid_from, f.valid_to) for f in result.facts]


# 2025-10-05 is a Sunday, 2025-03-11 a Tuesday, 2026-01-12 a Monday, 2025-10-30 a Thursday.
@pytest.mark.parametrize(
    ("said", "text", "expected"),
    [
        # forward: "turning", "start(s)" with a day, "starting <day>", "will"/"'ll"
        (d(2025, 10, 5), "I'm turning 56 in August", [("user is 56 years old", d(2026, 8, 1), None)]),
        (d(2025, 10, 5), "I turn 56 in August", [("user is 56 years old", d(2026, 8, 1), None)]),
        (
            d(2025, 3, 11),
            "starting Monday I work at Globex",
            [("user works at Globex", d(2025, 3, 17), None)],
        ),
        (d(2025, 3, 11), "I start at Globex on Monday", [("user works at Globex", d(2025, 3, 17), None)]),
        (d(2025, 10, 5), "I'll be 56 in August", [("user is 56 years old", d(2026, 8, 1), None)]),
        (d(2026, 1, 12), "I'll be 41 on Thursday", [("user is 41 years old", d(2026, 1, 15), None)]),
        (
            d(2025, 10, 30),
            "Cami is leaving Citizens Bank! starting Monday she'll run the books",
            [
                ("Cami plans to leave Citizens Bank", None, None),
                ("Cami plans to run the books", d(2025, 11, 3), None),
            ],
        ),
        # back: past tense, "last", plain present
        (d(2026, 1, 12), "I turned 35 on saturday", [("user is 35 years old", d(2026, 1, 10), None)]),
        (d(2025, 3, 11), "I started at Globex on Monday", [("user works at Globex", d(2025, 3, 10), None)]),
        (d(2025, 3, 11), "I started at Globex last Monday", [("user works at Globex", d(2025, 3, 10), None)]),
        (d(2025, 3, 11), "I work at Globex on Monday", [("user works at Globex", d(2025, 3, 10), None)]),
        (
            d(2025, 3, 11),
            "I worked at Globex from Monday",
            [("user used to work at Globex", d(2025, 3, 10), d(2025, 3, 11))],
        ),
    ],
)
def test_writer_dates_by_the_clause_direction(
    writer: Writer, said: datetime, text: str, expected: list[tuple[str, datetime | None, datetime | None]]
) -> None:
    assert remembered(writer, text, said) == expected


TUESDAY = datetime(2025, 3, 11, 9, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("text", "prefer_future", "expected"),
    [
        ("starting Monday", None, d(2025, 3, 17)),  # announced: the coming Monday
        ("from Monday", None, d(2025, 3, 17)),
        ("starting on Monday", None, d(2025, 3, 17)),
        ("from Monday", False, d(2025, 3, 10)),  # the caller says past tense: the latest Monday
        ("on Monday", None, d(2025, 3, 10)),  # not announced: the latest
        ("starting last Monday", None, d(2025, 3, 10)),  # "last" wins over the announcement
    ],
)
def test_announced_weekday(text: str, prefer_future: bool | None, expected: datetime) -> None:
    found = dates.find_time_expressions(text, TUESDAY, prefer_future)
    assert [e.valid_from for e in found] == [expected]
    with dates.reading():  # the memo keeps "guessed" (None) and "past" (False) apart
        assert [e.valid_from for e in dates.find_time_expressions(text, TUESDAY, False)] == [d(2025, 3, 10)]
        assert [e.valid_from for e in dates.find_time_expressions(text, TUESDAY, prefer_future)] == [expected]
