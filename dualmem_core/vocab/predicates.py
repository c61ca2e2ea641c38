"""The predicate vocabulary shared by the extractors and the Editor.

A predicate names one kind of statement about a subject. Two properties matter downstream:

* ``single_valued``: a subject has one current value at a time, so a newer value *supersedes* an
  older one (moving to Denver ends living in Portland). Multi-valued predicates accumulate
  (liking tea does not end liking coffee); for them only an explicit ending ("I sold my car",
  "I don't like X anymore") closes a fact.
* ``object_type``: the entity type of the object (``place``, ``organization``, ``person``, ``pet``,
  ``thing``, ``event``) or ``value`` when the object is a literal (an age, a date, a diet).

Favourites are one family rather than one predicate: ``favourite_<category>``, with the category
lower-cased, singular, snake_case and spelled the British way (``favourite_food``,
``favourite_tv_show``, ``favourite_colour``). Each category is single-valued on its own, so a new
favourite film supersedes the old favourite film but not the favourite food. Use
``favourite_predicate("favorite TV shows")`` to build the name.

Older or alternative names (``goes_by``, ``born_in``, ``travelled_to``, ``has_pet``, ...) are
accepted by every function here and map to one canonical name through ``ALIASES``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

FAVOURITE_PREFIX = "favourite_"


@dataclass(frozen=True, slots=True)
class Predicate:
    name: str
    single_valued: bool  # a newer value supersedes an older one for the same subject
    phrase: str  # human phrase between subject and object: "lives in"
    object_type: str  # entity type of the object, or "value" for literals
    description: str
    symmetric: bool = False  # A rel B implies B rel A (siblings, spouses)
    inverse: str | None = None  # A rel B implies B inverse A (parent / child)


def _p(
    name: str,
    single: bool,
    phrase: str,
    object_type: str,
    description: str,
    symmetric: bool = False,
    inverse: str | None = None,
) -> Predicate:
    return Predicate(name, single, phrase, object_type, description, symmetric, inverse)


_TABLE: tuple[Predicate, ...] = (
    # Identity
    _p("name", True, "is named", "value", "the subject's own name"),
    _p("nickname", True, "goes by", "value", "what the subject prefers to be called"),
    _p("age", True, "is aged", "value", "age in years, as a number"),
    _p("birthday", True, "has a birthday on", "value", "day and month of birth, e.g. 'May 3'"),
    _p("birth_year", True, "was born in", "value", "year of birth"),
    _p("from", True, "is from", "place", "hometown or birthplace"),
    _p("lives_in", True, "lives in", "place", "where the subject currently lives"),
    _p("speaks", False, "speaks", "thing", "a language the subject speaks"),
    # Work and study
    _p("works_at", True, "works at", "organization", "current employer or workplace"),
    _p("job_title", True, "works as", "value", "occupation or role, e.g. 'nurse'"),
    _p("studies_at", True, "studies at", "organization", "school or university attended"),
    _p("studies", True, "studies", "value", "field of study or major"),
    # People
    _p("spouse", True, "is married to", "person", "husband or wife", symmetric=True),
    _p(
        "partner",
        True,
        "is in a relationship with",
        "person",
        "girlfriend, boyfriend, partner, fiancé(e)",
        symmetric=True,
    ),
    _p("relationship_status", True, "is", "value", "single, dating, engaged, married, divorced, widowed"),
    _p("sibling", False, "has a sibling", "person", "brother or sister", symmetric=True),
    _p("parent", False, "has a parent", "person", "mother or father", inverse="child"),
    _p("child", False, "has a child", "person", "son or daughter", inverse="parent"),
    _p(
        "relative",
        False,
        "has a relative",
        "person",
        "grandparent, aunt, cousin, in-law, ...",
        symmetric=True,
    ),
    _p("friend", False, "is friends with", "person", "a friend", symmetric=True),
    _p("colleague", False, "works with", "person", "coworker, boss, teammate", symmetric=True),
    _p(
        "knows",
        False,
        "knows",
        "person",
        "another acquaintance: roommate, neighbour, classmate",
        symmetric=True,
    ),
    _p("pet", False, "has a pet", "pet", "a pet, named when the name is known, else its kind"),
    # Preferences and habits
    _p("likes", False, "likes", "thing", "something the subject likes, loves or enjoys"),
    _p("dislikes", False, "dislikes", "thing", "something the subject dislikes or hates"),
    _p("hobby", False, "has the hobby", "thing", "an activity done for pleasure"),
    _p("diet", True, "follows the diet", "value", "vegetarian, vegan, keto, ..."),
    _p("eats", False, "eats", "thing", "food or drink habits; mostly negated ('does not eat meat')"),
    _p("allergy", False, "is allergic to", "thing", "allergies and intolerances"),
    # Possessions, plans, history
    _p("owns", False, "owns", "thing", "a possession: car, house, instrument"),
    _p("plans", False, "plans to", "thing", "an intention or future arrangement, object is a verb phrase"),
    _p("visited", False, "visited", "place", "a place the subject travelled to"),
    _p("event", False, "experienced", "event", "something that happened at a known time"),
)

PREDICATES: dict[str, Predicate] = {p.name: p for p in _TABLE}

ALIASES: dict[str, str] = {
    "goes_by": "nickname",
    "born_in": "from",
    "hometown": "from",
    "born_on": "birthday",
    "travelled_to": "visited",
    "traveled_to": "visited",
    "has_pet": "pet",
    "married_to": "spouse",
    "dating": "partner",
    "occupation": "job_title",
    "employer": "works_at",
    "language": "speaks",
    "intends": "plans",
    "allergic_to": "allergy",
    "coworker": "colleague",
}

# Spelling variants folded into one favourite category, so "favorite color" and "favourite colour"
# supersede each other.
_CATEGORY_SPELLING = {"color": "colour", "flavor": "flavour", "favor": "favour", "neighbor": "neighbour"}
_FAVOURITE_SPELLINGS = ("favourite_", "favorite_")
# Words around a category that are not part of it: "my all time favourite band", and when it
# holds, "my favourite band now" (a favourite_band_now would never supersede a favourite_band).
_NOT_CATEGORY = frozenset("favourite favorite all time my the now currently still ever lately atm rn".split())


def favourite_predicate(category: str) -> str:
    """``favourite_<category>`` with the category normalized: 'favorite TV shows' -> favourite_tv_show."""
    words = re.findall(r"[a-z0-9]+", category.lower())
    words = [w for w in words if w not in _NOT_CATEGORY]
    if words:
        words[-1] = _singular(words[-1])
    words = [_CATEGORY_SPELLING.get(w, w) for w in words]
    return FAVOURITE_PREFIX + ("_".join(words) or "thing")


def _singular(word: str) -> str:
    if word in ("series", "species"):  # the same in the singular
        return word
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("ches", "shes", "sses", "xes")):
        return word[:-2]
    if word.endswith("s") and not word.endswith(("ss", "us", "is")) and len(word) > 3:
        return word[:-1]
    return word


@lru_cache(maxsize=4096)  # recall asks it of every candidate, several times: ~120 calls a recall
def canonical(predicate: str) -> str:
    """The canonical name of ``predicate`` (aliases and favourite spellings folded)."""
    name = predicate.strip().lower()
    for prefix in _FAVOURITE_SPELLINGS:
        if name.startswith(prefix):
            return favourite_predicate(name[len(prefix) :].replace("_", " "))
    return ALIASES.get(name, name)


def is_favourite(predicate: str) -> bool:
    return canonical(predicate).startswith(FAVOURITE_PREFIX)


def get(predicate: str) -> Predicate | None:
    """The table entry for ``predicate``; favourites get a synthesized single-valued entry."""
    name = canonical(predicate)
    if name in PREDICATES:
        return PREDICATES[name]
    if name.startswith(FAVOURITE_PREFIX):
        category = name[len(FAVOURITE_PREFIX) :].replace("_", " ")
        return Predicate(name, True, f"has as favourite {category}", "thing", f"favourite {category}")
    return None


def is_known(predicate: str) -> bool:
    return get(predicate) is not None


def is_single_valued(predicate: str) -> bool:
    """True when a newer value supersedes an older one; unknown predicates are treated as multi-valued.

    Multi-valued is the safe default for the Editor: wrongly superseding a current fact loses it from
    recall, while keeping two values only costs ranking.
    """
    entry = get(predicate)
    return entry.single_valued if entry else False


def phrase(predicate: str) -> str:
    """The human phrase that joins subject and object: ``phrase("lives_in") == "lives in"``."""
    entry = get(predicate)
    return entry.phrase if entry else canonical(predicate).replace("_", " ")


def object_type(predicate: str) -> str:
    entry = get(predicate)
    return entry.object_type if entry else "thing"


# Sentences read better than "subject phrase object" for some predicates.
_TEMPLATES: dict[str, tuple[str, str]] = {  # predicate -> (positive, negated)
    "name": ("{s}'s name is {o}", "{s}'s name is not {o}"),
    "nickname": ("{s} goes by {o}", "{s} does not go by {o}"),
    "age": ("{s} is {o} years old", "{s} is not {o} years old"),
    "birthday": ("{s}'s birthday is {o}", "{s}'s birthday is not {o}"),
    "birth_year": ("{s} was born in {o}", "{s} was not born in {o}"),
    "lives_in": ("{s} lives in {ao}", "{s} does not live in {ao}"),
    "from": ("{s} is from {o}", "{s} is not from {o}"),
    "works_at": ("{s} works at {ao}", "{s} does not work at {ao}"),
    "job_title": ("{s} is {ao}", "{s} is not {ao}"),
    "studies_at": ("{s} studies at {ao}", "{s} does not study at {ao}"),
    "studies": ("{s} studies {o}", "{s} does not study {o}"),
    "spouse": ("{s} is married to {o}", "{s} is not married to {o}"),
    "partner": ("{s} is in a relationship with {o}", "{s} is not in a relationship with {o}"),
    "relationship_status": ("{s} is {o}", "{s} is not {o}"),
    "sibling": ("{o} is {s}'s sibling", "{o} is not {s}'s sibling"),
    "parent": ("{o} is {s}'s parent", "{o} is not {s}'s parent"),
    "child": ("{o} is {s}'s child", "{o} is not {s}'s child"),
    "relative": ("{o} is {s}'s relative", "{o} is not {s}'s relative"),
    "friend": ("{o} is {s}'s friend", "{o} is not {s}'s friend"),
    "colleague": ("{o} is {s}'s colleague", "{o} is not {s}'s colleague"),
    "knows": ("{s} knows {o}", "{s} does not know {o}"),
    "pet": ("{s} has a pet: {ao}", "{s} does not have a pet: {ao}"),
    "likes": ("{s} likes {o}", "{s} does not like {o}"),
    "dislikes": ("{s} dislikes {o}", "{s} does not dislike {o}"),
    "hobby": ("{s} enjoys {o} as a hobby", "{s} does not have {o} as a hobby"),
    "diet": ("{s} is {o}", "{s} is not {o}"),
    "eats": ("{s} eats {o}", "{s} does not eat {o}"),
    "allergy": ("{s} is allergic to {o}", "{s} is not allergic to {o}"),
    "owns": ("{s} owns {ao}", "{s} does not own {ao}"),
    "plans": ("{s} plans to {o}", "{s} does not plan to {o}"),
    "visited": ("{s} visited {o}", "{s} has not visited {o}"),
    "event": ("{s}: {o}", "{s}: not {o}"),
}


# Wording for a fact that has ended ("I used to live in Boston").
_PAST_TEMPLATES: dict[str, str] = {
    "lives_in": "{s} used to live in {ao}",
    "works_at": "{s} used to work at {ao}",
    "job_title": "{s} used to be {ao}",
    "studies_at": "{s} used to study at {o}",
    "studies": "{s} used to study {o}",
    "spouse": "{s} was married to {o}",
    "partner": "{s} was in a relationship with {o}",
    "relationship_status": "{s} was {o}",
    "likes": "{s} used to like {o}",
    "dislikes": "{s} used to dislike {o}",
    "hobby": "{s} used to enjoy {o}",
    "diet": "{s} used to be {o}",
    "owns": "{s} used to own {ao}",
    "pet": "{s} used to have {ao}",
    "speaks": "{s} used to speak {o}",
    "age": "{s} was {o} years old",
    "eats": "{s} used to eat {o}",
}
# Lower-case singular objects of these read better with an article: "owns a car", "is a nurse".
_ARTICLE_PREDICATES = frozenset({"job_title", "owns", "pet", "works_at", "studies_at", "lives_in", "visited"})
_NO_ARTICLE = re.compile(
    r"^(?:a|an|the|some|retired|unemployed|self-employed|freelancing|between|out of|on|in|working|"
    r"teaching|studying)\b"
)


def with_article(noun: str) -> str:
    """'car' -> 'a car', 'engineer' -> 'an engineer'; names, plurals and states stay as they are."""
    if (
        not noun
        or not noun[0].islower()
        or _NO_ARTICLE.match(noun)
        or (noun.endswith("s") and not noun.endswith("ss"))
    ):
        return noun
    return ("an " if noun[0] in "aeiou" else "a ") + noun


def render(subject: str, predicate: str, obj: str, negated: bool = False, ended: bool = False) -> str:
    """A plain third-person sentence for a triple, used when a rule has no better wording.

    ``ended`` words a fact that held and stopped ("user used to live in Boston").
    """
    name = canonical(predicate)
    if name.startswith(FAVOURITE_PREFIX):
        category = name[len(FAVOURITE_PREFIX) :].replace("_", " ")
        verb = "is not" if negated else ("was" if ended else "is")
        return f"{subject}'s favourite {category} {verb} {obj}"
    shown = with_article(obj) if name in _ARTICLE_PREDICATES else obj
    if ended and not negated:
        past = _PAST_TEMPLATES.get(name)
        if past:
            return past.format(s=subject, o=obj, ao=shown)
        return f"{render(subject, name, obj)} (no longer)"
    fallback = "{s} " + phrase(name) + " {o}"
    positive, negative = _TEMPLATES.get(name, (fallback, "not: " + fallback))
    return (negative if negated else positive).format(s=subject, o=obj, ao=shown)
