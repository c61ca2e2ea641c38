r"""Cheap tests that tell, before a regex runs, that it cannot match: the extractor's speed gates.

Two gates, both read off the compiled pattern itself (its syntax, read by ``regex_syntax.py``), never
written by hand, so a rule edited later keeps a correct gate without anyone remembering to update one:

* ``first_chars``: the characters a match can start with. The verb-phrase table has over a hundred
  rules anchored at the phrase start; a rule starting "(?:am|is|are|...)" cannot match "love ramen",
  so ``patterns.py`` indexes the table by the phrase's first character.
* ``prefiltered``: a set of literal strings every match contains one of ("from" for "X from work",
  "name" for "my name is X"). Most whole-clause scans cannot match most clauses, and a substring
  test costs a fraction of the scan.

Both analyses are conservative: what they do not fully understand (a negated class, ``.``, ``\w``, a
backreference, a case-insensitive non-ASCII letter, a pattern that can match the empty string) gates
nothing. Only ASCII first characters are gated, and case-insensitive strings are only tested on ASCII
text, so Unicode case folding cannot match a character the test lacks. Lookarounds are zero-width:
skipping them only widens a gate. ``tests/writer/extractors/test_rule_gates.py`` checks every gate
against real phrases. The ASCII twins of patterns, a speed measure read off the same syntax, are in
``ascii_twins.py``.
"""

from __future__ import annotations

import re
import string
from typing import cast

from . import regex_tokens as _c
from .regex_syntax import parse

_ASCII = [chr(i) for i in range(128)]
_IGNORECASE = int(re.IGNORECASE)  # a plain int: "flags & RegexFlag" goes through enum code, per item
_Chars = frozenset[str] | None  # None: any character


def first_chars(pattern: re.Pattern[str]) -> _Chars:
    """The ASCII characters a match of ``pattern`` can start with, or None when that is unknown."""
    if not isinstance(pattern.pattern, str):
        return None
    try:
        parsed, flags = parse(pattern.pattern, pattern.flags)
        chars, nullable = _sequence(list(parsed), flags)
    except Exception:  # noqa: BLE001 - an unreadable pattern is simply not gated
        return None
    if chars is None or nullable:  # a pattern that can match "" matches at the start of anything
        return None
    return frozenset(chars)


def admits(chars: _Chars, text: str) -> bool:
    """Whether a pattern with these first characters could match at the start of ``text``."""
    if chars is None:
        return True
    if not text:
        return False  # a known set means every match takes at least one character
    first = text[0]
    return not first.isascii() or first in chars


def _sequence(items: list, flags: int) -> tuple[set[str] | None, bool]:
    """(first characters, can match empty) of a sequence of parsed items."""
    out: set[str] = set()
    for op, av in items:
        chars, nullable = _item(op, av, flags)
        if chars is None:
            return None, True
        out |= chars
        if not nullable:
            return out, False
    return out, True


def _item(op, av, flags: int) -> tuple[set[str] | None, bool]:  # noqa: ANN001, PLR0911, PLR0912
    ignore_case = bool(flags & _IGNORECASE)
    if op is _c.LITERAL:
        return _literal(av, ignore_case), False
    if op is _c.IN:
        return _in(av, ignore_case), False
    if op is _c.BRANCH:
        out: set[str] = set()
        nullable = False
        for branch in av[1]:
            chars, empty = _sequence(list(branch), flags)
            if chars is None:
                return None, True
            out |= chars
            nullable = nullable or empty
        return out, nullable
    if op is _c.SUBPATTERN:
        _group, add, remove, body = av
        return _sequence(list(body), (flags | add) & ~remove)
    if op is _c.ATOMIC_GROUP:
        return _sequence(list(av), flags)
    if op in (_c.MAX_REPEAT, _c.MIN_REPEAT, _c.POSSESSIVE_REPEAT):
        low, high, body = av
        if high == 0:
            return set(), True
        chars, empty = _sequence(list(body), flags)
        return chars, empty or low == 0
    if op in (_c.AT, _c.ASSERT, _c.ASSERT_NOT):
        return set(), True  # zero-width: the next item decides (ignoring the assertion only widens)
    return None, True  # ., backreferences, conditionals, anything new: no gate


def _literal(code: int, ignore_case: bool) -> set[str] | None:
    ch = chr(code)
    if not ch.isascii():
        return None if ignore_case else set()  # folding could map it to an ASCII letter ("K" for Kelvin)
    return {ch.lower(), ch.upper()} if ignore_case else {ch}


def _in(members: list, ignore_case: bool) -> set[str] | None:
    out: set[str] = set()
    for op, av in members:
        if op is _c.NEGATE:
            return None
        if op is _c.LITERAL:
            chars = _literal(av, ignore_case)
        elif op is _c.RANGE:
            low, high = av
            if ignore_case and high > 127:
                return None
            chars = {c for c in _ASCII if low <= ord(c) <= high}
            if ignore_case:
                chars |= {c.swapcase() for c in chars}
        elif op is _c.CATEGORY and av is _c.CATEGORY_DIGIT:
            chars = set(string.digits)
        else:
            return None  # \w, \s and the like: no gate
        if chars is None:
            return None
        out |= chars
    return out


# ------------------------------------------------------------------ required words before a search

# A factor set: strings of which every match contains at least one, and whether they are compared
# with the lower-cased text (case-insensitive parts of the pattern).
_Factors = tuple[frozenset[str], bool]
_MAX_STRINGS = 96  # a longer alternation is not worth checking string by string
_SMALL_CLASS = 8  # "[Mm]y" gives "My" and "my"; bigger classes end a literal run


def required_factors(pattern: re.Pattern[str]) -> list[_Factors]:
    """Sets of literal strings a match must contain one of each; [] when nothing is known to be needed."""
    if not isinstance(pattern.pattern, str):
        return []
    try:
        parsed, flags = parse(pattern.pattern, pattern.flags)
        return _seq_factors(list(parsed), flags)
    except Exception:  # noqa: BLE001 - an unreadable pattern is simply not gated
        return []


def _seq_factors(items: list, flags: int) -> list[_Factors]:
    """Every factor set a sequence needs: its literal runs and its required sub-parts."""
    found: list[_Factors] = []
    run: set[str] | None = None  # the literal run being built ("My", "my" for "[Mm]y")
    run_ci = False

    def close() -> None:
        if run and all(run):  # an empty string would be a factor every text has
            found.append((frozenset(run), run_ci))

    for op, av in items:
        chars = _run_chars(op, av, flags)
        if chars is not None:
            ci = bool(flags & _IGNORECASE)
            if run is not None and ci == run_ci and len(run) * len(chars) <= _MAX_STRINGS:
                run = {s + c for s in run for c in chars}
                continue
            close()
            run, run_ci = set(chars), ci
            continue
        close()
        run = None
        found += _item_factors(op, av, flags)
    close()
    return found


def _run_chars(op, av, flags: int) -> set[str] | None:  # noqa: ANN001
    """The strings one literal-like item matches (lower-cased when case-insensitive), if few:
    a character, a small class ("[Mm]"), or an alternation of literal words ("do|does|did")."""
    ci = bool(flags & _IGNORECASE)
    if op is _c.LITERAL:
        ch = chr(av)
        if ci and not ch.isascii():
            return None  # folding could match an ASCII letter ("\u017f" matches "s"): no literal to test
        return {ch.lower()} if ci else {ch}
    if op is _c.IN and len(av) <= _SMALL_CLASS and all(o is _c.LITERAL for o, _ in av):
        if ci and not all(chr(a).isascii() for _, a in av):
            return None
        return {chr(a).lower() if ci else chr(a) for _, a in av}
    if op is _c.BRANCH:
        out: set[str] = set()
        for branch in av[1]:
            strings = _literal_sequence(list(branch), flags)
            if strings is None:
                return None
            out |= strings
            if len(out) > _MAX_STRINGS:  # the set only grows: too many already
                return None
        return out
    if op is _c.SUBPATTERN:
        _group, add, remove, body = av
        inner = (flags | add) & ~remove
        if bool(inner & _IGNORECASE) != ci:
            return None
        return _literal_sequence(list(body), inner)
    return None


def _literal_sequence(items: list, flags: int) -> set[str] | None:
    """The strings a sequence of literal-like items matches, or None if any item is not one."""
    out = {""}
    for op, av in items:
        chars = _run_chars(op, av, flags)
        if chars is None or len(out) * len(chars) > _MAX_STRINGS:
            return None
        out = {a + b for a in out for b in chars}
    return out


def _item_factors(op, av, flags: int) -> list[_Factors]:  # noqa: ANN001
    """Factor sets one non-literal item needs; nullable items need nothing."""
    if op is _c.SUBPATTERN:
        _group, add, remove, body = av
        return _seq_factors(list(body), (flags | add) & ~remove)
    if op is _c.ATOMIC_GROUP:
        return _seq_factors(list(av), flags)
    if op in (_c.MAX_REPEAT, _c.MIN_REPEAT, _c.POSSESSIVE_REPEAT):
        low, _high, body = av
        return _seq_factors(list(body), flags) if low >= 1 else []
    if op is _c.BRANCH:
        union: set[str] = set()
        ci = False
        for branch in av[1]:
            best = _best(_seq_factors(list(branch), flags))
            if best is None:
                return []  # one branch needs nothing known: the alternation needs nothing
            strings, branch_ci = best
            if branch_ci != ci:  # mixing: compare everything lower-cased (a necessary condition still)
                union = {s.lower() for s in union}
                strings = frozenset(s.lower() for s in strings)
                ci = True
            union |= strings
        union = _minimal(union)
        if len(union) > _MAX_STRINGS:
            return []
        return [(frozenset(union), ci)]
    return []  # zero-width assertions, classes, wildcards: nothing required


def _minimal(strings: set[str]) -> set[str]:
    """Drop strings containing another one: a text containing "and then" contains "and"."""
    kept: list[str] = []
    for s in sorted(strings, key=len):  # a string can only contain shorter ones, and a dropped one's
        if not any(t in s for t in kept):  # own shorter part is kept, so comparing with the kept suffices
            kept.append(s)
    return set(kept)


def _best(factors: list[_Factors]) -> _Factors | None:
    """The most selective factor set: longest shortest string, then fewest strings."""
    if not factors:
        return None
    return max(factors, key=lambda f: (min(len(s) for s in f[0]), -len(f[0])))


class Prefiltered:
    """A compiled pattern that skips the regex when the text lacks every string of a set that each
    match contains (``required_factors``): one substring test instead of a scan of the clause.

    The set is read off the pattern on first use, not at import: the analysis of the big relation
    alternations costs far more than compiling them, and a process that never runs a pattern (a CLI,
    a test of something else) should not pay for it.

    Behaves like the pattern for ``search``, ``match``, ``fullmatch``, ``finditer``, ``findall``,
    ``sub`` and ``split``; other attributes (``pattern``, ``flags``) come from the pattern itself.
    """

    __slots__ = ("_pattern", "_strings", "_ci", "_plain", "_starts")

    def __init__(self, pattern: re.Pattern[str]) -> None:
        self._pattern = pattern
        self._strings: tuple[str, ...] | None = None  # None: not read yet; (): nothing to test
        self._ci = False
        self._starts: _Chars = None  # what a match can start with (``first_chars``), for ``match``
        # The common case, case-sensitive strings, is tested inline in each method (a call to
        # ``possible`` costs more than the tests); None sends the text through ``possible``.
        self._plain: tuple[str, ...] | None = None

    def __getattr__(self, name: str) -> object:
        return getattr(self._pattern, name)

    def __repr__(self) -> str:
        return f"Prefiltered({self._pattern!r}, needs one of {self.needs()})"

    def needs(self) -> tuple[tuple[str, ...], bool] | None:
        """(strings, compared lower-cased) of which every match contains one; None when none is known."""
        if self._strings is None:
            self._read()
        return (self._strings, self._ci) if self._strings else None

    def _read(self) -> None:
        # Another thread may read the gate meanwhile: ``_strings`` says it is ready, so it is set last.
        factors = [f for f in required_factors(self._pattern) if len(f[0]) <= 16]
        best = _best(factors)
        self._starts = first_chars(self._pattern)
        if best is None:
            self._strings = ()
            return
        strings = tuple(sorted(_minimal(set(best[0])), key=lambda s: (len(s), s)))
        self._ci = best[1]
        self._plain = None if self._ci else strings
        self._strings = strings

    def possible(self, text: str) -> bool:
        strings = self._strings
        if strings is None:
            self._read()
            strings = self._strings
        if not strings:
            return True
        if self._ci:
            if not text.isascii():
                return True  # Unicode case folding could match a letter lower() does not give
            text = text.lower()
        for s in strings:
            if s in text:
                return True
        return False

    def search(self, string: str, *args: int) -> re.Match[str] | None:
        plain = self._plain
        if plain is not None:
            for s in plain:
                if s in string:
                    return self._pattern.search(string, *args)
            return None
        return self._pattern.search(string, *args) if self.possible(string) else None

    def match(self, string: str, *args: int) -> re.Match[str] | None:
        starts = self._starts  # a match at the start begins with one of these (without a position argument)
        if starts is not None and not args:  # ``admits``, inline: a function call costs what the test saves
            if not string:
                return None
            first = string[0]
            if first not in starts and first.isascii():
                return None
        plain = self._plain
        if plain is not None:
            for s in plain:
                if s in string:
                    return self._pattern.match(string, *args)
            return None
        return self._pattern.match(string, *args) if self.possible(string) else None

    def finditer(self, string: str, *args: int):  # noqa: ANN201
        plain = self._plain
        if plain is not None:
            for s in plain:
                if s in string:
                    return self._pattern.finditer(string, *args)
            return iter(())
        return self._pattern.finditer(string, *args) if self.possible(string) else iter(())

    def sub(self, repl, string: str, count: int = 0) -> str:  # noqa: ANN001
        plain = self._plain
        if plain is not None:
            for s in plain:
                if s in string:
                    return self._pattern.sub(repl, string, count)
            return string
        return self._pattern.sub(repl, string, count) if self.possible(string) else string

    def fullmatch(self, string: str, *args: int) -> re.Match[str] | None:
        return self._pattern.fullmatch(string, *args) if self.possible(string) else None

    def findall(self, string: str, *args: int) -> list:
        return self._pattern.findall(string, *args) if self.possible(string) else []

    def split(self, string: str, maxsplit: int = 0) -> list[str]:
        return self._pattern.split(string, maxsplit) if self.possible(string) else [string]


def prefiltered(pattern: re.Pattern[str]) -> re.Pattern[str]:
    """``pattern`` behind a substring test for its most selective required set (longest shortest
    string, then fewest strings), read on first use; a pattern that needs nothing such a test could
    see is let through on every text."""
    # Typed as the pattern it stands in for: it answers the pattern's methods and forwards every other
    # attribute (``__getattr__``), so the modules that rebind their patterns keep one type.
    return cast("re.Pattern[str]", Prefiltered(pattern))
