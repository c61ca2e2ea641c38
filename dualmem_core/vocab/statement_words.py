"""The words a message uses when it states a fact of each predicate: data for recall's cue list.

A question asks "what pets does she have?"; the message that answers it says "my cat knocked the
latte over" and never "pet". When the question's reading (``writer/intent.py``) names the predicates
it asks for, recall searches the user's messages once more for these words as well (``writer/candidates.py``,
the cue list), so a message whose facts the extractor missed can still be found by what it is
about. The words are plain English forms (the full-text indexes stem them: "moved" finds
"move"); the relation and pet nouns are the ones the extractor reads (``relation_words.py``), so the
two stay in step.
"""

from __future__ import annotations

from .predicates import FAVOURITE_PREFIX
from .relation_words import PETS, RELATIONS

_BY_RELATION: dict[str, list[str]] = {}
for _noun, _predicate in RELATIONS.items():
    _BY_RELATION.setdefault(_predicate, []).append(_noun)

_WORDS: dict[str, str] = {
    "lives_in": "live living lived moved move moving relocated settled based apartment flat house home "
                "neighbourhood neighborhood rent lease",
    "from": "grew raised born hometown originally native",
    "works_at": "work working job started joined hired company office employer boss shift colleagues",
    "job_title": "job work working role position career promoted promotion hired profession trained",
    "studies_at": "university uni college school studying enrolled graduated campus degree",
    "studies": "studying degree major course masters phd thesis",
    "relationship_status": "single dating married engaged divorced widowed wedding proposed separated",
    "spouse": "married wedding",
    "partner": "dating date engaged proposed together",
    "pet": "pet pets adopted vet",
    "likes": "love loves like likes enjoy favourite favorite obsessed fan",
    "dislikes": "hate hates dislike stand annoying",
    "hobby": "hobby play playing club league practice lessons class weekends",
    "diet": "vegetarian vegan pescatarian keto diet meat gluten",
    "eats": "eat eating ate food drink drinking",
    "allergy": "allergic allergy intolerant reaction epipen",
    "speaks": "speak speaks speaking fluent language learning",
    "owns": "bought own owns got car bike",
    "visited": "visited trip travelled traveled went holiday vacation",
    "age": "turned birthday old years",
    "birthday": "birthday born turned",
    "name": "name called",
    "nickname": "call called nickname",
}


def statement_words(predicates: tuple[str, ...] | list[str]) -> str:
    """The words, space-separated and deduplicated, that state facts of ``predicates``."""
    words: list[str] = []
    for predicate in predicates:
        words += _WORDS.get(predicate, "").split()
        # A relation named in one word: the words of "significant other" or "better half" alone
        # ("each other", "better") say nothing of a partner.
        words += (noun for noun in _BY_RELATION.get(predicate, ()) if " " not in noun)
        if predicate == "pet":
            words += (w for kind in PETS for w in kind.split())
        if predicate.startswith(FAVOURITE_PREFIX):  # "my favourite whisky": the word and the category
            words += ["favourite", "favorite", *predicate[len(FAVOURITE_PREFIX):].split("_")]
    return " ".join(dict.fromkeys(words))
