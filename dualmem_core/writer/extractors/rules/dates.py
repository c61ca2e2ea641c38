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

This module builds the expressions; the patterns that find a date and the handlers that read each
match are in ``date_patterns.py``, the calendar arithmetic and the day a named date is in
``date_calendar.py``.
"""

from __future__ import annotations

import re
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import UTC, datetime

from .ascii_twins import plain_ascii
from .date_calendar import add_years, end_of_period
from .date_patterns import LOOKBEHIND, SPACE_RUN, YEAR, Gated, anchors_for, candidates, twin
from .gates import prefiltered

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


_YEAR_RANGE = re.compile(rf"\b(?:(?:from|between)\s+)?(?P<a>{YEAR})\s*(?:-|–|—)\s*(?P<b>{YEAR}|\d\d)\b")
_PREFIX = re.compile(
    r"\b(?P<word>ever since|since|starting(?: in| on| from)?|as of|beginning(?: in)?|up until|until|till|"
    r"'til|til|up to|through|before|from|between|back in|in|on|at|during|around|about|of|by)\s+$",
    re.IGNORECASE,
)
_RANGE_JOIN = re.compile(r"^\s*(?:to|until|till|through|and|-|–|—)\s*$", re.IGNORECASE)
_SINCE = {"ever since", "since", "starting", "starting in", "starting on", "starting from", "as of",
          "beginning", "beginning in", "from"}  # fmt: skip
_UNTIL = {"up until", "until", "till", "'til", "til", "up to", "through", "before"}


def looks_future(text: str) -> bool:
    """True when the text speaks of the future ("will", "going to", "next", "planning to")."""
    return bool((_FUTURE_WORDS_ASCII if plain_ascii(text) else _FUTURE_WORDS).search(text))




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
        gated = memo[text] = anchors_for(text)
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
    tense given" is not "past tense", see ``date_patterns._Handler``). Expressions are frozen, so
    sharing is safe.
    """
    gated = memo.get(text)
    if gated is None:
        gated = memo[text] = anchors_for(text)
    if not gated:
        return []
    future = (looks_future(text) or None) if prefer_future is None else prefer_future
    key = (text, now, future, "resolved")
    found = memo.get(key)
    if found is None:
        found = memo[key] = _find(text, now, future, gated)
    return found


def _find(
    text: str, now: datetime, prefer_future: bool | None, gated: list[Gated] | None = None
) -> list[TimeExpression]:
    try:
        return _find_within_the_calendar(text, now, prefer_future, gated)
    except (OverflowError, ValueError):  # "tomorrow" on 9999-12-30: no date the calendar holds
        return []


def _find_within_the_calendar(
    text: str, now: datetime, prefer_future: bool | None, gated: list[Gated] | None = None
) -> list[TimeExpression]:
    gated = anchors_for(text) if gated is None else gated
    if not gated:
        return []  # no pattern could match, so neither can a year range (it needs a digit)
    # None (not False) when nothing looks future but no tense was given either: see
    # ``date_patterns._Handler``.
    future = (looks_future(text) or None) if prefer_future is None else prefer_future
    # The prefix scans below may use their ASCII twin (``ascii_twins.ascii_twin``).
    prefix_scan = _PREFIX_ASCII if plain_ascii(text) else _PREFIX
    out: list[TimeExpression] = []
    taken: list[tuple[int, int]] = []
    for m in _YEAR_RANGE.finditer(text):
        first = int(m["a"])
        last_year = int(m["b"]) if len(m["b"]) == 4 else first // 100 * 100 + int(m["b"])
        if last_year < first:
            continue
        first_day = datetime(first, 1, 1, tzinfo=UTC)
        out.append(
            TimeExpression(
                m[0],
                m.start(),
                m.end(),
                "range",
                first_day,
                datetime(last_year + 1, 1, 1, tzinfo=UTC),
                granularity="year",
                direction=-1 if last_year < now.year else 0,
            )
        )
        taken.append((m.start(), m.end()))
    anchors = [c for c in candidates(text, now, future, gated)
               if all(c[1] <= s or c[0] >= e for s, e in taken)]

    index = 0
    while index < len(anchors):
        start, end, anchor = anchors[index]
        window = max(0, start - LOOKBEHIND)
        prefix = prefix_scan.search(text[window:start]) if anchor.kind == "point" else None
        word = SPACE_RUN.sub(" ", prefix["word"].lower()) if prefix else ""
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
            range_end = end_of_period(last.start, last.granularity) if last.start else None
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
            end_of_period(anchor.start, anchor.granularity) if kind == "point" and anchor.start else None
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



# Speed: on a plain ASCII text the scans' ASCII twins find the same matches (``date_patterns.twin``).
_PREFIX_ASCII, _FUTURE_WORDS_ASCII = map(twin, (_PREFIX, _FUTURE_WORDS))
