"""How long, as every frontend reads it: a whole number and a unit, ``12h``, ``7d`` or ``2w``
(``dualmem upcoming --within 7d``, REST's ``?within=7d``, the MCP tool's ``within``)."""

from __future__ import annotations

from datetime import timedelta

from ..errors import InvalidInput

_UNITS = {"h": timedelta(hours=1), "d": timedelta(days=1), "w": timedelta(weeks=1)}
MOST = timedelta(days=3660)  # ten years: a window past that is a mistake, and overflows soon after


def parse_within(text: str, name: str = "within") -> timedelta:
    """``text`` as a timedelta; ``InvalidInput`` naming the parameter when it is not one."""
    said = text.strip().casefold()
    unit = _UNITS.get(said[-1:])
    count = said[:-1]
    if unit is None or not count.isascii() or not count.isdigit():
        raise InvalidInput(f"{name}={text!r} is not a duration: give a whole number and h, d or w, "
                           "like 7d or 12h")
    if len(count) > 6 or int(count) * unit > MOST:  # checked by length first: a huge count overflows
        raise InvalidInput(f"{name}={text!r} is longer than ten years")
    return int(count) * unit
