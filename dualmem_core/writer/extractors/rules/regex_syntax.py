r"""A reader of Python's regular-expression syntax into the item tree the speed gates analyse.

``gates.py`` reads each rule's pattern to learn what a match must start with and contain. It used
CPython's private parser (``re._parser``, once ``sre_parse``), whose module name, node types and
internals may change with any Python release. This module is the project's own reader of the same
syntax (Python 3.11's ``re``), giving the tree that parser gives for the parts the gates read:

* a sequence is a list of ``(op, argument)`` items; ``op`` is one of the ``Op`` constants;
* the parser's rewrites are kept, because the gates' results depend on them: an alternation's
  common leading items move in front of it, an alternation of single characters becomes a class,
  a one-character class a literal, a plain "(?:...)" group its contents (and a repeated one its
  body), duplicate class members go.

Sequences compare by identity (``Seq``), as the parser's sub-patterns do, so only literal items,
classes and assertions count as a common prefix. A pattern it cannot read raises ``ValueError``;
Python has already compiled every pattern it is given, so that only means "no gate".

This module holds the grammar (alternations, groups, repeats, inline flags); the item kinds (``Op``,
``Seq``), the token reader and the escapes and classes it builds on are in ``regex_tokens.py``.
"""

from __future__ import annotations

import re

from .regex_tokens import (
    ANY,
    ASSERT,
    ASSERT_NOT,
    AT,
    AT_BEGINNING,
    AT_END,
    ATOMIC_GROUP,
    BRANCH,
    DIGITS,
    GROUPREF_EXISTS,
    IN,
    LITERAL,
    MAX_REPEAT,
    MAXREPEAT,
    MIN_REPEAT,
    NEGATE,
    POSSESSIVE_REPEAT,
    SUBPATTERN,
    Reader,
    Seq,
    char_class,
    escape,
)

_REPEATS = (MAX_REPEAT, MIN_REPEAT, POSSESSIVE_REPEAT)
_FLAGS = {"i": int(re.IGNORECASE), "L": int(re.LOCALE), "m": int(re.MULTILINE), "s": int(re.DOTALL),
          "x": int(re.VERBOSE), "a": int(re.ASCII), "u": int(re.UNICODE), "t": 1}  # fmt: skip
_VERBOSE = int(re.VERBOSE)
_SPECIAL = set(".\\[{()*+?^$|")
_WHITESPACE = set(" \t\n\r\v\f")


def parse(pattern: str, flags: int = 0) -> tuple[Seq, int]:
    """(items, flags) of ``pattern``: its item tree and its flags with the global inline ones."""
    reader = Reader(pattern)
    reader.flags = int(flags)
    items = _alternation(reader, bool(reader.flags & _VERBOSE), 0)
    if reader.next is not None:
        raise ValueError("unbalanced parenthesis")
    return items, reader.flags


def _alternation(reader: Reader, verbose: bool, depth: int) -> Seq:
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


def _sequence(reader: Reader, verbose: bool, depth: int, first: bool) -> Seq:  # noqa: PLR0912, PLR0915
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
            items.append(escape(reader, token))
        elif token == "[":
            items.append(char_class(reader))
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


def _repeat(reader: Reader, token: str, items: Seq) -> bool:
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
        lo = reader.digits(DIGITS, len(reader.text))
        hi = reader.digits(DIGITS, len(reader.text)) if reader.take(",") else lo
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


def _group(reader: Reader, verbose: bool, depth: int, at_start: bool) -> object:  # noqa: PLR0911, PLR0912
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


def _flags(reader: Reader, letter: str | None) -> tuple[int, int] | None:
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
