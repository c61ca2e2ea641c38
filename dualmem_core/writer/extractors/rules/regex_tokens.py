r"""The items of the regex tree and the pattern read as tokens: the bottom layer of ``regex_syntax.py``.

``Op`` and its constants name the items of the tree (``LITERAL``, ``IN``, ``BRANCH``, ...), ``Seq`` is a
sequence of them, ``Reader`` walks a pattern one token at a time (a character, or a backslash with the
one after it), and ``escape`` and ``char_class`` read the items single tokens make: an escape such as
``\d`` or ``\x41``, a "[...]" class. The gates (``gates.py``, ``ascii_twins.py``) read the tree in these
terms; ``regex_syntax.py`` holds the grammar (groups, alternations, repeats) that builds it.
"""

from __future__ import annotations

import unicodedata

MAXREPEAT = 2**32 - 1  # "no upper bound" of a repeat


class Op:
    """One kind of item (or an assertion's or class category's code), compared by identity."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return self.name


(LITERAL, NOT_LITERAL, ANY, IN, RANGE, NEGATE, CATEGORY, BRANCH, SUBPATTERN, ATOMIC_GROUP, MAX_REPEAT,
 MIN_REPEAT, POSSESSIVE_REPEAT, AT, ASSERT, ASSERT_NOT, GROUPREF, GROUPREF_EXISTS) = (
    Op(n) for n in """LITERAL NOT_LITERAL ANY IN RANGE NEGATE CATEGORY BRANCH SUBPATTERN ATOMIC_GROUP
    MAX_REPEAT MIN_REPEAT POSSESSIVE_REPEAT AT ASSERT ASSERT_NOT GROUPREF GROUPREF_EXISTS""".split()
)  # fmt: skip
(AT_BEGINNING, AT_END, AT_BEGINNING_STRING, AT_END_STRING, AT_BOUNDARY, AT_NON_BOUNDARY) = (
    Op(n) for n in "AT_BEGINNING AT_END AT_BEGINNING_STRING AT_END_STRING AT_BOUNDARY AT_NON_BOUNDARY".split()
)
(CATEGORY_DIGIT, CATEGORY_NOT_DIGIT, CATEGORY_SPACE, CATEGORY_NOT_SPACE, CATEGORY_WORD, CATEGORY_NOT_WORD) = (
    Op(n) for n in """CATEGORY_DIGIT CATEGORY_NOT_DIGIT CATEGORY_SPACE CATEGORY_NOT_SPACE CATEGORY_WORD
    CATEGORY_NOT_WORD""".split()
)


class Seq(list):
    """A sequence of items; equal only to itself, like the parser's sub-patterns."""

    __eq__ = object.__eq__
    __ne__ = object.__ne__
    # typeshed declares list's ``__hash__`` None (unhashable) and mypy lets no subclass restore one
    __hash__ = object.__hash__  # type: ignore[assignment]



DIGITS = set("0123456789")
_OCTAL = set("01234567")
_HEX = set("0123456789abcdefABCDEF")
_CONTROL = {"a": 7, "b": 8, "f": 12, "n": 10, "r": 13, "t": 9, "v": 11, "\\": 92}
_CLASSES = {"d": CATEGORY_DIGIT, "D": CATEGORY_NOT_DIGIT, "s": CATEGORY_SPACE, "S": CATEGORY_NOT_SPACE,
            "w": CATEGORY_WORD, "W": CATEGORY_NOT_WORD}  # fmt: skip
_ANCHORS = {"A": AT_BEGINNING_STRING, "Z": AT_END_STRING, "b": AT_BOUNDARY, "B": AT_NON_BOUNDARY}


class Reader:
    """The pattern as tokens: one character, or a backslash with the character after it."""

    def __init__(self, text: str) -> None:
        self.text, self.at = text, 0
        self.flags = 0
        self.groups = 1  # the next capturing group's number
        self.names: dict[str, int] = {}
        self.closed: set[int] = set()  # groups a reference may name

    def reference(self, group: int) -> tuple:
        if group not in self.closed:
            raise ValueError("invalid group reference")
        return (GROUPREF, group)

    @property
    def next(self) -> str | None:
        if self.at >= len(self.text):
            return None
        if self.text[self.at] == "\\":
            if self.at + 1 >= len(self.text):
                raise ValueError("a pattern ends in a backslash")
            return self.text[self.at:self.at + 2]
        return self.text[self.at]

    def get(self) -> str | None:
        token = self.next
        if token is not None:
            self.at += len(token)
        return token

    def take(self, token: str) -> bool:
        if self.next == token:
            self.at += len(token)
            return True
        return False

    def until(self, end: str) -> str:
        stop = self.text.find(end, self.at)
        if stop < 0:
            raise ValueError(f"missing {end!r}")
        out, self.at = self.text[self.at:stop], stop + 1
        return out

    def digits(self, allowed: set[str], most: int) -> str:
        out = ""
        while len(out) < most and self.at < len(self.text) and self.text[self.at] in allowed:
            out += self.text[self.at]
            self.at += 1
        return out


def _number(reader: Reader, allowed: set[str], size: int) -> int:
    text = reader.digits(allowed, size)
    if len(text) != size:
        raise ValueError("incomplete escape")
    return int(text, 16)


def _unicode_escape(reader: Reader, letter: str) -> int | None:
    r"""The code of a \x, \u, \U or \N escape; None for other letters."""
    if letter == "x":
        return _number(reader, _HEX, 2)
    if letter == "u":
        return _number(reader, _HEX, 4)
    if letter == "U":
        code = _number(reader, _HEX, 8)
        if code > 0x10FFFF:
            raise ValueError("bad escape")
        return code
    if letter == "N":
        if not reader.take("{"):
            raise ValueError("missing {")
        return ord(unicodedata.lookup(reader.until("}")))
    return None


def escape(reader: Reader, token: str) -> tuple:
    """An escape outside a class."""
    letter = token[1]
    if letter in _ANCHORS:
        return (AT, _ANCHORS[letter])
    if letter in _CLASSES:
        return (IN, [(CATEGORY, _CLASSES[letter])])
    if letter in _CONTROL:
        return (LITERAL, _CONTROL[letter])
    code = _unicode_escape(reader, letter)
    if code is not None:
        return (LITERAL, code)
    if letter == "0":
        return (LITERAL, int("0" + reader.digits(_OCTAL, 2), 8))
    if letter in DIGITS:
        digits = letter
        if reader.next is not None and reader.next in DIGITS:
            second = reader.get()
            assert second is not None  # the digit ``next`` just showed
            digits += second
            after = reader.next
            if digits[0] in _OCTAL and digits[1] in _OCTAL and after is not None and after in _OCTAL:
                third = reader.get()
                assert third is not None  # ``after``, just seen
                return (LITERAL, int(digits + third, 8))
        return reader.reference(int(digits))
    if letter.isascii() and letter.isalpha():
        raise ValueError(f"bad escape \\{letter}")
    return (LITERAL, ord(letter))


def _class_escape(reader: Reader, token: str) -> tuple:
    """An escape inside a class."""
    letter = token[1]
    if letter in _CONTROL:
        return (LITERAL, _CONTROL[letter])
    if letter in _CLASSES:
        return (IN, [(CATEGORY, _CLASSES[letter])])
    code = _unicode_escape(reader, letter)
    if code is not None:
        return (LITERAL, code)
    if letter in _OCTAL:
        return (LITERAL, int(letter + reader.digits(_OCTAL, 2), 8))
    if letter in DIGITS or (letter.isascii() and letter.isalpha()):
        raise ValueError(f"bad escape \\{letter}")
    return (LITERAL, ord(letter))


def char_class(reader: Reader) -> tuple:
    """A "[...]" class: one literal stays a (possibly negated) literal, else an IN item."""
    negate = reader.take("^")
    members: list = []
    while True:
        token = reader.get()
        if token is None:
            raise ValueError("unterminated character set")
        if token == "]" and members:
            break
        low = _class_escape(reader, token) if token[0] == "\\" else (LITERAL, ord(token))
        if reader.take("-"):
            token = reader.get()
            if token is None:
                raise ValueError("unterminated character set")
            if token == "]":
                members.append(low[1][0] if low[0] is IN else low)
                members.append((LITERAL, ord("-")))
                break
            high = _class_escape(reader, token) if token[0] == "\\" else (LITERAL, ord(token))
            if low[0] is not LITERAL or high[0] is not LITERAL or high[1] < low[1]:
                raise ValueError("bad character range")
            members.append((RANGE, (low[1], high[1])))
        else:
            members.append(low[1][0] if low[0] is IN else low)
    members = list(dict.fromkeys(members))
    if len(members) == 1 and members[0][0] is LITERAL:
        return (NOT_LITERAL, members[0][1]) if negate else members[0]
    if negate:
        members.insert(0, (NEGATE, None))
    return (IN, members)
