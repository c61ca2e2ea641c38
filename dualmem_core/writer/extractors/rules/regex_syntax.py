r"""A reader of Python's regular-expression syntax into the item tree the speed gates analyse.

``gates.py`` reads each rule's pattern to learn what a match must start with and contain. It used
CPython's private parser (``re._parser``, once ``sre_parse``), whose module name, node types and
internals may change with any Python release. This module is the project's own reader of the same
syntax (Python 3.11's ``re``), giving the tree that parser gives for the parts the gates read:

* a sequence is a list of ``(op, argument)`` items; ``op`` is one of the ``Op`` constants below;
* the parser's rewrites are kept, because the gates' results depend on them: an alternation's
  common leading items move in front of it, an alternation of single characters becomes a class,
  a one-character class a literal, a plain "(?:...)" group its contents (and a repeated one its
  body), duplicate class members go.

Sequences compare by identity (``Seq``), as the parser's sub-patterns do, so only literal items,
classes and assertions count as a common prefix. A pattern it cannot read raises ``ValueError``;
``re.compile`` has already accepted every pattern it is given, so that only means "no gate".
"""

from __future__ import annotations

import re
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
_REPEATS = (MAX_REPEAT, MIN_REPEAT, POSSESSIVE_REPEAT)


class Seq(list):
    """A sequence of items; equal only to itself, like the parser's sub-patterns."""

    __eq__ = object.__eq__
    __ne__ = object.__ne__
    __hash__ = object.__hash__


_FLAGS = {"i": int(re.IGNORECASE), "L": int(re.LOCALE), "m": int(re.MULTILINE), "s": int(re.DOTALL),
          "x": int(re.VERBOSE), "a": int(re.ASCII), "u": int(re.UNICODE), "t": 1}  # fmt: skip
_VERBOSE = int(re.VERBOSE)
_SPECIAL = set(".\\[{()*+?^$|")
_WHITESPACE = set(" \t\n\r\v\f")
_DIGITS = set("0123456789")
_OCTAL = set("01234567")
_HEX = set("0123456789abcdefABCDEF")
_CONTROL = {"a": 7, "b": 8, "f": 12, "n": 10, "r": 13, "t": 9, "v": 11, "\\": 92}
_CLASSES = {"d": CATEGORY_DIGIT, "D": CATEGORY_NOT_DIGIT, "s": CATEGORY_SPACE, "S": CATEGORY_NOT_SPACE,
            "w": CATEGORY_WORD, "W": CATEGORY_NOT_WORD}  # fmt: skip
_ANCHORS = {"A": AT_BEGINNING_STRING, "Z": AT_END_STRING, "b": AT_BOUNDARY, "B": AT_NON_BOUNDARY}


class _Reader:
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


def parse(pattern: str, flags: int = 0) -> tuple[Seq, int]:
    """(items, flags) of ``pattern``: its item tree and its flags with the global inline ones."""
    reader = _Reader(pattern)
    reader.flags = int(flags)
    items = _alternation(reader, bool(reader.flags & _VERBOSE), 0)
    if reader.next is not None:
        raise ValueError("unbalanced parenthesis")
    return items, reader.flags


def _alternation(reader: _Reader, verbose: bool, depth: int) -> Seq:
    branches = [_sequence(reader, verbose, depth + 1, depth == 0)]
    while reader.take("|"):
        if depth == 0:  # global flags of the first branch hold for the others
            verbose = bool(reader.flags & _VERBOSE)
        branches.append(_sequence(reader, verbose, depth + 1, False))
    if len(branches) == 1:
        return branches[0]
    out = Seq()
    while all(branches) and all(b[0] == branches[0][0] for b in branches[1:]):
        out.append(branches[0][0])  # a leading item every branch has is matched once, before them
        for branch in branches:
            del branch[0]
    members: list = []
    for branch in branches:
        if len(branch) != 1:
            break
        op, arg = branch[0]
        if op is LITERAL:
            members.append((op, arg))
        elif op is IN and arg[0][0] is not NEGATE:
            members.extend(arg)
        else:
            break
    else:  # every branch is one character: a class
        out.append((IN, list(dict.fromkeys(members))))
        return out
    out.append((BRANCH, (None, branches)))
    return out


def _sequence(reader: _Reader, verbose: bool, depth: int, first: bool) -> Seq:  # noqa: PLR0912, PLR0915
    items = Seq()
    while True:
        token = reader.next
        if token is None or token in ("|", ")"):
            return _unwrapped(items)
        reader.get()
        if verbose and token in _WHITESPACE:
            continue
        if verbose and token == "#":
            while (token := reader.get()) is not None and token != "\n":
                pass
            continue
        if token[0] == "\\":
            items.append(_escape(reader, token))
        elif token == "[":
            items.append(_class(reader))
        elif token in ("*", "+", "?", "{"):
            if not _repeat(reader, token, items):
                items.append((LITERAL, ord(token)))  # "{" that opens no count
        elif token == ".":
            items.append((ANY, None))
        elif token == "^":
            items.append((AT, AT_BEGINNING))
        elif token == "$":
            items.append((AT, AT_END))
        elif token == "(":
            item = _group(reader, verbose, depth, first and not items)
            if item is _GLOBAL:  # verbose mode may have been switched on
                verbose = bool(reader.flags & _VERBOSE)
            elif item is not _SKIP:
                items.append(item)
        else:
            items.append((LITERAL, ord(token)))


def _unwrapped(items: Seq) -> Seq:
    """The sequence with each plain "(?:...)" replaced by its contents, in place."""
    for i in range(len(items) - 1, -1, -1):
        op, arg = items[i]
        if op is SUBPATTERN and arg[0] is None and not arg[1] and not arg[2]:
            items[i:i + 1] = arg[3]
    return items


def _repeat(reader: _Reader, token: str, items: Seq) -> bool:
    """Turn the last item into a repeat; False when "{" is a plain character here."""
    if token == "?":
        low, high = 0, 1
    elif token == "*":
        low, high = 0, MAXREPEAT
    elif token == "+":
        low, high = 1, MAXREPEAT
    else:
        if reader.next == "}":
            return False
        start = reader.at
        lo = reader.digits(_DIGITS, len(reader.text))
        hi = reader.digits(_DIGITS, len(reader.text)) if reader.take(",") else lo
        if not reader.take("}"):
            reader.at = start
            return False
        low = int(lo) if lo else 0
        high = int(hi) if hi else MAXREPEAT
        if high < low:
            raise ValueError("min repeat greater than max repeat")
    if not items or items[-1][0] is AT or items[-1][0] in _REPEATS:
        raise ValueError("nothing to repeat")
    body = Seq([items[-1]])
    if items[-1][0] is SUBPATTERN:
        group, add, remove, inner = items[-1][1]
        if group is None and not add and not remove:
            body = inner  # "(?:ab)*" repeats "ab"
    if reader.take("?"):
        op = MIN_REPEAT
    elif reader.take("+"):
        op = POSSESSIVE_REPEAT
    else:
        op = MAX_REPEAT
    items[-1] = (op, (low, high, body))
    return True


_SKIP = object()  # "(?#...)": a comment, no item
_GLOBAL = object()  # "(?i)" at the start: flags of the whole pattern, no item


def _group(reader: _Reader, verbose: bool, depth: int, at_start: bool) -> object:  # noqa: PLR0911, PLR0912
    """The item a "(" opens, ``_SKIP`` for a comment, ``_GLOBAL`` for global flags (in ``reader.flags``)."""
    capturing = True
    add = remove = 0
    if reader.take("?"):
        kind = reader.get()
        if kind is None:
            raise ValueError("unexpected end of pattern")
        if kind == "P":
            if reader.take("<"):
                reader.names[reader.until(">")] = reader.groups
            elif reader.take("="):
                name = reader.until(")")
                if name not in reader.names:
                    raise ValueError(f"unknown group name {name!r}")
                return reader.reference(reader.names[name])
            else:
                raise ValueError("unknown extension ?P")
        elif kind == ":":
            capturing = False
        elif kind == "#":
            reader.until(")")
            return _SKIP
        elif kind in ("=", "!", "<"):
            direction = 1
            if kind == "<":
                kind = reader.get()
                if kind not in ("=", "!"):
                    raise ValueError("unknown extension ?<")
                direction = -1
            body = _alternation(reader, verbose, depth + 1)
            if not reader.take(")"):
                raise ValueError("missing )")
            return (ASSERT if kind == "=" else ASSERT_NOT, (direction, body))
        elif kind == "(":
            name = reader.until(")")
            condition = int(name) if name.isdigit() else reader.names.get(name, 0)
            yes = _sequence(reader, verbose, depth + 1, False)
            no = _sequence(reader, verbose, depth + 1, False) if reader.take("|") else None
            if not reader.take(")"):
                raise ValueError("missing )")
            return (GROUPREF_EXISTS, (condition, yes, no))
        elif kind == ">":
            body = _alternation(reader, verbose, depth + 1)
            if not reader.take(")"):
                raise ValueError("missing )")
            return (ATOMIC_GROUP, body)
        elif kind in _FLAGS or kind == "-":
            scoped = _flags(reader, kind)
            if scoped is None:
                if not at_start:
                    raise ValueError("global flags not at the start of the expression")
                return _GLOBAL
            add, remove = scoped
            capturing = False
        else:
            raise ValueError(f"unknown extension ?{kind}")
    group = None
    if capturing:
        group, reader.groups = reader.groups, reader.groups + 1
    inner_verbose = (verbose or bool(add & _VERBOSE)) and not remove & _VERBOSE
    body = _alternation(reader, inner_verbose, depth + 1)
    if not reader.take(")"):
        raise ValueError("missing )")
    if group is not None:
        reader.closed.add(group)
    return (SUBPATTERN, (group, add, remove, body))


def _flags(reader: _Reader, letter: str | None) -> tuple[int, int] | None:
    """Inline flags after "(?": (added, removed) for a scoped group; None for global ones, which
    are added to ``reader.flags``."""
    add = remove = 0
    while letter in _FLAGS:
        add |= _FLAGS[letter]
        letter = reader.get()
    if letter == ")" and add:
        reader.flags |= add
        return None
    if letter == "-":
        letter = reader.get()
        if letter not in _FLAGS:
            raise ValueError("missing flag")
        while letter in _FLAGS:
            remove |= _FLAGS[letter]
            letter = reader.get()
    if letter != ":":
        raise ValueError("missing :")
    return add, remove


def _number(reader: _Reader, allowed: set[str], size: int) -> int:
    text = reader.digits(allowed, size)
    if len(text) != size:
        raise ValueError("incomplete escape")
    return int(text, 16)


def _unicode_escape(reader: _Reader, letter: str) -> int | None:
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


def _escape(reader: _Reader, token: str) -> tuple:
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
    if letter in _DIGITS:
        digits = letter
        if reader.next is not None and reader.next in _DIGITS:
            digits += reader.get()
            after = reader.next
            if digits[0] in _OCTAL and digits[1] in _OCTAL and after is not None and after in _OCTAL:
                return (LITERAL, int(digits + reader.get(), 8))
        return reader.reference(int(digits))
    if letter.isascii() and letter.isalpha():
        raise ValueError(f"bad escape \\{letter}")
    return (LITERAL, ord(letter))


def _class_escape(reader: _Reader, token: str) -> tuple:
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
    if letter in _DIGITS or (letter.isascii() and letter.isalpha()):
        raise ValueError(f"bad escape \\{letter}")
    return (LITERAL, ord(letter))


def _class(reader: _Reader) -> tuple:
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
