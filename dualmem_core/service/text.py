"""One check of every text a frontend passes on: it must be valid Unicode, and an id holds no NUL.

A lone surrogate (JSON's ``"\\ud800"``, or a non-UTF-8 byte in a command-line argument) is a
Python string no store can write: the message text was refused by the store's own check, but an
id or a session name reached SQLite and came back as a UnicodeEncodeError, a 500. Checking here,
before anything is written, makes it the same clear error for every field on every frontend.

A NUL inside an id (``"a\\u0000b"``) was stored, but SQLite's JSON functions, which forget uses
to match a list of ids, end the text at the NUL: the message could never be forgotten by its
source id (the red-team pass). Message texts and queries may hold NULs; they are only read back.
An id or name longer than ``MAX_ID_CHARS`` is refused too: Neo4j's index on (user, source id)
takes keys of about 8 KB at most, and a 30,000-character source id was a 500 there (fine on SQLite).

A new id with a space, tab or newline at either end is refused (``check_new_ids``): ``" a "`` and
``"a"`` were stored as two ids, and a caller who later forgets ``a`` would keep ``" a "``. It is
refused, never trimmed, since a rewritten id is one the caller no longer knows. Only new ids are
checked: a forget or a filter must still reach ids stored before the rule.
"""

from __future__ import annotations

from collections.abc import Mapping

from ..errors import InvalidInput

# fields holding what was said or asked, not an id (``content`` also inside each message dict)
_FREE_TEXT = frozenset({"content", "query"})
# with a user id of up to 512 characters (2 KB of UTF-8), an index key stays under Neo4j's 8 KB
MAX_ID_CHARS = 1024


def check_unicode(**fields: object) -> None:
    """``InvalidInput`` naming the first field (a string, a list of strings, or a list of message
    dicts) holding a character UTF-8 cannot encode, or (outside message texts and queries) a NUL
    or more than ``MAX_ID_CHARS`` characters; None and non-strings pass."""
    for name, value in fields.items():
        if isinstance(value, str):
            _check(value, name)
        elif isinstance(value, list | tuple):
            for i, item in enumerate(value):
                if isinstance(item, Mapping):
                    for key, part in item.items():
                        if isinstance(part, str):
                            _check(part, f"{name}[{i}].{key}")
                elif isinstance(item, str):
                    _check(item, f"{name}[{i}]")


def _check(text: str, name: str) -> None:
    field = name.rsplit(".", 1)[-1].split("[", 1)[0]
    if "\x00" in text and field not in _FREE_TEXT:
        raise InvalidInput(
            f"{name} holds a NUL character (\\x00) at position {text.index(chr(0))}; ids and names "
            "cannot (the store matches them as text, which ends at a NUL): leave it out"
        )
    if len(text) > MAX_ID_CHARS and field not in _FREE_TEXT:
        raise InvalidInput(f"{name} is {len(text):,} characters long; ids and names may have at most "
                           f"{MAX_ID_CHARS:,}")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InvalidInput(
            f"{name} is not valid Unicode: a lone surrogate (such as \\ud800) at position {exc.start}; "
            "send valid UTF-8 text"
        ) from None


def check_new_ids(**fields: object) -> None:
    """``InvalidInput`` naming the first id (a field named ``*_id``, directly or in a list of
    message dicts) that starts or ends with whitespace."""
    for name, value in fields.items():
        parts = [(name, value)] if not isinstance(value, list | tuple) else [
            (f"{name}[{i}].{key}", part) for i, item in enumerate(value) if isinstance(item, Mapping)
            for key, part in item.items()]
        for where, text in parts:
            if where.endswith("_id") and isinstance(text, str) and text != text.strip():
                raise InvalidInput(
                    f"{where} {text!r} starts or ends with whitespace; ids are matched exactly, so "
                    f"{text!r} and {text.strip()!r} would be two ids: send it without the spaces")
