"""Surface features of a memory's text that keep near-identical memories apart.

Two texts that embed close together can still say different things: another number ("3 kids"
vs "4 kids"), the opposite polarity ("likes" vs "doesn't like"), other people or places. These
checks are about the shape of language (digits, number words, negators, capitalised names), not
about any particular wording, so they carry over to conversations the rules were never tuned on.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from ..store.query import STOPWORDS
from ..vocab.changes import WORD

# "one", "once", "second" and "half" are left out: as often a pronoun or a unit as a count.
_NUMBER_WORDS = frozenset(
    """
zero two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen
sixteen seventeen eighteen nineteen twenty thirty forty fifty sixty seventy eighty ninety hundred
thousand million billion first third fourth fifth sixth seventh eighth ninth tenth twice dozen
""".split()
)
_NEGATORS = frozenset(
    """
not no never none nobody nothing nowhere neither nor without cannot can't won't don't doesn't
didn't isn't aren't wasn't weren't haven't hasn't hadn't shouldn't wouldn't couldn't mustn't
anymore longer
""".split()
)
_CONTENT_STOP = STOPWORDS - {"not", "no"}


@dataclass(frozen=True, slots=True)
class TextFeatures:
    words: tuple[str, ...]
    content: frozenset[str]  # content words, lower-cased
    numbers: frozenset[str]  # digit runs and number words
    negated: bool  # an odd number of negators
    names: frozenset[str]  # capitalised words not opening a sentence, lower-cased


def features(text: str) -> TextFeatures:
    text = unicodedata.normalize("NFKC", text).replace("’", "'")
    raw = WORD.findall(text)
    words = tuple(w.casefold() for w in raw)
    numbers = frozenset(re.findall(r"\d+(?:[.,]\d+)?", text)) | {w for w in words if w in _NUMBER_WORDS}
    negators = sum(1 for w in words if w in _NEGATORS or w.endswith("n't"))
    names = set()
    sentence_start = True
    for token, word in zip(raw, words, strict=True):
        if token[:1].isupper() and not sentence_start and word not in STOPWORDS:
            names.add(word)
        sentence_start = False
    for match in re.finditer(r"[.!?]\s+([^\W_]+)", text):  # a sentence opening mid-text
        names.discard(match.group(1).casefold())
    content = frozenset(w for w in words if w not in _CONTENT_STOP and w not in _NEGATORS)
    return TextFeatures(words, content, numbers, negators % 2 == 1, frozenset(names))


def jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    if not a and not b:
        return 1.0
    return len(a & b) / len(a | b)


def conflict(a: TextFeatures, b: TextFeatures) -> str | None:
    """Why two texts must stay apart however close they embed, or None."""
    if a.numbers != b.numbers:
        return "different numbers"
    if a.negated != b.negated:
        return "opposite polarity"
    if a.names != b.names:
        return "different names"
    return None
