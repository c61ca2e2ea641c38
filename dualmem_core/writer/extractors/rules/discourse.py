"""What one session's earlier messages leave for the next: the discourse context of the rule extractor.

Chat spreads a fact over turns: "I adopted a puppy." / "His name is Biscuit."; "My sister got
engaged." / "She lives in Leeds."; the assistant asks "Where are you based?" and the user says
"Leeds, for now". A session's ``Discourse`` (``writer/sessions.py``) keeps the few referents a
following message may point back to, and the assistant's last question of a known kind; the
functions here read and update it (``heard``, ``referent``, ``after``). It is small and O(1) to
update.

Precision first: a wrong ``lives_in`` later supersedes a right one. So a pronoun is resolved only
when exactly one earlier referent fits its gender ("he" after two men, "she" after two women and
"they" resolve to nothing), referents fade after two user messages that name nobody, and a short
answer is read only right after a question whose kind is known, and only when it looks like an
answer of that kind (a capitalised place for "where", a number for "how old", a job noun for
"what do you do").
"""

from __future__ import annotations

import re

from ...sessions import Discourse, Question, Referent
from .clause_split import bare_job
from .truecase import learn_names

_FEMALE = frozenset(
    "sister mum mom mother mam mummy mommy wife girlfriend fiancee fiancée aunt auntie niece daughter "
    "grandma granny gran nan nana nanna grandmother stepmum stepmom stepmother stepdaughter stepsister "
    "sis missus gf wifey".split()
)
_MALE = frozenset(
    "brother dad father da daddy husband boyfriend fiance fiancé uncle nephew son grandad granddad "
    "grandpa grandfather stepdad stepfather stepson stepbrother bro hubby bf".split()
)
# A stay, not a home: "I'm in Lisbon for a week" makes no "here" for the next message.
TEMPORARY = re.compile(
    r"\bfor (?:the|a|an|two|a few|\d+) (?:weekend|week|day|night|month)s?\b|"
    r"\b(?:visiting|holiday|vacation|trip|tonight|today|this week|at the moment)\b",
    re.I,
)
_YOUR_RELATIVE = re.compile(r"\byour\s+(?P<rel>[a-z]+)\b", re.I)
_OWN_MOVE = re.compile(
    r"\b(?:I|we)(?:'ve| have|'re| are)?\s+(?:just\s+|finally\s+)?(?:moved|relocated|moving)\b", re.I
)
_FADE = 2  # user messages naming nobody after which earlier referents are forgotten
_PRONOUNS = re.compile(r"\b(?:(?P<m>he|him|his|himself)|(?P<f>she|her|hers|herself))\b", re.I)
_RELATION_OF = re.compile(r"'s ([a-z-]+)$")
_IS_RELATION = re.compile(r" is [^ ]+'s ([a-z-]+)$")


def gender_of(relation: str) -> str:
    """'sister' -> 'f', 'husband' -> 'm', 'friend' -> '' (unknown)."""
    word = relation.lower().removeprefix("ex-")
    return "f" if word in _FEMALE else "m" if word in _MALE else ""


def heard(context: Discourse, text: str) -> None:
    """An assistant turn: remember its question, if it asks something a short answer can give,
    and the one relative of the user it speaks of ("How's your mum?" -> "She's good")."""
    context.question = read_question(text)
    context.learn(learn_names(text))  # "Congratulations, Dee!": the user's lower-case "dee" is a name
    relatives = {m["rel"].lower() for m in _YOUR_RELATIVE.finditer(text)}
    relatives &= _RELATION_WORDS
    context.asked_about = relatives.pop() if len(relatives) == 1 else ""


def referent(context: Discourse, text: str, speaker: str) -> tuple[str | None, str | None]:
    """(person, pet) that a message's he/she/his/her/it may mean, each only when unambiguous."""
    people = context.people
    if rel := context.asked_about:  # "What does your husband do?" - "He's a teacher"
        people = (Referent(f"{speaker}'s {rel}", gender_of(rel)),)
    pet = context.pets[0] if len(context.pets) == 1 else None
    genders = {"m" if m["m"] else "f" for m in _PRONOUNS.finditer(text)}
    if not genders:
        return None, pet  # "It's called Mochi": only a pet can be meant
    if len(genders) > 1:
        return None, None  # "he" and "she" in one message: one referent cannot serve both
    (gender,) = genders
    fits = [p.name for p in people if p.gender in ("", gender)]
    if len(fits) == 1 and fits[0] and pet is None:
        return fits[0], None
    if not fits:
        return None, pet
    return None, None  # two persons fit, or a person and a pet


def after(
    context: Discourse,
    speaker: str,
    text: str,
    people: list[str],
    facts: list,
    state_place: str | None,
    home_said: bool,
    work_talk: bool,
    moved: bool,
) -> None:
    """Update from a user message just read: who it named, its pets, its home, its topic."""
    context.question = None
    context.pet_names |= {f.object for f in facts if f.predicate == "pet" and f.object[:1].isupper()}
    people = [p for p in people if p not in context.pet_names]
    named = [_referent(name, speaker, text, people, facts) for name in dict.fromkeys(people)]
    named += _unread_people(text, speaker, {r.name for r in named}, facts)
    if named:
        context.people = tuple(named)
        context.quiet = 0
    pets = [f.object for f in facts if f.predicate == "pet" and not f.negated and f.valid_to is None]
    if pets:
        unnamed = [p for p in pets if p[:1].islower()]
        pets_named = len(unnamed) < len(pets)  # (the check below is False anyway when there are pets)
        context.pets = () if pets_named else tuple(dict.fromkeys(unnamed))
        context.quiet = 0
    if not named and not pets:
        context.quiet += 1
        if context.quiet >= _FADE:
            context.people, context.pets = (), ()
    homes = {f.object for f in facts if f.predicate in ("lives_in", "from") and not f.negated}
    if state_place and (state_place in homes or home_said):
        context.place = state_place
    elif homes:
        context.place = None  # a home without "there"/"here" meaning: safer to forget the old one
    context.asked_about = ""
    context.work_talk = work_talk
    # Only the speaker's own move makes their next "we're in Sheffield now" a home.
    context.moved = moved and (
        any(f.predicate == "lives_in" and f.subject == speaker for f in facts)
        or bool(_OWN_MOVE.search(text))
    )


def _referent(name: str, speaker: str, text: str, people: list[str], facts: list) -> Referent:
    if name.startswith(f"{speaker}'s "):
        m = _RELATION_OF.search(name)
        return Referent(name, gender_of(m[1]) if m else "")
    for f in facts:  # "Tom is user's brother"
        if f.object == name and (m := _IS_RELATION.search(f.text)):
            if gender := gender_of(m[1]):
                return Referent(name, gender)
    if len(set(people)) == 1:  # the one person of the message, and the message's pronouns agree
        genders = {"m" if m["m"] else "f" for m in _PRONOUNS.finditer(text)}
        if len(genders) == 1:
            return Referent(name, genders.pop())
    return Referent(name)


_POSSESSED = re.compile(
    r"\b(?P<own>my|our|his|her|their)\s+(?:(?:ex|step|older|younger|big|little|new)-?\s*)?"
    r"(?P<rel>[a-z]+)\b",
    re.I,
)
_JOINED_NAME = re.compile(
    r"(?:\b(?:and|with|&)\s+|,\s+)(?P<name>[A-Z][a-z]+)\b|\b(?P<first>[A-Z][a-z]+)\s+(?:and|&)\s"
)


def _unread_people(text: str, speaker: str, known: set[str], facts: list) -> list[Referent]:
    """Persons the message names that the rules did not take as a subject ("my dad and my brother
    went fishing", "his wife", "Jess and Tom"). They make a later "he"/"she" ambiguous; only the
    speaker's own relatives ("my brother") can be resolved to, the rest (name "") only block."""
    objects = {f.object for f in facts}
    known = known | {
        f"{speaker}'s {m[1]}" for f in facts if (m := _IS_RELATION.search(f.text))
    }  # "my brother Tom"
    out = []
    for m in _POSSESSED.finditer(text):
        rel = m["rel"].lower()
        gender = gender_of(rel)
        if not gender and rel not in _RELATION_WORDS:
            continue
        own = m["own"].lower() in ("my", "our")
        name = f"{speaker}'s {rel}" if own else ""
        if name not in known or not own:
            out.append(Referent(name, gender))
    for m in _JOINED_NAME.finditer(text):
        name = m["name"] or m["first"]
        if name not in known and name not in objects and name not in _NOT_NAMES and name != "I":
            out.append(Referent("", ""))
    return out


# ------------------------------------------------------------------------------ questions

_YOU = r"(?:you|ya|u)"
_REL = r"(?P<rel>[a-z-]+)"
_QUESTIONS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (kind, re.compile(pattern, re.I))
    for kind, pattern in (
        ("from", rf"\bwhere\b.*\b(?:{_YOU}|your {_REL})\b.*\b(?:from|grow up|raised|born)\b"),
        (
            "work_at",
            rf"\b(?:where|who|which company)\b.*\b(?:{_YOU}|your {_REL})\b.*\bwork(?:ing)?\b|"
            rf"\bwhich (?:company|firm|employer) (?:are|do) {_YOU}\b",
        ),
        (
            "live",
            rf"\bwhere(?:abouts)?\b.*\b(?:{_YOU}|your {_REL})\b.*\b(?:live|living|based|located|"
            r"settled|call home)\b|\bwhereabouts are you\b|\bwhat (?:city|town|part of)\b.*\b"
            rf"{_YOU}\b.*\b(?:live|in|based)\b",
        ),
        (
            "job",
            rf"\bwhat\b.*\b(?:do|does) (?:{_YOU}|your {_REL}) do\b(?! (?:today|tonight|now|this|"
            r"next|at the|on|for fun))|\bwhat(?:'s| is) your (?:job|line of work|profession|occupation)\b|"
            rf"\bwhat (?:line|kind|sort|type) of (?:work|job) (?:are|do) {_YOU}\b",
        ),
        ("study", rf"\bwhat\b.*\b(?:{_YOU}|your {_REL})\b.*\bstudy(?:ing)?\b"),
        ("age", rf"\bhow old (?:are {_YOU}|is your {_REL})\b"),
        (
            "name",
            r"\bwhat(?:'s| is) your name\b|\bwhat should I call you\b|\bwho am I (?:talking|speaking) to\b|"
            r"\b(?:catch|get|have) your name\b|\byour name again\b",
        ),
        (
            "partner",
            r"\bwhat(?:'s| is) your (?P<topic>partner|wife|husband|girlfriend|boyfriend|fianc[eé]e?)'s "
            r"name\b",
        ),
        (
            "pet_name",
            r"\bwhat(?:'s| is) (?:his|her|its|the (?:dog|cat|puppy|kitten|pup)'s) name\b|"
            r"\bwhat (?:did|will|are) you (?:call|name|calling|naming) (?:him|her|it)\b",
        ),
        ("have_pet", rf"\bdo {_YOU} have (?:any )?pets?\b"),
        ("favourite", r"\bwhat(?:'s| is) your fav(?:ou?rite)? (?P<topic>[a-z]+(?: [a-z]+)?)\b"),
    )
)
_RELATION_WORDS = (
    _FEMALE
    | _MALE
    | frozenset(
        "partner friend colleague boss cousin kid child baby flatmate roommate housemate neighbour neighbor "
        "bestie mate".split()
    )
)


def read_question(text: str) -> Question | None:
    """The kind of the assistant's last question, when a short answer to it can be read."""
    asks = [s for s in re.split(r"(?<=[?])\s+", text) if s.rstrip().endswith("?")]
    if not asks:
        return None
    ask = asks[-1]
    for kind, pattern in _QUESTIONS:
        if m := pattern.search(ask):
            about = (m.groupdict().get("rel") or "").lower()
            if about and about not in _RELATION_WORDS:
                return None  # "where does your company ...": not a person we can name
            topic = (m.groupdict().get("topic") or "").lower()
            return Question(kind, about, topic)
    return None


# -------------------------------------------------------------------------------- answers

_FILLER = re.compile(
    r"^(?:(?:yeah|yes|yep|yup|oh|um+|uh+|er+m?|well|so|haha|lol|hmm+|ah|ok|okay)\b[,.!]*\s*)+", re.I
)
_FRAGMENT_END = re.compile(r"\s*(?:[,.;!?()]|\s-\s|\s–\s|\s+(?:but|and|though|although)\b)")
_LOCATIVE = re.compile(
    r"^(?i:(?:just|right)\s+)?(?i:in|near|outside|north of|south of|east of|west of|"
    r"on the outskirts of)\s+(?=[A-Z])"
)
# "Originally Dundee", "currently Leeds": the adverb is not part of the answer.
_LEAD_ADVERB = re.compile(r"^(?:originally|currently|mostly|basically|still|now|probably)\s+", re.I)
_NAME_LEAD = re.compile(r"^(?:it'?s|it is|i'?m|i am|call me|just|my name'?s|my name is)\s+", re.I)
_I_AM_IN = re.compile(r"^(?:i'?m|i am|we'?re|we are)\s+(?=(?:just\s+)?(?:in|near|outside)\s+[A-Z])", re.I)
_PLACE = re.compile(r"^[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*){0,3}$")
_ORG = re.compile(r"^(?:(?:a|an|the)\s+[a-z][\w' -]*|[A-Z][\w'&.-]*(?:\s+[\w'&.-]+){0,3})$")
_NAME = re.compile(r"^[A-Z][a-z]+(?:-[A-Z][a-z]+)?$")
_NOT_NAMES = frozenset(
    "Yes No Yeah Nope Same Not Why What Sure Maybe Nothing Nobody None Dunno Later".split()
)
_NUMBERS = {
    w: str(i)
    for i, w in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
        "sixteen seventeen eighteen nineteen twenty".split()
    )
}
_AGE = re.compile(
    r"^(?:(?:i'?m|i am|she'?s|he'?s)\s+)?(?P<n>\d{1,3}|[a-z]+)(?:\s+(?:years old|yrs|now))?$", re.I
)
_PET_PHRASE = re.compile(r"^(?:a|an|one|two|three|\d)\s+[a-z]")
_STUDY = re.compile(r"^[A-Za-z][a-z]+(?:\s+[A-Za-z][a-z]+){0,2}$")


def answer_statement(question: Question | None, text: str, pets: tuple[str, ...] = ()) -> str | None:
    """The short answer ``text`` restated as a sentence the rules read, or None when it is not one.

    "Leeds, for now" after "Where are you based?" -> "I live in Leeds. for now"; the rest of the
    message follows the restated fragment unchanged.
    """
    if question is None or "?" in text.split(".", 1)[0]:
        return None
    body = _FILLER.sub("", text.strip())
    end = _FRAGMENT_END.search(body)
    fragment, rest = (body[: end.start()], body[end.start() :]) if end else (body, "")
    fragment = fragment.strip()
    if not fragment or len(fragment.split()) > 6:
        return None
    said = _restate(question, fragment, pets)
    if said is None:
        return None
    rest = rest.lstrip(" ,;-–")
    return f"{said}. {rest}" if rest else f"{said}."


def _restate(q: Question, fragment: str, pets: tuple[str, ...]) -> str | None:
    who, third = ("I", False) if not q.about else (f"My {q.about}", True)
    fragment = _LEAD_ADVERB.sub("", fragment)
    be = "is" if third else "am"
    if q.kind in ("live", "from"):
        fragment = _I_AM_IN.sub("", fragment)
        if _LOCATIVE.match(fragment):
            place = fragment[0].lower() + fragment[1:]  # "In Auckland" -> "in Auckland"
        elif _PLACE.match(fragment) and fragment.split()[0] not in _NOT_NAMES:
            place = f"in {fragment}" if q.kind == "live" else fragment
        else:
            return None
        if q.kind == "live":
            return f"{who} {'lives' if third else 'live'} {place}"
        return f"{who} {be} from {re.sub(r'^in ', '', place)}"
    if q.kind == "work_at":
        if not _ORG.match(fragment) or fragment.split()[0] in _NOT_NAMES:
            return None
        org = fragment[0].lower() + fragment[1:] if re.match(r"(?:A|An|The)\s", fragment) else fragment
        return f"{who} {'works' if third else 'work'} at {org}"
    if q.kind == "job":
        job = fragment[0].lower() + fragment[1:]
        job = re.sub(r"^(?:a|an)\s+", "", job)
        if not bare_job(job):
            return None
        return f"{who} {be} a {job}"
    if q.kind == "study":
        if not _STUDY.match(fragment) or fragment.split()[0] in _NOT_NAMES:
            return None
        return f"{who} {'studies' if third else 'study'} {fragment.lower()}"
    if q.kind == "age":
        m = _AGE.match(fragment)
        number = m["n"] if m and m["n"].isdigit() else _NUMBERS.get(m["n"].lower()) if m else None
        if number is None or not 0 < int(number) < 120:
            return None
        return f"{who} {be} {number} years old"
    if q.kind in ("name", "partner", "pet_name"):
        fragment = _NAME_LEAD.sub("", fragment)  # "It's Ravi"
        if not _NAME.match(fragment) or fragment in _NOT_NAMES:
            return None
        if q.kind == "name":
            return None if third else f"My name is {fragment}"
        if q.kind == "partner":
            return f"My {q.topic} is called {fragment}"
        return f"It is called {fragment}" if len(pets) == 1 else None
    if q.kind == "have_pet":
        return f"I have {fragment}" if _PET_PHRASE.match(fragment) else None
    if q.kind == "favourite" and q.topic and not third:
        if fragment.split()[0] in _NOT_NAMES or len(fragment.split()) > 4:
            return None
        return f"My favourite {q.topic} is {fragment}"
    return None
