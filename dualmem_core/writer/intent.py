"""What a question asks for: the predicates whose facts answer it, and about whom.

Recall ranks by meaning and words, which finds memories *near* a question; a question about a
person's facts ("Where does she work these days?") is answered by the facts of one predicate
(``works_at``), and a store of triples can say exactly which those are. ``read_question`` maps
everyday question wording onto the predicate vocabulary (``vocab/predicates.py``) with cue words per
predicate (``vocab/question_cues.py``), written for English in general, not for one conversation. It
also says which other people the question names, and which relations it goes through ("where
does her mum live?": the ``lives_in`` facts of the person the user's ``parent`` fact names), so
recall can tell the user's facts from theirs.

It never decides alone: recall adds its reading as one weighted signal (``scoring.W_INTENT``),
and a question it cannot read ("what did we talk about on Tuesday?") reads as nothing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..vocab import question_cues as q
from ..vocab.predicates import FAVOURITE_PREFIX, favourite_predicate

# Relations to another person (or a pet): a question can ask for the relation itself ("who is her
# sister?") or go through it to that person's facts ("where does her sister live?").
RELATIONS = ("spouse", "partner", "sibling", "parent", "child", "relative", "friend", "colleague", "knows",
             "pet")


def _cue(alternatives: tuple[str, ...] | str) -> re.Pattern[str]:
    """Whole words; a cue may end in a possessive ("her mum's job", "the kids' names")."""
    pattern = alternatives if isinstance(alternatives, str) else "|".join(alternatives)
    return re.compile(rf"(?<![\w'’-])(?:{pattern})(?![\w-])", re.IGNORECASE)


_CUES = tuple((predicate, _cue(words)) for predicate, words in q.CUES.items())
_WEAK = {predicate: re.compile(rf"^(?:{words})$", re.IGNORECASE) for predicate, words in q.WEAK.items()}
_STRONG_SHAPES = {predicate: re.compile(shape, re.IGNORECASE) for predicate, shape in q.STRONG_SHAPES.items()}
_NAME = re.compile(r"(?<![\w'’])([A-Z][a-zà-ÿ'’-]+(?:\s+[A-Z][a-zà-ÿ'’-]+)?)")
_POSSESSIVE = re.compile(r"['’]s?$|(?<=s)['’]$")


@dataclass(frozen=True, slots=True)
class Asked:
    """One question's reading. Empty when no cue matched: recall then ranks as without it."""

    predicates: tuple[str, ...] = ()  # whose facts answer it, most specific first
    names: tuple[str, ...] = ()  # other people it names ("Where does Sipho live?")
    relations: tuple[str, ...] = ()  # relations it goes through ("her mum's job": parent)
    excluded: frozenset[str] = frozenset()  # values it sets aside, casefolded ("before Denver")

    def __bool__(self) -> bool:
        return bool(self.predicates)


def read_question(question: str, *, user_names: tuple[str, ...] | list[str] = ()) -> Asked:
    """The predicates ``question`` asks about, the people it names, the relations it goes through.

    ``user_names``: the user's own names; a question that names the user asks about "user".
    """
    found: list[str] = []
    for predicate, cue in _CUES:
        matches = [m.group(0) for m in cue.finditer(question)]
        if not matches:
            continue
        weak = _WEAK.get(predicate)
        if weak is not None and all(weak.match(m) for m in matches):
            shape = _STRONG_SHAPES.get(predicate)
            if shape is None or not shape.search(question):
                continue
        found.append(predicate)
    found += _favourites(question)
    if "favourite_team" in found:
        found.append("favourite_football_team")
    found = _settle(found, question)
    relations: tuple[str, ...] = ()
    attributes = [p for p in found if p not in RELATIONS and p not in ("name", "relationship_status")]
    if attributes:  # "where does her sister live": the relation leads to the person asked about
        relations = tuple(p for p in found if p in RELATIONS)
    own = {n.casefold() for n in user_names}
    names = tuple(n for n in _names(question) if n.casefold() not in own)
    return Asked(tuple(dict.fromkeys(found)), names, relations, _set_aside(question))


def _set_aside(question: str) -> frozenset[str]:
    """The values a question sets aside, casefolded: "before Denver", "before she went
    pescatarian", "before the move to Conroe", "instead of coffee these days". A clause ends in
    what it sets aside: a name in capitals is taken whole, other words as the last one to four
    words that do not begin with a function word ("registered nurse" and "nurse" of "before she
    became a registered nurse"); an extra value costs nothing unless a fact has it as its value.
    A question about the time between two events ("how long after ...") sets nothing aside."""
    if q.INTERVAL.search(question):
        return frozenset()
    values = {m.group(1).casefold().rstrip("?.!,") for m in q.ASIDE.finditer(question)}
    for m in q.ASIDE_CLAUSE.finditer(question):
        words = [_POSSESSIVE.sub("", w) for w in m.group(1).split()]
        while words and words[-1].casefold() in q.ASIDE_TRAILING:
            words.pop()
        if not words:
            continue
        if words[-1][:1].isupper():
            start = len(words) - 1
            while start > 0 and words[start - 1][:1].isupper():
                start -= 1
            values.add(" ".join(words[start:]).casefold())
            continue
        for n in range(1, min(4, len(words)) + 1):
            if words[-n].casefold() not in q.ASIDE_NOT_VALUES:
                values.add(" ".join(words[-n:]).casefold())
    return frozenset(v for v in values if v)


def _favourites(question: str) -> list[str]:
    """``favourite_<category>`` for each favourite asked, the category cut at its first function
    word ("favourite ice cream flavour these days" -> favourite_ice_cream_flavour), with its twins."""
    out = []
    for m in (*q.FAVOURITE.finditer(question), *q.LIKE_BEST.finditer(question)):
        words = []
        for word in m.group(1).split():
            if word.casefold() in q.CATEGORY_END:
                break
            words.append(word)
        if not words or " ".join(words).casefold() in q.FAVOURITE_SKIP:
            continue
        name = favourite_predicate(" ".join(words))
        out.append(name)
        category = name[len(FAVOURITE_PREFIX) :]
        for a, b in q.FAVOURITE_TWINS:
            if category in (a, b):
                out.append(FAVOURITE_PREFIX + (b if category == a else a))
    return out


def _settle(found: list[str], question: str) -> list[str]:
    """Cues that overlap: keep the reading the rest of the question supports."""
    has = set(found)

    def says(pattern: str) -> bool:
        return re.search(pattern, question, re.IGNORECASE) is not None

    if any(p.startswith(FAVOURITE_PREFIX) for p in found):
        has.discard("likes")  # "her favourite band" asks for that favourite, not every like
    if {"works_at", "colleague"} <= has and not says(r"\bwith\b"):
        has.discard("colleague")  # "which team does she work for": a workplace
    if "colleague" in has and says(r"\bworks? with\b"):
        has.discard("works_at")
    if has & {"studies", "studies_at"}:  # where one studies, or what
        if says(r"\bwhere\b|\bwhich (?:uni|university|college|school|institute)"):
            has = (has | {"studies_at"}) - {"studies"}
        elif says(r"\bwhat\b.{0,30}\bstud"):
            has = (has | {"studies"}) - {"studies_at"}
    if says(r"\bteach|\btaught"):
        has -= {"studies_at", "studies"}  # "which school did he teach at": a workplace
    if "dislikes" in has:
        has.discard("likes")  # "doesn't like" matched both
    if has & {"birthday", "birth_year"} and not says(r"\bwhere\b"):
        has.discard("from")
    if {"from", "lives_in"} <= has and says("grow|grew|raised|originally|born|hometown|home town"):
        has.discard("lives_in")
    if "name" in has and has & set(RELATIONS):
        has.discard("name")  # "her kids' names": the relation facts name them
    if "nickname" in has and not says(r"\bfull name|real name\b"):
        has.discard("name")
    if "allergy" in has:
        has.discard("eats")
    if has & {"spouse", "partner"}:  # a partner question is answered by either fact
        has |= {"spouse", "partner"}
    return [p for p in dict.fromkeys([*found, "spouse", "partner", "studies", "studies_at"]) if p in has]


def _names(question: str) -> list[str]:
    """Capitalised words that read as people's names, possessives trimmed ("Sipho's" -> "Sipho")."""
    out = []
    for m in _NAME.finditer(question):
        words = [_POSSESSIVE.sub("", w) for w in m.group(1).split()]
        words = [w for w in words if w and w.casefold() not in q.NOT_NAMES]
        if words:
            out.append(" ".join(words))
    return list(dict.fromkeys(out))
