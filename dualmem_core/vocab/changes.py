"""Words that tell a change, read alike by recall (a telling of a change ranks above what it
changed) and by the Editor (``editor/replaced.py``: a later message that changes what an earlier
one said supersedes it).

A small, general list of words marking a change or an end, and where in a clause a change word
says its change: of the few words after it ("left the bakery", "new flat"), or, for the few said
after their thing, of the clause before it ("not veggie anymore", "marco and i called it
quits"). Never a pattern per way of saying one particular change.
"""

from __future__ import annotations

import re
from functools import lru_cache

from ..store.query import STOPWORDS

WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)*")
# Words that mark a change of state or an end, in the message that tells the change. ``WEAK``
# ones ("new flat", "matcha girl now") are as often no change at all ("a new recipe"): alone
# they prove nothing.
STRONG = frozenset(
    """
moved move moving relocated anymore no_longer no_more left leaving quit quits quitting stopped stopping
ended ending broke_up break_up called_it_quit call_it_quit split splitting divorced dumped ex former formerly
switched changed gave_up give_up giving_up replaced sold
""".split()
)
# Two words that make one word of change ("broke up", not "the AC broke").
_PHRASES = {("broke", "up"), ("break", "up"), ("gave", "up"), ("give", "up"), ("giving", "up"),
            ("no", "longer"), ("no", "more"), ("called", "it"), ("call", "it"), ("called_it", "quit"),
            ("call_it", "quit")}
WEAK = frozenset("new now since".split())
CHANGE = STRONG | WEAK
# Change words and the first words of their phrases in -ing, which people text without the g.
_ING = frozenset(w for w in CHANGE | {a for a, _ in _PHRASES} if w.endswith("ing"))
# Words that say nothing about which thing a message is about, in any quantity.
NOT_TOPIC = frozenset(
    "again still really lol tbh atm rn omg haha ok okay yeah gonna wanna gotta kinda sorta".split()
)
# Words of addition: the thing is multi-valued and growing ("a second cat", "pottery too").
ADDITION = frozenset("second another too also both additional extra".split())
# How far after a change word its change is said; the few said after their thing look back over
# their clause.
WINDOW = 3
SAID_AFTER = frozenset(
    "anymore no_longer split splitting broke_up break_up called_it_quit call_it_quit ended divorced".split()
)
_CLAUSE = re.compile(r"[,;:.!?()\n]+|\s[-–—]\s|\s(?:but|and then|so)\s")


def stem(word: str) -> str:
    """A word without its possessive or plural s, a texted -in' spelled out ("leavin")."""
    word = word.removesuffix("'s").removesuffix("’s")
    if word.endswith("in") and word + "g" in _ING:
        return word + "g"  # a texted -in' ("leavin", "movin"): the change word it spells
    if len(word) > 4 and word.endswith("s") and not word.endswith("ss"):
        word = word[:-1]
    return word


def clauses_of(text: str) -> list[tuple[str, ...]]:
    """The stemmed words of each clause (split at punctuation), in order, a change's two words
    joined into one ("broke_up")."""
    out = []
    for clause in _CLAUSE.split(text.replace("’", "'")):
        words = _joined(tuple(stem(w.casefold()) for w in WORD.findall(clause)))
        if words:
            out.append(words)
    return out


def _joined(words: tuple[str, ...]) -> tuple[str, ...]:
    out: list[str] = []
    for word in words:
        if out and (out[-1], word) in _PHRASES:
            out[-1] = f"{out[-1]}_{word}"
        else:
            out.append(word)
    return tuple(out)


def windows(clauses: list[tuple[str, ...]]) -> list[frozenset[str]]:
    """The words within ``WINDOW`` of each change word, in its clause."""
    out = []
    for clause in clauses:
        for i, word in enumerate(clause):
            if word in CHANGE:
                start = 0 if word in SAID_AFTER else i  # "marco and i called it quits"
                out.append(frozenset(clause[start : i + WINDOW + 1]))
    return out


@lru_cache(maxsize=8192)  # recall reads the best hits of every question: the same texts recur
def changed_things(text: str) -> frozenset[str]:
    """The roots of the words a strong change word of the text is said of ("officially quit vaping"
    -> vap), without words of addition ("another cat" grows, it does not change)."""
    said: set[str] = set()
    for window in windows(clauses_of(text)):
        if window & STRONG and not window & ADDITION:
            said |= window
    kept = said - CHANGE - NOT_TOPIC - STOPWORDS
    return frozenset(root(w) for w in kept if len(w) > 2 and not w.isdigit())


@lru_cache(maxsize=8192)
def words(text: str) -> frozenset[str]:
    """The roots of the text's words, to compare with ``changed_things``."""
    return frozenset(root(w.casefold()) for w in WORD.findall(text.replace("’", "'")))


_DOUBLED = re.compile(r"([bdglmnprt])\1$")


def root(word: str) -> str:
    """A word without its -ing, -ed or final e, so the forms of one verb or noun meet: "vape",
    "vaping" -> vap; "coached", "coaching" -> coach; "quitting" -> quit. Cruder than a stemmer, and
    only for telling whether two messages name the same thing."""
    word = stem(word)
    for suffix, shortest in (("ing", 6), ("ed", 5)):
        if word.endswith(suffix) and len(word) >= shortest:
            return _DOUBLED.sub(r"\1", word[: -len(suffix)])
    return word[:-1] if word.endswith("e") and len(word) > 3 else word
