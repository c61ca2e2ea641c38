"""Capitals for a message typed all in lower case, as texting often is.

The rules find people, places and organisations by their capitals ("my sister Sarah", "moved to
Milwaukee", "work at Kaiser"); "my sister sarah" gives them nothing. A message with no capital
letter at all (beyond a lone "I") gets back the capitals its words would have in edited English,
where the words around them say which:

* "i" and "i'm", as anyone would write them (not a sentence's first word: "woodworking is my zen
  thing" is not about someone called Woodworking);
* the places of the lexicon's gazetteer ("san diego");
* names the session has already seen in capitals or restored here (``known``);
* an unknown word in a slot the rules read as a name: after a relation or pet noun ("my sister
  sarah"), after "named", "called" or "call me", before "and I", after a verb of living, moving or
  working and its preposition ("moved to conroe", "work at rollins remodeling"), after "I'm" in a
  greeting ("hey, i'm priya"). A word is unknown when it is not one of the common words listed
  below (nor a word of the lexicon); an organisation's name may go on through the words such
  names are made of ("uc davis medical center").

It guesses: a name that is also a common word ("salt and pepper", "my dog biscuit") stays lower
case, and an uncommon word in a name's slot gains a capital it should not have. Messages with any
capital are left as they were written.
"""

from __future__ import annotations

import re

from ....vocab import relation_words
from . import lexicon

_LETTER = re.compile(r"[^\W\d_]")
_WORD = re.compile(r"[^\W\d_][\w'’.-]*[^\W_]|[^\W\d_]")
_I_FORMS = re.compile(r"^i(?:['’](?:m|ve|d|ll))?$")
_ASCII_CAPITAL = re.compile(r"(?<![\w'’])(?!I(?![\w]))[\w'’-]*[A-Z]")  # a capital outside a lone "I"
# A word with one capital, first: "Dee", "Conroe", not "UX" or "iPhone".
_CAPITALISED = re.compile(
    r"(?<![\w'’-])[A-Z\u00C0-\u00D6\u00D8-\u00DE][a-z\u00DF-\u00FF'’]+(?![\w'’-]*[A-Z])"
)
_APOSTROPHE_LESS = {"im": "I'm", "ive": "I've"}

# Words that are not names, in lower case: the closed classes and the commonest open-class words,
# with the lexicon's nouns added below. Not meant to be complete: a word missing here only matters
# when it stands where a name would.
COMMON = frozenset(
    """
a an the this that these those some any every each all both either neither no none another other such
i me my mine myself we us our ours ourselves you your yours yourself he him his himself she her hers
herself it its itself they them their theirs themselves who whom whose which what whatever whoever
where when why how there here then than
and or but nor so yet for because since although though while whereas unless until till if whether
as at by in into onto on off of from to toward towards with without within through throughout over
under above below between among around about after before during near next past per via up down out
upon beside besides beyond against along across behind inside outside
am is are was were be been being have has had having do does did doing done will would shall should
can could may might must ought need needs needed dare let lets
not never no yes yeah yep nope ok okay alright sure maybe perhaps also too very really quite just
only even still already again ever soon now later today tonight tomorrow yesterday recently lately
finally actually honestly basically literally seriously probably definitely totally pretty almost
nearly mostly usually always often sometimes rarely once twice else instead anyway anyways btw lol
lmao omg idk haha hahaha ugh oh ah hmm wow well like kinda sorta gonna wanna gotta
dunno tho thru pls plz
thx thanks thank sorry please hi hey hello hiya yo bye cheers congrats
one two three four five six seven eight nine ten eleven twelve first second third last next few many
much more most less least lot lots bit half whole several own same different new old young big small
little long short high low great good bad best worse worst better nice fine happy sad glad tired busy
free full hard easy early late real whole right wrong sure able ready close far cold hot warm cool
huge tiny quick slow main super absolutely loads heaps proper bloody wee
get gets got gotten getting go goes went gone going come comes came coming make makes made making
take takes took taken taking give gives gave given giving say says said saying tell tells told know
knows knew known think thinks thought see sees saw seen look looks looked looking want wants wanted
use used using find found work works worked working call calls called try tries tried trying ask
asked feel feels felt leave left leaving put keep kept start started starting stop stopped live lives
lived living move moved moving moving stay stayed staying visit visited visiting love loved loves
hate hated like liked likes enjoy enjoyed play played playing watch watched watching meet met
meeting buy bought sell sold pay paid run ran spend spent help helped bring brought turn turned
turns turning finish finished quit joined join joining hired began begin begun become became
drive drove driving fly flew flying back home house flat apartment place town city area country
room school work job office uni college class shift gym church store shop bar pub party dinner lunch
breakfast coffee tea time day days week weeks month months year years night nights morning evening
weekend weekends holiday holidays vacation trip thing things stuff way life family friends people
guy guys lady kids folks someone something anything everything nothing everyone anyone nobody
somewhere anywhere everywhere nowhere
monday tuesday wednesday thursday friday saturday sunday january february march april june july
august september october november december christmas easter
originally currently recently finally basically usually probably definitely apparently hopefully
exactly mostly mainly likely lovely friendly barely hardly quickly slowly properly happily sadly
luckily unfortunately fortunately eventually initially previously formerly temporarily permanently
technically officially normally generally typically especially particularly certainly surely simply
clearly completely entirely truly directly immediately suddenly lately nowadays
reckons reckon thinks wants needs keeps makes takes goes comes texts visits plays runs owns believes
feels seems looks sounds means asks helps starts drives cooks knows hopes worries insists complains
died passed lost won broke gave came went sat stood fell grew drew wrote read ate drank slept woke
married divorced retired graduated finished decided tried wanted needed loved hated asked stayed
""".split()
) | frozenset("said says told texted phoned called messaged emailed rang turned turns".split()) | frozenset(
    relation_words.RELATIONS) | frozenset(relation_words.PETS) | lexicon.JOBS | relation_words.NOT_NAMES | (
    lexicon.TEXTING_PARTICLES)
# Words an organisation's name goes on with once it has begun ("kennedy high school").
_ORG_WORDS = frozenset(
    """high school university college hospital medical center centre clinic bank labs lab group company
    co inc ltd llc studio studios cafe café bakery restaurant hotel academy institute foundation
    remodeling remodelling builders construction solutions systems partners health care services
    royal infirmary general county state national city
    """.split()
)
_POSSESSORS = frozenset("my our his her their your".split())
_RELATION_ADJECTIVES = frozenset(
    "older younger little big baby eldest oldest youngest late new ex step twin best good close dear old"
    .split()
)
_NAMING = frozenset("named called call calls calling nicknamed".split())
_CALLED = frozenset("me her him them us it".split())  # "everyone calls her kat"
# Verbs whose object is a person: "married tasha", "engaged to jess".
_PERSON_SLOTS = {
    **dict.fromkeys("married marrying marry dating seeing".split(), ("",)),
    **dict.fromkeys("engaged".split(), ("to",)),
}
# A person's name at the start of a sentence, before what people do: "kayla turned 20".
_PERSON_VERBS = frozenset("said says told texted phoned called messaged rang turned turns".split())
# Verbs whose object, or whose preposition's object, is a place or an organisation: the verb, and
# the prepositions that lead to the name ("" for a name straight after the verb: "joined infosys").
_PLACE_SLOTS = {
    **dict.fromkeys("live lives lived living reside resides resided residing".split(), ("in", "near")),
    **dict.fromkeys("moved move moving relocated relocating".split(), ("to", "from", "near")),
    **dict.fromkeys("based settled grew born raised".split(), ("in", "near", "up in")),
    **dict.fromkeys("visit visited visiting".split(), ("",)),
    **dict.fromkeys("trip flew fly flying drove drive driving been".split(), ("to", "from")),
    **dict.fromkeys("here back up down out over".split(), ("in", "from", "to")),
    **dict.fromkeys("i'm im am originally comes come came".split(), ("from",)),
}
_WORK_SLOTS = {
    **dict.fromkeys("work works worked working".split(), ("at", "for")),
    **dict.fromkeys("job intern interning internship teach teaches taught teaching".split(), ("at",)),
    **dict.fromkeys("started starting start".split(), ("at",)),
    **dict.fromkeys("joined joining join".split(), ("",)),
    **dict.fromkeys("hired employed".split(), ("at", "by")),
    **dict.fromkeys("studying study studies student enrolled graduated".split(), ("at", "from")),
}
_SENTENCE_END = re.compile(r"[.!?\n]\s*$")
_INTRODUCING = (["i", "am"], ["this", "is"])  # "hi, this is okonkwo"
_GREETINGS = frozenset("hi hey hello hiya yo so ok okay well".split())
_RUN = 4  # words at most in one restored name


def typed_lowercase(text: str) -> bool:
    """True when ``text`` has letters and no capital beyond a lone "I" (or "I'm", "I've")."""
    if text.islower():  # some cased letter and none upper: the usual lower-case message, at once
        return True
    if not _LETTER.search(text):
        return False
    if text.isascii():
        return _ASCII_CAPITAL.search(text) is None
    for m in _WORD.finditer(text):
        word = m[0]
        if word != word.lower() and not _I_FORMS.match(word.lower()):
            return False
    return True


def restore_case(text: str, known: dict[str, str] | None = None) -> tuple[str, dict[str, str]]:
    """``text`` with the capitals it would have had, and the names it restored (casefolded ->
    written) for the session to know; unchanged when it has a capital already. ``known``: names
    the session knows, casefolded -> as written ("sarah" -> "Sarah")."""
    if not typed_lowercase(text):
        return text, {}
    return _Typed(text, known or {}).restored()


_SLOTS = {**_PLACE_SLOTS, **_WORK_SLOTS}


class _Typed:
    """One message typed in lower case, its words, and the capitals found for them."""

    def __init__(self, text: str, known: dict[str, str]):
        self.text, self.known = text, known
        self.words = list(_WORD.finditer(text))
        self.lower = [m[0].lower().replace("’", "'") for m in self.words]
        self.cased: dict[int, str] = {}  # word index -> as it should be written
        self.learned: dict[str, str] = {}  # names of people found here

    def restored(self) -> tuple[str, dict[str, str]]:
        for i, word in enumerate(self.lower):
            if _I_FORMS.match(word):
                self.cased[i] = "I" + self.words[i][0][1:]
            elif word in _APOSTROPHE_LESS:
                self.cased[i] = _APOSTROPHE_LESS[word]
            else:
                self._as_known(i, self.known)
        _places(self.lower, self.words, self.cased, self.joined)
        greeted = any(w in _GREETINGS for w in self.lower[:3])
        for i in range(len(self.words) - 1):
            self._slot(i, greeted)
        for i in range(len(self.words)):  # a name restored once is a name wherever the message says it
            if i not in self.cased:
                self._as_known(i, self.learned)
        out, at = [], 0
        for i, m in enumerate(self.words):
            if i in self.cased:
                out += [self.text[at : m.start()], self.cased[i]]
                at = m.end()
        out.append(self.text[at:])
        return "".join(out), self.learned

    def _slot(self, i: int, greeted: bool) -> None:
        """Restore the name that word i opens a slot for, if any (see the module's docstring)."""
        lower, word, nxt = self.lower, self.lower[i], i + 1
        if word in _NAMING or (word == "is" and i > 0 and lower[i - 1] in ("name", "names")):
            self._name_at(nxt + (lower[nxt] in _CALLED and nxt + 1 < len(lower)), person=True)
        elif _relation_noun(word) and (_possessed(lower, i) or lower[nxt : nxt + 2] == ["of", "mine"]):
            start = nxt + (lower[nxt] in _NAMING)
            start += 2 * (lower[start : start + 2] == ["of", "mine"])  # "a coworker of mine, sarah kim"
            self._name_at(start, person=True)
        elif greeted and i < 6 and lower[nxt] != "from" and (
                word in ("i'm", "im", "its", "it's") or lower[i - 1 : i + 1] in _INTRODUCING):
            self._name_at(nxt, person=True)  # "hey, i'm priya"
        elif word in _PERSON_SLOTS:
            self._name_at(_slot_start(lower, i, _PERSON_SLOTS[word], self.joined), person=True)
        elif word in _SLOTS or (lower[nxt] in ("at", "for") and _job_before(lower, i)):
            slot = _slot_start(lower, i, _SLOTS.get(word, ("at", "for")), self.joined)
            if slot is not None and not lower[slot].endswith("ing"):  # "started eating fish"
                self._name_at(slot, organisation=word not in _PLACE_SLOTS)
        elif word in ("and", "&") and lower[nxt] in ("i", "me") and i > 0 and self.unknown(i - 1):
            self._name_at(i - 1, person=True, longest=1)  # "tomás and i"
        elif greeted and i < 4 and lower[nxt] == "here":  # "hi. jonathan here"
            self._name_at(i, person=True)
        elif lower[nxt] in _PERSON_VERBS and self._begins_sentence(i) and (
                lower[nxt] not in ("turned", "turns") or self._number_after(nxt)):
            self._name_at(i, person=True)  # "kayla turned 20"

    def joined(self, i: int) -> bool:
        """Only blanks between word i-1 and word i: one phrase."""
        return i > 0 and self.text[self.words[i - 1].end() : self.words[i].start()].strip() == ""

    def unknown(self, i: int) -> bool:
        word = self.lower[i].rstrip(".")
        if len(word) >= 6 and word.endswith("ed") and not word.endswith("mmed"):
            return False  # "my wife passed away", "my brother remarried": a verb, not a name
        return word not in COMMON and not word.isdigit() and len(word) > 1

    def _begins_sentence(self, i: int) -> bool:
        return i == 0 or bool(_SENTENCE_END.search(self.text, self.words[i - 1].end(), self.words[i].start()))

    def _number_after(self, i: int) -> bool:
        """A number follows word i: "turned 20", not "turned into a pumpkin"."""
        return self.text[self.words[i].end() :].lstrip()[:1].isdigit()

    def _name_at(self, i: int | None, *, organisation: bool = False, person: bool = False,
                 longest: int = _RUN) -> None:
        """Capitalise the unknown words from word i on (an organisation's name may go on through
        the words such names are made of); a person's are learned."""
        if i is None:
            return
        j = i
        while j < len(self.words) and j - i < longest and (j == i or self.joined(j)):
            if not (self.unknown(j) or (organisation and j > i and self.lower[j] in _ORG_WORDS)):
                break
            self.cased[j] = _capital(self.words[j][0])
            if person:
                self.learned[self.lower[j]] = self.cased[j]
            j += 1

    def _as_known(self, i: int, names: dict[str, str]) -> None:
        """Word i as a name in ``names`` writes it, possessive kept ("kofi's" -> "Kofi's")."""
        word = self.lower[i]
        bare = word[:-2] if word.endswith("'s") else word[:-1] if word.endswith("'") else word
        if bare in names:
            self.cased[i] = names[bare] + self.words[i][0][len(bare) :]


def _slot_start(lower: list[str], i: int, prepositions: tuple[str, ...], joined) -> int | None:
    """Where the name after verb i begins: past one of its prepositions ("moved to"), or at once
    for a verb that takes its name directly ("joined"); None when neither follows."""
    for prep in prepositions:
        n = len(prep.split())
        start = i + 1 + n
        if start < len(lower) and all(joined(k) for k in range(i + 1, start + 1)) and (
                lower[i + 1 : start] == prep.split()):
            return start
    return None


def learn_names(text: str) -> dict[str, str]:
    """The names a message written with capitals shows (casefolded -> as written): capitalised
    words that do not begin a sentence and are not common words ("Congratulations, Dee! Conroe is
    a great spot" shows "dee"; "Conroe" begins its sentence). For the session to know them when
    the user types in lower case."""
    out = {}
    for m in _CAPITALISED.finditer(text):
        before = text[: m.start()].rstrip()
        if not before or before[-1] in ".!?:\n" or (m.start() > 0 and text[m.start() - 1] in "'’-"):
            continue  # a sentence's first word is capitalised whatever it is
        folded = m[0].lower().replace("’", "'")
        if folded not in COMMON and len(folded) > 1:
            out[folded] = m[0]
    return out


def _capital(word: str) -> str:
    return word[:1].upper() + word[1:]


def _job_before(lower: list[str], i: int) -> bool:
    """Word i ends a job: a listed one ("nurse"), or the end of "a/an" and up to three words
    ("a site superintendent"), so "for gulf coast builders" after it names the employer."""
    return lower[i] in lexicon.JOBS or any(lower[j] in ("a", "an") for j in range(max(0, i - 3), i))


_PET_WORDS = frozenset(relation_words.PETS) | {p + "s" for p in relation_words.PETS}
_RELATION_OR_PET: dict[str, bool] = {}  # word -> whether it is a relation or pet noun, as met


def _relation_noun(word: str) -> bool:
    known = _RELATION_OR_PET.get(word)
    if known is None:
        known = relation_words.relation_of(word) is not None or word in _PET_WORDS
        if len(_RELATION_OR_PET) < 50_000:
            _RELATION_OR_PET[word] = known
    return known


def _possessed(lower: list[str], i: int) -> bool:
    """"my sister", "our eldest daughter", "a coworker of mine": a relation the speaker has."""
    j = i - 1
    while j >= 0 and lower[j] in _RELATION_ADJECTIVES:
        j -= 1
    return j >= 0 and lower[j] in _POSSESSORS


# The first words of the gazetteer's places ("san" of "san diego"), to pass the rest at once.
_PLACE_STARTS = frozenset(p.removeprefix("the ").split()[0] for p in lexicon.PLACES if p.strip())


def _places(lower: list[str], words: list[re.Match[str]], cased: dict[int, str], joined) -> None:
    """The gazetteer's places, longest first ("san diego" before "diego"); short names that are
    also common words ("us", "la") are left alone."""
    i = 0
    while i < len(words):
        if lower[i] not in _PLACE_STARTS:
            i += 1
            continue
        for n in (3, 2, 1):
            if i + n > len(words) or not all(joined(k) for k in range(i + 1, i + n)):
                continue
            name = " ".join(lower[i : i + n])
            if lexicon.is_place(name) and len(name) > 3 and name not in COMMON:
                for k in range(i, i + n):
                    cased[k] = _capital(words[k][0])
                i += n - 1
                break
        i += 1
