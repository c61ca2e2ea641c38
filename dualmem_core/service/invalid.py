"""A request that does not match a schema, said in our own words, for every frontend that validates
with pydantic: REST's 422 detail and MCP's tool error. Pydantic's own text names its error codes
and ends in a link to errors.pydantic.dev; this names the field and the problem, and what to send.

It reads the list ``ValidationError.errors()`` returns, so importing it imports no pydantic.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

ISO = "is not an ISO 8601 date or date-time; write e.g. 2026-02-01 or 2026-02-01T18:00:00Z"
_SIMPLE_TAGS = frozenset({"str", "int", "float", "bool", "list", "dict", "none"})
_BY_TYPE = {
    "missing": "is required",
    "extra_forbidden": "is not a field this request takes; check its name",
    "string_type": "must be text (a string)",
    "string_unicode": "must be text (a string)",
    "list_type": "must be a list",
    "dict_type": "must be an object",
    "model_type": "must be an object",
    "model_attributes_type": "must be an object",
    "int_type": "must be a whole number",
    "int_parsing": "must be a whole number",
    "int_from_float": "must be a whole number",
    "float_type": "must be a number",
    "float_parsing": "must be a number",
    "bool_type": "must be true or false",
    "bool_parsing": "must be true or false",
    "none_required": "must be null",
    "json_invalid": "is not valid JSON; send one JSON object",
    "json_type": "is not valid JSON; send one JSON object",
}
_SHALLOW_UNION = frozenset({"string_type", "list_type", "dict_type", "model_type", "int_type", "float_type",
                            "bool_type", "none_required"})


def describe(errors: Sequence[Mapping[str, Any]]) -> str:
    """One line per problem, ``field.path: what is wrong``, joined by ``; ``."""
    said: list[tuple[str, str, bool]] = []  # (field, words, whether it is one branch of a union)
    for error in errors:
        where = tuple(error.get("loc", ()))
        words = _words(error)
        if error.get("type") == "json_invalid" and where and isinstance(where[-1], int):
            where, words = where[:-1], f"is not valid JSON (at character {where[-1]}); send one JSON object"
        loc, tagged = _field(where)
        said.append((loc, words, tagged and error.get("type") in _SHALLOW_UNION))
    deeper = {loc for loc, _, shallow in said if not shallow}
    lines: dict[str, list[str]] = {}
    for loc, words, shallow in said:
        # a union's branches each say "must be a string", "must be a list": when one branch got
        # further (a bad role inside the list), that is the problem; else they say it together
        if shallow and any(other == loc or other.startswith(f"{loc}[") or other.startswith(f"{loc}.")
                           for other in deeper):
            continue
        if words not in lines.setdefault(loc, []):
            lines[loc].append(words)
    return "; ".join(f"{loc}: {' or '.join(_merge(words))}" if loc else " or ".join(_merge(words))
                     for loc, words in lines.items())


def _merge(words: list[str]) -> list[str]:
    """'must be text (a string)', 'must be a list' -> 'must be text (a string)', 'a list'."""
    if len(words) > 1 and all(w.startswith("must be ") for w in words):
        return [words[0], *(w.removeprefix("must be ") for w in words[1:])]
    return words


def _field(loc: Sequence[Any]) -> tuple[str, bool]:
    """``body.content[0].role`` from pydantic's location, without the names of union branches
    (``str``, ``list[MessageIn]``); and whether there was one."""
    text, tagged = "", False
    for part in loc:
        if isinstance(part, int):
            text += f"[{part}]"
        elif part in _SIMPLE_TAGS or "[" in part:
            tagged = True
        else:
            text += f".{part}" if text else str(part)
    return text, tagged


def _words(error: Mapping[str, Any]) -> str:
    kind = str(error.get("type", ""))
    ctx = error.get("ctx") or {}
    if kind in ("value_error", "assertion_error") and "error" in ctx:
        return str(ctx["error"])  # our own validators' messages (as_utc, the user id rule)
    if kind in _BY_TYPE:
        return _BY_TYPE[kind]
    if kind in ("literal_error", "enum"):
        return f"must be one of {ctx.get('expected', 'the listed values')}"
    bounds = {"greater_than_equal": ("at least", "ge"), "less_than_equal": ("at most", "le"),
              "greater_than": ("more than", "gt"), "less_than": ("less than", "lt")}
    if kind in bounds:
        words, key = bounds[kind]
        return f"must be {words} {ctx.get(key)}"
    if kind in ("string_too_short", "too_short"):
        least = ctx.get("min_length", 1)
        return "must not be empty" if least == 1 else f"must hold at least {least} characters or items"
    if kind in ("string_too_long", "too_long"):
        return f"must hold at most {ctx.get('max_length')} characters or items"
    if kind.startswith(("datetime", "date", "time")):
        return ISO
    message = str(error.get("msg", "is not valid"))  # pydantic's short message carries no link
    return f"is not valid: {message[:1].lower()}{message[1:]}"
