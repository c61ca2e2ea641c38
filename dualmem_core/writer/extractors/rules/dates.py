"""Find time expressions in a message and resolve them against the time it was said.

``find_time_expressions(text, now)`` returns every expression with its character span (so callers
can cut "last week" off an object) and its resolved instants; ``resolve_relative(text, now)`` folds
them into the ``(valid_from, valid_to)`` pair a fact needs.

Conventions, all pure functions over aware UTC datetimes (stdlib only):

* Day-level precision: an instant is midnight UTC of its day. Coarser expressions resolve to the
  start of their period: "last month" is the 1st of that month, "in 2019" is 2019-01-01, "last
  week" is that week's Monday, a season starts on the 1st of March/June/September/December
  (northern meteorological seasons).
* "N units ago" and "for N units" count back from ``now`` with calendar arithmetic (month ends and
  29 February clamp to the last valid day).
* "until X" ends at the *start* of X (the moment it stopped); a range "from A to B" / "A-B" is
  inclusive of B and ends at the start of the period after B.
* A bare month, weekday or date without a year ("in April", "on May 3rd") is the most recent one
  not after ``now``, or the next one not before it when the text speaks of the future
  (``prefer_future``, guessed from words like "will", "going to", "next" when not given). A bare
  weekday announced by "starting"/"from" ("starting Monday I work at Globex") is the coming one,
  unless the caller says the clause is in the past tense (``prefer_future=False``).
* Vague words ("recently", "a while ago", "for years") are still found, so they can be trimmed,
  but resolve to ``None``. Counts given as "a few" or "several" (read as 3) get a lower confidence.
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from .gates import ascii_twin, plain_ascii, prefiltered

_NUMBER_WORDS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14,
    "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20,
    "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60,
}  # fmt: skip
# Approximate counts: a usable estimate, but the confidence says it is one.
_FUZZY_NUMBERS = {"a couple of": 2, "a couple": 2, "couple of": 2, "a few": 3, "few": 3, "several": 3}

MONTHS = {
    "january": 1, "jan": 1, "february": 2, "feb": 2, "march": 3, "mar": 3, "april": 4, "apr": 4,
    "may": 5, "june": 6, "jun": 6, "july": 7, "jul": 7, "august": 8, "aug": 8, "september": 9,
    "sept": 9, "sep": 9, "october": 10, "oct": 10, "november": 11, "nov": 11, "december": 12, "dec": 12,
}  # fmt: skip
WEEKDAYS = {"monday": 0, "tuesday": 1, "wednesday": 2, "thursday": 3, "friday": 4, "saturday": 5, "sunday": 6}
_SEASONS = {"spring": 3, "summer": 6, "fall": 9, "autumn": 9, "winter": 12}

_NUM = (
    r"(?:\d{1,3}|a couple(?: of)?|couple of|a few|few|several|(?:twenty|thirty|forty|fifty|sixty)-\w+|"
    + "|".join(sorted(_NUMBER_WORDS, key=len, reverse=True))
    + ")"
)
_UNIT = r"(?:day|week|month|year|decade)s?"
_MONTH = r"(?:" + "|".join(sorted(MONTHS, key=len, reverse=True)) + r")\.?"
# Alone, only full names count as months: "to Jan" is more often a person than January.
_MONTH_FULL = r"(?:" + "|".join(m for m in MONTHS if len(m) > 4 or m in ("may", "june", "july")) + ")"
_WEEKDAY = r"(?:" + "|".join(WEEKDAYS) + ")"
_SEASON = r"(?:spring|summer|fall|autumn|winter)"
_YEAR = r"(?:1[89]\d\d|20\d\d)"
_ABOUT = r"(?:(?:about|around|almost|nearly|over|more than|roughly|close to|like|just|maybe)\s+)?"
_MODE = r"(?:last|next|this past|this coming|this|coming|past)"
_DAY = r"(?:[12]\d|3[01]|0?[1-9])(?:st|nd|rd|th)?"

# Words that, right before a bare month or year, show it is a date ("in May", not "I may").
_DATE_CONTEXT = re.compile(
    r"(?:\b(?:in|since|until|till|til|by|from|to|through|during|of|last|next|this|early|late|mid|before|"
    r"after|around|between|and|or|starting|as of|back in|circa|summer|winter|spring|fall|autumn)|-|–)\s*$",
    re.IGNORECASE,
)
_FUTURE_WORDS = re.compile(
    r"\b(?:will|shall|going to|gonna|plan(?:s|ning)? (?:to|on)|intend(?:s|ing)? to|hop(?:e|es|ing) to|"
    r"about to|next|upcoming|soon|tomorrow|can'?t wait|looking forward)\b|'ll\b",
    re.IGNORECASE,
)


@dataclass(frozen=True, slots=True)
class TimeExpression:
    """One time expression found in a text, resolved against ``now``."""

    text: str
    start: int  # character span in the searched text
    end: int
    kind: str  # "point" | "since" | "until" | "range" | "duration" | "vague" | "now"
    valid_from: datetime | None  # point/since/duration/range start
    valid_to: datetime | None  # until/range end
    period_end: datetime | None = None  # for a point: the start of the period after it
    granularity: str = ""  # "day" | "week" | "month" | "season" | "year" | "decade" | ""
    direction: int = 0  # -1 speaks of the past, +1 of the future, 0 unknown or present
    confidence: float = 0.9


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


def _shift(now: datetime, unit: str, count: int) -> datetime:
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


def _period_end(start: datetime, granularity: str) -> datetime | None:
    step = _PERIOD_STEPS.get(granularity)
    return step(start) if step else None


# Built once: ``_period_end`` runs for every dated point, and a fresh table per call cost more than the step.
_PERIOD_STEPS: dict[str, Callable[[datetime], datetime]] = {
    "day": lambda d: d + timedelta(days=1),
    "week": lambda d: d + timedelta(weeks=1),
    "weekend": lambda d: d + timedelta(days=2),
    "month": lambda d: add_months(d, 1),
    "season": lambda d: add_months(d, 3),
    "year": lambda d: add_years(d, 1),
    "decade": lambda d: add_years(d, 10),
}
_SPACE_RUN = re.compile(r"\s+")


def parse_count(word: str) -> tuple[int | None, float]:
    """A count written as digits or words up to sixty, with a confidence (lower for "a few")."""
    word = word.lower().strip()
    if word.isdigit():
        return int(word), 0.9
    if word in _FUZZY_NUMBERS:
        return _FUZZY_NUMBERS[word], 0.6 if _FUZZY_NUMBERS[word] == 2 else 0.5
    if "-" in word:
        tens, _, ones = word.partition("-")
        if tens in _NUMBER_WORDS and ones in _NUMBER_WORDS and _NUMBER_WORDS[ones] < 10:
            return _NUMBER_WORDS[tens] + _NUMBER_WORDS[ones], 0.9
    if word in _NUMBER_WORDS:
        return _NUMBER_WORDS[word], 0.9
    return None, 0.0


# ---------------------------------------------------------------- anchors: what a date names


@dataclass(frozen=True, slots=True)
class _Anchor:
    start: datetime | None
    granularity: str
    direction: int
    confidence: float
    kind: str = "point"  # anchors may already be durations or vague


def _month_anchor(month: int, now: datetime, mode: str, future: bool) -> datetime:
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


def _day_anchor(month: int, day: int, year: int | None, now: datetime, future: bool) -> datetime | None:
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


def _season_anchor(season: str, now: datetime, mode: str, future: bool) -> datetime:
    month = _SEASONS[season]
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


def _weekday_anchor(weekday: int, now: datetime, mode: str, future: bool) -> datetime:
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


def _relative_period(word: str, unit: str, now: datetime) -> _Anchor:
    """'last/this/next' + week/weekend/month/year/decade."""
    step = {"last": -1, "past": -1, "previous": -1, "this past": -1, "this": 0, "next": 1, "coming": 1,
            "this coming": 1}[word]  # fmt: skip
    today = day_start(now)
    direction = -1 if step < 0 else (1 if step > 0 else 0)
    if unit == "week":
        monday = today - timedelta(days=today.weekday())
        return _Anchor(monday + timedelta(weeks=step), "week", direction, 0.9)
    if unit == "weekend":
        saturday = today - timedelta(days=today.weekday()) + timedelta(days=5)
        return _Anchor(saturday + timedelta(weeks=step), "weekend", direction, 0.9)
    if unit == "month":
        return _Anchor(add_months(today.replace(day=1), step), "month", direction, 0.9)
    if unit == "decade":
        decade = datetime(now.year - now.year % 10 + 10 * step, 1, 1, tzinfo=UTC)
        return _Anchor(decade, "decade", direction, 0.8)
    return _Anchor(datetime(now.year + step, 1, 1, tzinfo=UTC), "year", direction, 0.9)


_MODES = {"this past": "last", "past": "last", "this coming": "next", "coming": "next", "on": ""}


def _h_iso(m: re.Match[str], now: datetime, future: bool | None, before: str) -> _Anchor | None:
    try:
        return _Anchor(datetime(int(m["y"]), int(m["m"]), int(m["d"]), tzinfo=UTC), "day", 0, 0.95)
    except ValueError:
        return None


_ANNOUNCES = re.compile(r"\b(?:starting|from|as of|beginning|effective)(?:\s+on)?\s*$", re.IGNORECASE)


def _h_month_day(m: re.Match[str], now: datetime, future: bool | None, before: str) -> _Anchor | None:
    month = MONTHS[m["mon"].lower().rstrip(".")]
    if m["mon"].lower() == "may" and not m["mon"][0].isupper() and not _date_context(before):
        return None  # "I may 3D print it"
    day = int(re.match(r"\d+", m["day"]).group())  # type: ignore[union-attr]
    year = int(m["year"]) if m["year"] else None
    if year is None and not future and _ANNOUNCES.search(before):
        # "starting 6 October" / "from 1 March", said a few weeks before: an announcement of
        # what is coming, unless that day is more than half a year ahead.
        ahead = _day_anchor(month, day, None, now, True)
        future = ahead is not None and ahead - day_start(now) <= timedelta(days=183)
    value = _day_anchor(month, day, year, now, future)
    return _Anchor(value, "day", 0, 0.9) if value else None


def _h_date_of_month(m: re.Match[str], now: datetime, future: bool | None, before: str) -> _Anchor | None:
    """"since the 10th", "moved in on the 20th": a day of this month, or of the last one when this
    month's has not come yet (the next one's when the text speaks of the future)."""
    day = int(re.match(r"\d+", m["day"]).group())  # type: ignore[union-attr]
    today = day_start(now)
    months = range(0, 3) if future else range(0, -3, -1)
    for step in months:
        year, month = divmod(now.month - 1 + step, 12)
        value = _day_anchor(month + 1, day, now.year + year, now, bool(future))
        if value is not None and (value >= today if future else value <= today):
            return _Anchor(value, "day", 0, 0.8)
    return None


def _h_month_year(m: re.Match[str], now: datetime, future: bool | None, before: str) -> _Anchor | None:
    month = MONTHS[m["mon"].lower().rstrip(".")]
    year = int(m["year"].lstrip("'")) + (2000 if m["year"].startswith("'") else 0)  # "March '24"
    return _Anchor(datetime(year, month, 1, tzinfo=UTC), "month", 0, 0.9)


def _h_month(m: re.Match[str], now: datetime, future: bool | None, before: str) -> _Anchor | None:
    word = m["mon"].lower().rstrip(".")
    mode = (m["mode"] or "").lower()
    if not mode and not _date_context(before):
        return None  # a bare "may"/"march" is usually a verb
    if not mode and word in ("may", "march") and not m["mon"][0].isupper():
        return None
    mode = _MODES.get(mode, mode)
    value = _month_anchor(MONTHS[word], now, mode, future)
    return _Anchor(value, "month", {"last": -1, "next": 1}.get(mode, 0), 0.85)


def _h_year(m: re.Match[str], now: datetime, future: bool | None, before: str) -> _Anchor | None:
    if not _date_context(before) and not m["season"]:
        return None  # "2000 followers"
    year = int(m["year"])
    if m["season"]:
        start = datetime(year, _SEASONS[m["season"].lower()], 1, tzinfo=UTC)
        return _Anchor(start, "season", 0, 0.85)
    return _Anchor(datetime(year, 1, 1, tzinfo=UTC), "year", 0, 0.9)


def _h_named_day(m: re.Match[str], now: datetime, future: bool | None, before: str) -> _Anchor | None:
    offsets = {"yesterday": -1, "last night": -1, "the day before yesterday": -2, "today": 0, "tonight": 0,
               "this morning": 0, "this afternoon": 0, "this evening": 0, "tomorrow": 1,
               "the day after tomorrow": 2}  # fmt: skip
    offset = offsets[_SPACE_RUN.sub(" ", m[0].lower())]
    return _Anchor(day_start(now) + timedelta(days=offset), "day", (offset > 0) - (offset < 0), 0.95)


def _h_relative_period(m: re.Match[str], now: datetime, future: bool | None, before: str) -> _Anchor | None:
    return _relative_period(_SPACE_RUN.sub(" ", m["word"].lower()), m["unit"].lower(), now)


def _h_season(m: re.Match[str], now: datetime, future: bool | None, before: str) -> _Anchor | None:
    mode = _SPACE_RUN.sub(" ", (m["mode"] or "").lower())
    mode = _MODES.get(mode, mode)
    value = _season_anchor(m["season"].lower(), now, mode, future)
    return _Anchor(value, "season", {"last": -1, "next": 1}.get(mode, 0), 0.8)


def _h_weekday(m: re.Match[str], now: datetime, future: bool | None, before: str) -> _Anchor | None:
    mode = _SPACE_RUN.sub(" ", (m["mode"] or "").lower())
    mode = _MODES.get(mode, mode)
    if future is None and not mode and _ANNOUNCES.search(before):
        future = True  # "starting Monday" / "from Monday", not said in the past tense: the coming one
    value = _weekday_anchor(WEEKDAYS[m["wd"].lower()], now, mode, future)
    return _Anchor(value, "day", {"last": -1, "next": 1}.get(mode, 0), 0.85)


def _h_ago(m: re.Match[str], now: datetime, future: bool | None, before: str) -> _Anchor | None:
    if m["n"] is None and m["unit"].lower().endswith("s"):
        return None  # "years ago" is vague
    count, confidence = parse_count(m["n"] or "a")
    if count is None:
        return None
    return _Anchor(_shift(now, m["unit"].lower(), -count), "day", -1, confidence)


def _h_in_future(m: re.Match[str], now: datetime, future: bool | None, before: str) -> _Anchor | None:
    count, confidence = parse_count(m["n"])
    if count is None:
        return None
    return _Anchor(_shift(now, m["unit"].lower(), count), "day", 1, confidence)


def _h_duration(m: re.Match[str], now: datetime, future: bool | None, before: str) -> _Anchor | None:
    if m["n"] is None and m["unit"].lower().endswith("s"):
        return _Anchor(None, "", 0, 0.3, kind="vague")  # "for years"
    count, confidence = parse_count(m["n"] or "a")
    if count is None:
        return None
    return _Anchor(_shift(now, m["unit"].lower(), -count), "day", 0, confidence, kind="duration")


def _h_earlier(m: re.Match[str], now: datetime, future: bool | None, before: str) -> _Anchor | None:
    if m["when"].lower() == "later":
        return _Anchor(None, "", 1, 0.3, kind="vague")
    anchor = _relative_period("this", m["unit"].lower(), now)
    return _Anchor(anchor.start, anchor.granularity, -1, 0.5)


def _h_vague(m: re.Match[str], now: datetime, future: bool | None, before: str) -> _Anchor | None:
    text = m[0].lower()
    direction = 1 if re.match(r"soon|someday|some day|one day|eventually", text) else -1
    return _Anchor(None, "", direction, 0.3, kind="vague")


def _h_now(m: re.Match[str], now: datetime, future: bool | None, before: str) -> _Anchor | None:
    return _Anchor(None, "", 0, 0.3, kind="now")


_I = re.IGNORECASE
# ``future``: True when the text speaks of the future, False when the caller said it does not (past
# tense), None when nothing said either way (neither future words nor a tense given).
_Handler = Callable[[re.Match[str], datetime, bool | None, str], _Anchor | None]
# Order matters only for ties: the longest match wins, then the earliest start, then the earliest rule.
_ANCHORS: tuple[tuple[re.Pattern[str], _Handler], ...] = (
    (re.compile(r"\b(?P<y>\d{4})-(?P<m>\d{2})-(?P<d>\d{2})\b"), _h_iso),
    (re.compile(rf"\b(?P<mon>{_MONTH})\s+(?:the\s+)?(?P<day>{_DAY})\b"
                rf"(?!\s*(?:am|pm|%|years?|months?|days?|hours?)\b)(?:,?\s+(?P<year>{_YEAR})\b)?", _I),
     _h_month_day),
    (re.compile(rf"\b(?:the\s+)?(?P<day>{_DAY})\s+(?:of\s+)?(?P<mon>{_MONTH})"
                rf"(?:,?\s+(?P<year>{_YEAR}))?\b", _I), _h_month_day),
    # "the 10th" alone, where the clause ends or goes on to another part ("on the 19th and we ..."),
    # not "the 10th floor" or "the 3rd time".
    (re.compile(r"\bthe\s+(?P<day>(?:[12]\d|3[01]|0?[1-9])(?:st|nd|rd|th))(?=\s*(?:$|[,.;:!?)]|-|–|—)|"
                r"\s+(?:and|but|so|when|after|before|because|we|I|he|she|they|lol|haha)\b)", _I),
     _h_date_of_month),
    (re.compile(rf"\b(?P<mon>{_MONTH}),?\s+(?P<year>{_YEAR}|'\d\d)\b", _I), _h_month_year),
    (re.compile(rf"\b(?:(?P<mode>{_MODE})\s+)?(?P<mon>{_MONTH_FULL})\b", _I), _h_month),
    (re.compile(rf"\b(?:(?P<season>{_SEASON})\s+(?:of\s+)?)?(?P<year>{_YEAR})\b(?!\s*(?:-|–)\s*\d)", _I),
     _h_year),
    (re.compile(r"\b(?:the day before yesterday|the day after tomorrow|yesterday|last night|today|tonight|"
                r"this (?:morning|afternoon|evening)|tomorrow)\b", _I), _h_named_day),
    (re.compile(r"\b(?P<word>last|past|previous|this past|this coming|this|next|coming)\s+"
                r"(?P<unit>week|weekend|month|year|decade)\b", _I), _h_relative_period),
    (re.compile(rf"\b(?:(?P<mode>{_MODE})\s+|(?:in|during|over)\s+(?:the\s+)?)(?P<season>{_SEASON})\b", _I),
     _h_season),
    (re.compile(rf"\b(?:(?P<mode>{_MODE}|on)\s+)?(?P<wd>{_WEEKDAY})\b", _I), _h_weekday),
    (re.compile(rf"\b(?:(?P<n>{_NUM})\s+)?(?P<unit>{_UNIT})\s+ago\b", _I), _h_ago),
    (re.compile(rf"\bin\s+{_ABOUT}(?P<n>{_NUM})\s+(?P<unit>{_UNIT})\b(?!\s+ago)", _I), _h_in_future),
    (re.compile(rf"\b(?:for\s+(?:(?:the\s+)?(?:past|last)\s+)?|(?:over|in|during|within)\s+the\s+(?:past|last)\s+)"
                rf"{_ABOUT}(?:(?P<n>{_NUM})\s+)?(?P<unit>{_UNIT})\b(?!\s+ago)", _I), _h_duration),
    (re.compile(r"\b(?P<when>earlier|later)\s+this\s+(?P<unit>week|month|year)\b", _I), _h_earlier),
    (re.compile(r"\b(?:recently|lately|the other day|a while (?:ago|back)|some ?time ago|a long time ago|"
                r"long ago|years ago|months ago|ages ago|back then|once upon a time|soon|someday|some day|"
                r"one day|eventually|at some point|for (?:years|months|ages|decades|a while|a long time|"
                r"some time)|as a (?:kid|child|teen|teenager)|growing up|in the past|"
                r"when I was (?:a )?(?:kid|child|little|young|younger|teenager))\b", _I), _h_vague),
    (re.compile(r"\b(?:right now|now|currently|at the moment|these days|nowadays|at present|presently)\b",
                _I), _h_now),
)  # fmt: skip

# What each anchor above cannot match without, in the same order: a digit, and/or one of these
# whole words (every word a pattern needs stands between word boundaries or spaces, so it is a
# whole run of letters). Most clauses name no time at all; this lets them skip the patterns.
# Only ASCII texts are gated: under IGNORECASE a few non-ASCII letters match ASCII ones.
_UNIT_WORDS = frozenset(u + s for u in ("day", "week", "month", "year", "decade") for s in ("", "s"))
_MONTH_WORDS = frozenset(MONTHS)
_GATES: tuple[tuple[bool, frozenset[str] | None], ...] = (
    (True, None),  # ISO date
    (True, _MONTH_WORDS),  # May 3rd
    (True, _MONTH_WORDS),  # 3rd of May
    (True, frozenset({"the"})),  # the 10th
    (True, _MONTH_WORDS),  # May 2019
    (False, frozenset(m for m in MONTHS if len(m) > 4 or m in ("may", "june", "july"))),
    (True, None),  # a year
    (False, frozenset({"yesterday", "tomorrow", "today", "tonight", "night", "morning", "afternoon",
                       "evening"})),
    (False, frozenset({"week", "weekend", "month", "year", "decade"})),
    (False, frozenset(_SEASONS)),
    (False, frozenset(WEEKDAYS)),
    (False, frozenset({"ago"})),
    (False, _UNIT_WORDS),  # in N units
    (False, _UNIT_WORDS),  # for N units
    (False, frozenset({"week", "month", "year"})),  # earlier this week
    (False, frozenset({"recently", "lately", "day", "while", "ago", "time", "sometime", "years", "months",
                       "ages", "decades", "then", "soon", "someday", "eventually", "point", "kid", "child",
                       "teen", "teenager", "growing", "past", "little", "young", "younger"})),
    (False, frozenset({"now", "currently", "moment", "days", "nowadays", "present", "presently"})),
)  # fmt: skip
assert len(_GATES) == len(_ANCHORS)
_RANKED = [(rank, pattern, handler) for rank, (pattern, handler) in enumerate(_ANCHORS)]
_DIGIT_RANKS = [r for r, (digit, words) in enumerate(_GATES) if digit and words is None]
_OPENS: dict[str, list[int]] = {}  # word -> ranks of the anchors it may open
for _rank, (_, _words) in enumerate(_GATES):
    for _word in _words or ():
        _OPENS.setdefault(_word, []).append(_rank)
_GATE_WORDS = frozenset(_OPENS)
del _rank, _words, _word
_LETTERS = re.compile(r"[a-z]+")
_DIGIT = re.compile(r"[0-9]")

_YEAR_RANGE = re.compile(rf"\b(?:(?:from|between)\s+)?(?P<a>{_YEAR})\s*(?:-|–|—)\s*(?P<b>{_YEAR}|\d\d)\b")
_PREFIX = re.compile(
    r"\b(?P<word>ever since|since|starting(?: in| on| from)?|as of|beginning(?: in)?|up until|until|till|"
    r"'til|til|up to|through|before|from|between|back in|in|on|at|during|around|about|of|by)\s+$",
    re.IGNORECASE,
)
# Prefix words ("since", "in the") are short: look only this far back, so long texts stay linear.
_LOOKBEHIND = 24
_RANGE_JOIN = re.compile(r"^\s*(?:to|until|till|through|and|-|–|—)\s*$", re.IGNORECASE)
_SINCE = {"ever since", "since", "starting", "starting in", "starting on", "starting from", "as of",
          "beginning", "beginning in", "from"}  # fmt: skip
_UNTIL = {"up until", "until", "till", "'til", "til", "up to", "through", "before"}


def looks_future(text: str) -> bool:
    """True when the text speaks of the future ("will", "going to", "next", "planning to")."""
    return bool((_FUTURE_WORDS_ASCII if plain_ascii(text) else _FUTURE_WORDS).search(text))


_Gated = tuple[int, re.Pattern[str], _Handler]


def _anchors_for(text: str) -> list[_Gated]:
    """(rank, pattern, handler) of the anchors that could match ``text``, by ``_GATES``."""
    if not text.isascii():
        return _RANKED
    ranked = _RANKED_ASCII if plain_ascii(text) else _RANKED
    words = _GATE_WORDS.intersection(_LETTERS.findall(text.lower()))
    digit = _DIGIT.search(text) is not None
    if not words:
        return [ranked[r] for r in _DIGIT_RANKS] if digit else []
    ranks = {r for w in words for r in _OPENS[w] if digit or not _GATES[r][0]}
    if digit:
        ranks.update(_DIGIT_RANKS)
    return [ranked[r] for r in sorted(ranks)]


def _candidates(text: str, now: datetime, future: bool | None,
                anchors: list[tuple[int, re.Pattern[str], _Handler]]) -> list[tuple[int, int, _Anchor]]:
    found: list[tuple[int, int, int, _Anchor]] = []
    for rank, pattern, handler in anchors:
        for m in pattern.finditer(text):
            anchor = handler(m, now, future, text[max(0, m.start() - _LOOKBEHIND) : m.start()])
            if anchor is not None:
                found.append((m.start(), m.end(), rank, anchor))
    # Keep the longest matches; drop anything overlapping one already kept.
    kept: list[tuple[int, int, _Anchor]] = []
    for start, end, _, anchor in sorted(found, key=lambda c: (c[0] - c[1], c[0], c[2])):
        if all(end <= s or start >= e for s, e, _ in kept):
            kept.append((start, end, anchor))
    return sorted(kept, key=lambda c: c[0])


# Set only inside ``reading()``: what this one reading found so far, dropped when it ends.
_READING: ContextVar[dict | None] = ContextVar("dualmem_dates_reading", default=None)


class reading:  # noqa: N801 - used as ``with dates.reading():``, like the function it was
    """Within the block, a repeated ``find_time_expressions`` call is answered from a memo.

    The rule extractor reads one message clause by clause and often searches the same words more
    than once; the memo lives only as long as the block (one message), so nothing said outlives it.
    A plain class rather than ``@contextmanager``: it is entered once per message, and the
    generator machinery cost more than the memo it sets up.
    """

    __slots__ = ("_token",)

    def __enter__(self) -> None:
        self._token = _READING.set({})

    def __exit__(self, *exc: object) -> None:
        _READING.reset(self._token)


def find_time_expressions(
    text: str, now: datetime, prefer_future: bool | None = None
) -> list[TimeExpression]:
    """Every time expression in ``text``, in order, resolved against ``now`` (an aware datetime).

    ``prefer_future`` picks the reading of a bare "in April" / "on Friday"; when None it is guessed
    from the text (``looks_future``).
    """
    memo = _READING.get()
    if memo is None:
        return _find(text, now, prefer_future)
    # Most texts name no time: the anchors that could match (keyed by the bare string) answer that
    # before a key with the datetime in it is even hashed.
    gated = memo.get(text)
    if gated is None:
        gated = memo[text] = _anchors_for(text)
    if not gated:
        return []
    key = (text, now, prefer_future)
    found = memo.get(key)
    if found is None:
        found = memo[key] = _find_remembered(memo, text, now, prefer_future)
    return list(found)


def _find_remembered(
    memo: dict, text: str, now: datetime, prefer_future: bool | None
) -> list[TimeExpression]:
    """``_find`` for one reading, sharing work between calls that must give the same answer.

    Which anchors could match depends on the text alone, so it is worked out once per text (keyed by
    the bare string; the other keys are tuples); and ``prefer_future=None`` on a text that
    ``looks_future`` means True, so the two share one result (on any other text None stays None: "no
    tense given" is not "past tense", see ``_Handler``). Expressions are frozen, so sharing is safe.
    """
    gated = memo.get(text)
    if gated is None:
        gated = memo[text] = _anchors_for(text)
    if not gated:
        return []
    future = (looks_future(text) or None) if prefer_future is None else prefer_future
    key = (text, now, future, "resolved")
    found = memo.get(key)
    if found is None:
        found = memo[key] = _find(text, now, future, gated)
    return found


def _find(
    text: str, now: datetime, prefer_future: bool | None, gated: list[_Gated] | None = None
) -> list[TimeExpression]:
    try:
        return _find_within_the_calendar(text, now, prefer_future, gated)
    except (OverflowError, ValueError):  # "tomorrow" on 9999-12-30: no date the calendar holds
        return []


def _find_within_the_calendar(
    text: str, now: datetime, prefer_future: bool | None, gated: list[_Gated] | None = None
) -> list[TimeExpression]:
    gated = _anchors_for(text) if gated is None else gated
    if not gated:
        return []  # no pattern could match, so neither can a year range (it needs a digit)
    # None (not False) when nothing looks future but no tense was given either: see ``_Handler``.
    future = (looks_future(text) or None) if prefer_future is None else prefer_future
    # The prefix scans below may use their ASCII twin (``gates.ascii_twin``).
    prefix_scan = _PREFIX_ASCII if plain_ascii(text) else _PREFIX
    out: list[TimeExpression] = []
    taken: list[tuple[int, int]] = []
    for m in _YEAR_RANGE.finditer(text):
        first = int(m["a"])
        last = int(m["b"]) if len(m["b"]) == 4 else first // 100 * 100 + int(m["b"])
        if last < first:
            continue
        start = datetime(first, 1, 1, tzinfo=UTC)
        out.append(
            TimeExpression(
                m[0],
                m.start(),
                m.end(),
                "range",
                start,
                datetime(last + 1, 1, 1, tzinfo=UTC),
                granularity="year",
                direction=-1 if last < now.year else 0,
            )
        )
        taken.append((m.start(), m.end()))
    anchors = [c for c in _candidates(text, now, future, gated)
               if all(c[1] <= s or c[0] >= e for s, e in taken)]

    index = 0
    while index < len(anchors):
        start, end, anchor = anchors[index]
        window = max(0, start - _LOOKBEHIND)
        prefix = prefix_scan.search(text[window:start]) if anchor.kind == "point" else None
        word = _SPACE_RUN.sub(" ", prefix["word"].lower()) if prefix else ""
        span_start = window + prefix.start() if prefix else start
        following = anchors[index + 1] if index + 1 < len(anchors) else None
        if (
            following is not None
            and anchor.kind == "point"
            and following[2].kind == "point"
            and _RANGE_JOIN.match(text[end : following[0]])
            and (word in ("from", "between") or "-" in text[end : following[0]])
        ):
            last = following[2]
            range_end = _period_end(last.start, last.granularity) if last.start else None
            if range_end and anchor.start and range_end <= anchor.start:
                range_end = add_years(range_end, 1)  # "from November to February" crosses a year end
            out.append(
                TimeExpression(
                    text[span_start : following[1]],
                    span_start,
                    following[1],
                    "range",
                    anchor.start,
                    range_end,
                    granularity=anchor.granularity,
                    direction=anchor.direction,
                    confidence=min(anchor.confidence, last.confidence),
                )
            )
            index += 2
            continue
        kind, valid_from, valid_to = anchor.kind, anchor.start, None
        if kind == "point" and word in _SINCE:
            kind = "since"
        elif kind == "point" and word in _UNTIL:
            kind, valid_from, valid_to = "until", None, anchor.start
        elif kind in ("vague", "now"):
            valid_from = None
        period_end = (
            _period_end(anchor.start, anchor.granularity) if kind == "point" and anchor.start else None
        )
        out.append(
            TimeExpression(
                text[span_start:end],
                span_start,
                end,
                kind,
                valid_from,
                valid_to,
                period_end,
                anchor.granularity,
                anchor.direction,
                anchor.confidence,
            )
        )
        index += 1
    return sorted(out, key=lambda e: e.start)


def resolve_relative(
    text: str, now: datetime, prefer_future: bool | None = None
) -> tuple[datetime | None, datetime | None]:
    """``(valid_from, valid_to)`` implied by the time expressions in ``text``; None where nothing is said.

    "since"/a range start/a duration ("for five years") give ``valid_from``, as does a plain point
    ("last week", "in 2019") when nothing more specific does; "until"/a range end give ``valid_to``.
    """
    valid_from: datetime | None = None
    valid_to: datetime | None = None
    point: datetime | None = None
    for expr in find_time_expressions(text, now, prefer_future):
        if expr.kind in ("since", "duration") and valid_from is None:
            valid_from = expr.valid_from
        elif expr.kind == "range":
            valid_from = valid_from or expr.valid_from
            valid_to = valid_to or expr.valid_to
        elif expr.kind == "until" and valid_to is None:
            valid_to = expr.valid_to
        elif expr.kind == "point" and point is None:
            point = expr.valid_from
    return valid_from or point, valid_to


# Speed: a year range needs a dash between its years; most texts have none, so test for one first.
_YEAR_RANGE = prefiltered(_YEAR_RANGE)


# Speed: the anchors and the scans around them are case-insensitive, and case-insensitive Unicode
# matching costs most of their time; on a plain ASCII text (nearly every message) their ASCII twins
# find exactly the same matches (``gates.ascii_twin`` says why, and gives no twin when unsure).
def _twin(pattern: re.Pattern[str]) -> re.Pattern[str]:
    return ascii_twin(pattern) or pattern


_RANKED_ASCII = [(rank, _twin(pattern), handler) for rank, pattern, handler in _RANKED]
_PREFIX_ASCII, _FUTURE_WORDS_ASCII, _DATE_CONTEXT_ASCII = map(_twin, (_PREFIX, _FUTURE_WORDS, _DATE_CONTEXT))


def _date_context(before: str) -> bool:
    """Whether the words right before a bare month or year show it is a date ("in May", not "I may")."""
    return (_DATE_CONTEXT_ASCII if plain_ascii(before) else _DATE_CONTEXT).search(before) is not None
