"""The patterns that find a date in a text, and the handlers that turn each match into an anchor.

Each entry of ``_ANCHORS`` pairs a regex ("May 3rd", "two weeks ago", "last summer") with a handler
that reads the match into a ``date_calendar.Anchor``; ``_GATES`` says which words or digits each
pattern cannot match without, so ``anchors_for`` skips the patterns a text cannot match, and
``candidates`` keeps the longest non-overlapping matches. The words a count or a month is written
with live here too. ``dates.py`` builds time expressions (since, until, ranges) from these anchors.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from .ascii_twins import ascii_twin, plain_ascii
from .date_calendar import (
    SEASONS,
    Anchor,
    day_anchor,
    day_start,
    month_anchor,
    relative_period,
    season_anchor,
    shift,
    weekday_anchor,
)

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
YEAR = r"(?:1[89]\d\d|20\d\d)"
_ABOUT = r"(?:(?:about|around|almost|nearly|over|more than|roughly|close to|like|just|maybe)\s+)?"
_MODE = r"(?:last|next|this past|this coming|this|coming|past)"
_DAY = r"(?:[12]\d|3[01]|0?[1-9])(?:st|nd|rd|th)?"

# Words that, right before a bare month or year, show it is a date ("in May", not "I may").
_DATE_CONTEXT = re.compile(
    r"(?:\b(?:in|since|until|till|til|by|from|to|through|during|of|last|next|this|early|late|mid|before|"
    r"after|around|between|and|or|starting|as of|back in|circa|summer|winter|spring|fall|autumn)|-|–)\s*$",
    re.IGNORECASE,
)

SPACE_RUN = re.compile(r"\s+")


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


_MODES = {"this past": "last", "past": "last", "this coming": "next", "coming": "next", "on": ""}


def _h_iso(m: re.Match[str], now: datetime, future: bool | None, before: str) -> Anchor | None:
    try:
        return Anchor(datetime(int(m["y"]), int(m["m"]), int(m["d"]), tzinfo=UTC), "day", 0, 0.95)
    except ValueError:
        return None


_ANNOUNCES = re.compile(r"\b(?:starting|from|as of|beginning|effective)(?:\s+on)?\s*$", re.IGNORECASE)


def _h_month_day(m: re.Match[str], now: datetime, future: bool | None, before: str) -> Anchor | None:
    month = MONTHS[m["mon"].lower().rstrip(".")]
    if m["mon"].lower() == "may" and not m["mon"][0].isupper() and not _date_context(before):
        return None  # "I may 3D print it"
    day = int(re.match(r"\d+", m["day"]).group())  # type: ignore[union-attr]
    year = int(m["year"]) if m["year"] else None
    if year is None and not future and _ANNOUNCES.search(before):
        # "starting 6 October" / "from 1 March", said a few weeks before: an announcement of
        # what is coming, unless that day is more than half a year ahead.
        ahead = day_anchor(month, day, None, now, True)
        future = ahead is not None and ahead - day_start(now) <= timedelta(days=183)
    value = day_anchor(month, day, year, now, future)
    return Anchor(value, "day", 0, 0.9) if value else None


def _h_date_of_month(m: re.Match[str], now: datetime, future: bool | None, before: str) -> Anchor | None:
    """"since the 10th", "moved in on the 20th": a day of this month, or of the last one when this
    month's has not come yet (the next one's when the text speaks of the future)."""
    day = int(re.match(r"\d+", m["day"]).group())  # type: ignore[union-attr]
    today = day_start(now)
    months = range(0, 3) if future else range(0, -3, -1)
    for step in months:
        year, month = divmod(now.month - 1 + step, 12)
        value = day_anchor(month + 1, day, now.year + year, now, bool(future))
        if value is not None and (value >= today if future else value <= today):
            return Anchor(value, "day", 0, 0.8)
    return None


def _h_month_year(m: re.Match[str], now: datetime, future: bool | None, before: str) -> Anchor | None:
    month = MONTHS[m["mon"].lower().rstrip(".")]
    year = int(m["year"].lstrip("'")) + (2000 if m["year"].startswith("'") else 0)  # "March '24"
    return Anchor(datetime(year, month, 1, tzinfo=UTC), "month", 0, 0.9)


def _h_month(m: re.Match[str], now: datetime, future: bool | None, before: str) -> Anchor | None:
    word = m["mon"].lower().rstrip(".")
    mode = (m["mode"] or "").lower()
    if not mode and not _date_context(before):
        return None  # a bare "may"/"march" is usually a verb
    if not mode and word in ("may", "march") and not m["mon"][0].isupper():
        return None
    mode = _MODES.get(mode, mode)
    value = month_anchor(MONTHS[word], now, mode, future)
    return Anchor(value, "month", {"last": -1, "next": 1}.get(mode, 0), 0.85)


def _h_year(m: re.Match[str], now: datetime, future: bool | None, before: str) -> Anchor | None:
    if not _date_context(before) and not m["season"]:
        return None  # "2000 followers"
    year = int(m["year"])
    if m["season"]:
        start = datetime(year, SEASONS[m["season"].lower()], 1, tzinfo=UTC)
        return Anchor(start, "season", 0, 0.85)
    return Anchor(datetime(year, 1, 1, tzinfo=UTC), "year", 0, 0.9)


def _h_named_day(m: re.Match[str], now: datetime, future: bool | None, before: str) -> Anchor | None:
    offsets = {"yesterday": -1, "last night": -1, "the day before yesterday": -2, "today": 0, "tonight": 0,
               "this morning": 0, "this afternoon": 0, "this evening": 0, "tomorrow": 1,
               "the day after tomorrow": 2}  # fmt: skip
    offset = offsets[SPACE_RUN.sub(" ", m[0].lower())]
    return Anchor(day_start(now) + timedelta(days=offset), "day", (offset > 0) - (offset < 0), 0.95)


def _h_relative_period(m: re.Match[str], now: datetime, future: bool | None, before: str) -> Anchor | None:
    return relative_period(SPACE_RUN.sub(" ", m["word"].lower()), m["unit"].lower(), now)


def _h_season(m: re.Match[str], now: datetime, future: bool | None, before: str) -> Anchor | None:
    mode = SPACE_RUN.sub(" ", (m["mode"] or "").lower())
    mode = _MODES.get(mode, mode)
    value = season_anchor(m["season"].lower(), now, mode, future)
    return Anchor(value, "season", {"last": -1, "next": 1}.get(mode, 0), 0.8)


def _h_weekday(m: re.Match[str], now: datetime, future: bool | None, before: str) -> Anchor | None:
    mode = SPACE_RUN.sub(" ", (m["mode"] or "").lower())
    mode = _MODES.get(mode, mode)
    if future is None and not mode and _ANNOUNCES.search(before):
        future = True  # "starting Monday" / "from Monday", not said in the past tense: the coming one
    value = weekday_anchor(WEEKDAYS[m["wd"].lower()], now, mode, future)
    return Anchor(value, "day", {"last": -1, "next": 1}.get(mode, 0), 0.85)


def _h_ago(m: re.Match[str], now: datetime, future: bool | None, before: str) -> Anchor | None:
    if m["n"] is None and m["unit"].lower().endswith("s"):
        return None  # "years ago" is vague
    count, confidence = parse_count(m["n"] or "a")
    if count is None:
        return None
    return Anchor(shift(now, m["unit"].lower(), -count), "day", -1, confidence)


def _h_in_future(m: re.Match[str], now: datetime, future: bool | None, before: str) -> Anchor | None:
    count, confidence = parse_count(m["n"])
    if count is None:
        return None
    return Anchor(shift(now, m["unit"].lower(), count), "day", 1, confidence)


def _h_duration(m: re.Match[str], now: datetime, future: bool | None, before: str) -> Anchor | None:
    if m["n"] is None and m["unit"].lower().endswith("s"):
        return Anchor(None, "", 0, 0.3, kind="vague")  # "for years"
    count, confidence = parse_count(m["n"] or "a")
    if count is None:
        return None
    return Anchor(shift(now, m["unit"].lower(), -count), "day", 0, confidence, kind="duration")


def _h_earlier(m: re.Match[str], now: datetime, future: bool | None, before: str) -> Anchor | None:
    if m["when"].lower() == "later":
        return Anchor(None, "", 1, 0.3, kind="vague")
    anchor = relative_period("this", m["unit"].lower(), now)
    return Anchor(anchor.start, anchor.granularity, -1, 0.5)


def _h_vague(m: re.Match[str], now: datetime, future: bool | None, before: str) -> Anchor | None:
    text = m[0].lower()
    direction = 1 if re.match(r"soon|someday|some day|one day|eventually", text) else -1
    return Anchor(None, "", direction, 0.3, kind="vague")


def _h_now(m: re.Match[str], now: datetime, future: bool | None, before: str) -> Anchor | None:
    return Anchor(None, "", 0, 0.3, kind="now")


_I = re.IGNORECASE
# ``future``: True when the text speaks of the future, False when the caller said it does not (past
# tense), None when nothing said either way (neither future words nor a tense given).
_Handler = Callable[[re.Match[str], datetime, bool | None, str], Anchor | None]
# Order matters only for ties: the longest match wins, then the earliest start, then the earliest rule.
_ANCHORS: tuple[tuple[re.Pattern[str], _Handler], ...] = (
    (re.compile(r"\b(?P<y>\d{4})-(?P<m>\d{2})-(?P<d>\d{2})\b"), _h_iso),
    (re.compile(rf"\b(?P<mon>{_MONTH})\s+(?:the\s+)?(?P<day>{_DAY})\b"
                rf"(?!\s*(?:am|pm|%|years?|months?|days?|hours?)\b)(?:,?\s+(?P<year>{YEAR})\b)?", _I),
     _h_month_day),
    (re.compile(rf"\b(?:the\s+)?(?P<day>{_DAY})\s+(?:of\s+)?(?P<mon>{_MONTH})"
                rf"(?:,?\s+(?P<year>{YEAR}))?\b", _I), _h_month_day),
    # "the 10th" alone, where the clause ends or goes on to another part ("on the 19th and we ..."),
    # not "the 10th floor" or "the 3rd time".
    (re.compile(r"\bthe\s+(?P<day>(?:[12]\d|3[01]|0?[1-9])(?:st|nd|rd|th))(?=\s*(?:$|[,.;:!?)]|-|–|—)|"
                r"\s+(?:and|but|so|when|after|before|because|we|I|he|she|they|lol|haha)\b)", _I),
     _h_date_of_month),
    (re.compile(rf"\b(?P<mon>{_MONTH}),?\s+(?P<year>{YEAR}|'\d\d)\b", _I), _h_month_year),
    (re.compile(rf"\b(?:(?P<mode>{_MODE})\s+)?(?P<mon>{_MONTH_FULL})\b", _I), _h_month),
    (re.compile(rf"\b(?:(?P<season>{_SEASON})\s+(?:of\s+)?)?(?P<year>{YEAR})\b(?!\s*(?:-|–)\s*\d)", _I),
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
    (False, frozenset(SEASONS)),
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
# Prefix words ("since", "in the") are short: look only this far back, so long texts stay linear.
LOOKBEHIND = 24


Gated = tuple[int, re.Pattern[str], _Handler]


def anchors_for(text: str) -> list[Gated]:
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


def candidates(text: str, now: datetime, future: bool | None,
                anchors: list[tuple[int, re.Pattern[str], _Handler]]) -> list[tuple[int, int, Anchor]]:
    found: list[tuple[int, int, int, Anchor]] = []
    for rank, pattern, handler in anchors:
        for m in pattern.finditer(text):
            anchor = handler(m, now, future, text[max(0, m.start() - LOOKBEHIND) : m.start()])
            if anchor is not None:
                found.append((m.start(), m.end(), rank, anchor))
    # Keep the longest matches; drop anything overlapping one already kept.
    kept: list[tuple[int, int, Anchor]] = []
    for start, end, _, anchor in sorted(found, key=lambda c: (c[0] - c[1], c[0], c[2])):
        if all(end <= s or start >= e for s, e, _ in kept):
            kept.append((start, end, anchor))
    return sorted(kept, key=lambda c: c[0])


# Speed: the anchors and the scans around them are case-insensitive, and case-insensitive Unicode
# matching costs most of their time; on a plain ASCII text (nearly every message) their ASCII twins
# find exactly the same matches (``ascii_twins.ascii_twin`` says why, and gives no twin when unsure).
def twin(pattern: re.Pattern[str]) -> re.Pattern[str]:
    return ascii_twin(pattern) or pattern


_RANKED_ASCII = [(rank, twin(pattern), handler) for rank, pattern, handler in _RANKED]
_DATE_CONTEXT_ASCII = twin(_DATE_CONTEXT)


def _date_context(before: str) -> bool:
    """Whether the words right before a bare month or year show it is a date ("in May", not "I may")."""
    return (_DATE_CONTEXT_ASCII if plain_ascii(before) else _DATE_CONTEXT).search(before) is not None
