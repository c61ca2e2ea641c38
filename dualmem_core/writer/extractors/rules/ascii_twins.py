"""ASCII twins of patterns: the same regex compiled under ASCII rules, for texts that are plain ASCII.

A speed measure beside the gates of ``gates.py``, and like them read off the pattern's syntax
(``regex_syntax.py``): the date scans ask ``plain_ascii`` of a text and then run the ``ascii_twin`` of
each pattern, which finds the same matches faster. It is apart from the gates because it skips no
regex; it makes one cheaper.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from . import regex_tokens as _c
from .regex_syntax import parse

# Python's str patterns default to Unicode rules, and case-insensitive Unicode matching folds every
# compared character through the Unicode tables: on the date and clause scans that is most of the
# regex work. On a text that is plain ASCII, the same pattern compiled with re.ASCII finds exactly the
# same matches, because the two rule sets agree on every ASCII character except two things:
# * Unicode ``\s`` also matches the ASCII separators \x1c-\x1f: texts holding one get the original;
# * under IGNORECASE, four non-ASCII characters fold to ASCII letters (İ ı ſ and the Kelvin sign), so a
#   pattern naming one of them (alone or in a class range) gets no twin.
_FOLDS_TO_ASCII = (0x130, 0x131, 0x17F, 0x212A)


def plain_ascii(text: str) -> bool:
    """Whether an ASCII twin answers exactly like its pattern on ``text``."""
    return text.isascii() and not (
        "\x1c" in text or "\x1d" in text or "\x1e" in text or "\x1f" in text  # four scans beat a regex call
    )


def ascii_twin(pattern: re.Pattern[str]) -> re.Pattern[str] | None:
    """``pattern`` compiled under ASCII rules, or None when a twin could answer differently."""
    if not isinstance(pattern.pattern, str):
        return None
    try:
        parsed, _flags = parse(pattern.pattern, pattern.flags)
        if any(lo <= c <= hi for lo, hi in _code_ranges(parsed) for c in _FOLDS_TO_ASCII):
            return None
        return re.compile(pattern.pattern, (pattern.flags & ~re.UNICODE) | re.ASCII)
    except Exception:  # noqa: BLE001 - "(?u)" inside, or anything unexpected: no twin
        return None


def _code_ranges(items: object) -> Iterator[tuple[int, int]]:
    """Every character and character range a parsed pattern names, at any depth."""
    if not isinstance(items, list | tuple):
        return
    if len(items) == 2 and items[0] in (_c.LITERAL, _c.NOT_LITERAL) and isinstance(items[1], int):
        yield items[1], items[1]
        return
    if len(items) == 2 and items[0] is _c.RANGE:
        yield items[1]
        return
    for item in items:
        yield from _code_ranges(item)
