"""The field checks both readers of the evaluation fixture use (``fixture_loading.py``).

Each takes a value of a JSON record and where it is (file and line, or record id), and returns
the value in its Python type or raises ``InvalidInput`` saying where and what is wrong: required
and unknown fields, non-empty strings and string lists, ISO 8601 date-times with a timezone,
``YYYY-MM-DD`` dates, record ids used once.

Separate from ``fixture_loading.py`` so that the readers hold only what each file must contain.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from datetime import date, datetime
from typing import Any

from dualmem_core.errors import InvalidInput


def _identified(item: Any, at: str, kind: str, required: set[str], optional: set[str],
                taken: Collection[str]) -> tuple[str, str]:
    """(id, where) of a gold record: an object with the right fields and an id not used before."""
    if not isinstance(item, dict):
        raise InvalidInput(f"{at}: must be an object")
    rid = item.get("id")
    where = f"{kind} {rid!r}" if isinstance(rid, str) else at
    _check_fields(item, required, optional, where)
    rid = _need_str(rid, where, "id")
    if rid in taken:
        raise InvalidInput(f"{where}: id used twice")
    return rid, where


def _check_fields(item: dict[str, Any], required: set[str], optional: set[str], where: str) -> None:
    unknown = set(item) - required - optional
    if unknown:
        raise InvalidInput(f"{where}: unknown field(s) {', '.join(sorted(unknown))}")
    missing = required - set(item)
    if missing:
        raise InvalidInput(f"{where}: missing field(s) {', '.join(sorted(missing))}")


def _need_str(value: Any, where: str, key: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise InvalidInput(f"{where}: {key} must be a non-empty string")
    return value


def _str_list(value: Any, where: str, key: str, min_len: int) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise InvalidInput(f"{where}: {key} must be a list of strings")
    if len(value) < min_len:
        raise InvalidInput(f"{where}: {key} needs at least {min_len} item(s), has {len(value)}")
    return list(value)


def _datetime(value: Any, where: str, key: str) -> datetime:
    if not isinstance(value, str):
        raise InvalidInput(f"{where}: {key} must be an ISO 8601 string")
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        raise InvalidInput(f"{where}: {key} {value!r} is not an ISO 8601 date-time") from None
    if parsed.tzinfo is None:
        raise InvalidInput(f"{where}: {key} {value!r} has no timezone")
    return parsed


_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def _date(value: Any, where: str, key: str, nullable: bool) -> date | None:
    if value is None and nullable:
        return None
    if not isinstance(value, str) or not _DATE.match(value):
        raise InvalidInput(f"{where}: {key} must be a YYYY-MM-DD date{' or null' if nullable else ''}")
    try:
        return date.fromisoformat(value)
    except ValueError:
        raise InvalidInput(f"{where}: {key} {value!r} is not a real date") from None
