"""Surface text work before any rule runs: normalization, sentences, clause openers, non-statements.

The rules downstream match one clause at a time ("I moved to Denver", "she works at Acme"), so this
module's job is to hand them clean, independent clauses: contractions expanded, discourse markers
("btw", "Big news:") removed, questions, requests and conditionals recognised as such. Cutting a
sentence into its clauses is ``clause_split``'s.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from ....vocab.relation_words import NOT_NAMES
from .gates import prefiltered
from .lexicon import TEXTING_PARTICLES

_PARTICIPLES = (
    r"(?:been|gone|done|seen|known|taken|given|got|gotten|had|made|met|left|bought|begun|become|grown|"
    r"written|driven|eaten|flown|come|lost|found|heard|told|said|thought|kept|sent|spent|built|felt|held|"
    r"brought|taught|won|sold|read|run|never|always|just|already|finally|recently|\w+ed)"
)
# Participles that after "'s" describe a state ("she's married", "he's obsessed"): "is", not "has".
_STATES = (
    r"(?:obsessed|married|engaged|divorced|separated|widowed|retired|based|located|interested|excited|scared|"
    r"tired|bored|stressed|qualified|employed|unemployed|named|called|pleased|thrilled|worried|convinced|"
    r"settled|fascinated|hooked|addicted|involved|related|born|raised|obsessed|allergic|self-employed|"
    r"vaccinated|pregnant|expecting|adopted|spoiled|spoilt|trained|certified|registered|blessed|used)"
)
_SUBJECT_PRONOUNS = r"(?:he|she|it|that|there|what|who|where|here|this|everyone|everything|nobody|someone)"
# After a name or noun, "'s" is "is"/"has" only before these; otherwise it is a possessive.
_IS_AFTER_NOUN = (
    r"(?:a|an|the|been|got|gotten|from|in|at|on|not|never|always|still|also|really|now|currently|just|"
    r"married|engaged|single|pregnant|retired|moving|living|working|going|getting|studying|doing|starting|"
    r"dating|learning|taking|planning|allergic|vegan|vegetarian|called|named|my|our|retiring|leaving|coming|"
    r"visiting|having|selling|buying|training|teaching|turning|\d+)\b"
)

_AFTER_PAST = {
    "moving": "moved", "starting": "started", "getting": "got", "buying": "bought", "joining": "joined",
    "leaving": "left", "finishing": "finished", "adopting": "adopted", "turning": "turned", "selling": "sold",
    "quitting": "quit",
}  # fmt: skip


def _after_perfect(m: re.Match[str]) -> str:
    have = "have" if m[1].lower() in ("am", "are") else "has"
    return f"{have} just {_AFTER_PAST[m[2].lower()]}"


# Verbs whose "-in'" is "-ing" (a whitelist: "cabin", "begin", "cousin", "violin" stay as they are).
_DROPPED_G = (
    "liv|leav|mov|start|work|go|do|com|gett|tak|mak|look|think|try|hav|say|runn|call|fix|play|study|dat|"
    "see|stay|teach|driv|sell|buy|visit|plann|watch|learn|cook|eat|drink|fish|hunt|travel|travell|rent|"
    "smok|talk|walk|hik|swimm|danc|sing|read|writ|build|train|shopp|tell|feel|lov|hat|"
    "hop|wait|want|need|pay|help|dress|quitt|retir|marr|engag|divorc|expect|adopt|sav|spend|"
    "sleep|rid|bak|bik|camp|golf|bowl|paint|knitt|garden|volunteer|coach|serv"
)
_REPLACEMENTS: tuple[tuple[re.Pattern[str], str | Callable[[re.Match[str]], str]], ...] = tuple(
    (re.compile(p, re.IGNORECASE), r)
    for p, r in (
        (r"[‘’`´]", "'"),
        (r"[“”]", '"'),
        (r"\bcan't\b|\bcannot\b|\bcant\b(?=\s+(?:stand|bear|wait|eat|speak|live|drink))", "can not"),
        (r"\bwon't\b", "will not"),
        (r"\bshan't\b", "shall not"),
        (r"\bain't\b", "is not"),
        (r"\b(do|does|did|is|are|was|were|have|has|had|could|would|should|must|need)n't\b", r"\1 not"),
        (r"\b(do|does|did|is|are|was|were|have|has|had|could|would|should)nt\b", r"\1 not"),
        (r"\bi'm\b|\bim\b(?=\s)", "I am"),
        (r"\bi've\b|\bive\b(?=\s+(?:been|got|lived|worked|had|never|always|just))", "I have"),
        (r"\bi'll\b", "I will"),
        # Apostrophes left out: "hes 13 now", "Bree whos 9", "thats my favorite food"
        (r"\b(he|she|who|that|what|there)s\b(?=\s+(?:been|got)\b)", r"\1 has"),
        (r"\b(he|she|who|that|what|there)s\b(?=\s+\w)", r"\1 is"),
        (r"\b(they|you)re\b(?=\s)", r"\1 are"),
        (r"'re\b", " are"),
        (r"'ve\b", " have"),
        (r"'ll\b", " will"),
        (rf"'d(?=\s+(?:\w+ly\s+)?{_PARTICIPLES}\b)", " had"),
        (r"'d\b", " would"),
        (r"\bname's\b", "name is"),
        (r"^name is\b", "my name is"),  # "Name's Dave": the speaker's own name
        # "Still at Bumble, still in Manchester.": chat drops the "I am"
        (
            r"(?:^|(?<=[.!?] ))still(?: (?:very|really|so|\w+ly)){0,3} (in|at|with) (?=(?:the )?(?-i:[A-Z]))",
            r"I am still \1 ",
        ),
        # "Rafa here, 38, ...": an introduction with an age, said as "I am Rafa"
        (r"(?:^|(?<=[.!?] ))((?-i:[A-Z][a-z\u00DF-\u00FF]+)) here(?=\s*,\s*\d)", r"I am \1"),
        (r"(?<=[a-z0-9]) n (?=[a-z])", " and "),  # "im 19 n at uni"
        (r"\bw/\s*|(?<=[a-z]) w (?=(?:my|our|the|a|his|her|[A-Z])\b)", " with "),
        (r"\blet's\b", "let us"),
        (rf"\b({_SUBJECT_PRONOUNS})'s(?=\s+(?:\w+ly\s+)?(?!{_STATES}\b){_PARTICIPLES}\b)", r"\1 has"),
        (rf"\b({_SUBJECT_PRONOUNS})'s\b", r"\1 is"),
        (r"\bgonna\b", "going to"),
        (r"\bwanna\b", "want to"),
        (r"\bgotta\b", "got to"),
        (r"\bkinda\b", "kind of"),
        (r"\bcan not (?:stand|bear|stomach|tolerate|abide|be doing with|be dealing with)\b", "hate"),
        (r"\bcan not get enough of\b", "love"),
        (r"\b(love|loves|like|likes|enjoy|enjoys) me some\b", r"\1"),  # Southern US: "I love me some jazz"
        # Irish and northern English "me" for "my": "me mam lives in Cork"
        (r"\bme (?=(?:mam|mum|ma|mom|da|dad|nan|nana|granny|gran|brother|sister|husband|wife|fella|missus|"
         r"kids|daughter|son|partner|boyfriend|girlfriend|mate|best mate|cousin|auntie|uncle|folks)\b)",
         "my "),
        # Irish "I'm after moving": the perfect, just done
        (r"\b(am|is|are) (?:just )?after (moving|starting|getting|buying|joining|leaving|finishing|adopting|"
         r"turning|selling|quitting)\b", _after_perfect),
        # Dropped g's of casual speech: "im livin in Austin", "startin my own company"
        (rf"\b({_DROPPED_G})in(?=\s|[,.!?]|$)", r"\1ing"),
        (r"\bi\b", "I"),
    )
)
# What each replacement above cannot match without, lower-cased: a text lacking all of a row's
# literals skips that pattern. Only ASCII texts are gated (under IGNORECASE a few non-ASCII
# letters match ASCII ones).
_NEEDS: tuple[tuple[str, ...], ...] = (
    ("`",), ("\u201c", "\u201d"), ("can",), ("won't",), ("shan't",), ("ain't",), ("n't",), ("nt",),
    ("i'm", "im"), ("i've", "ive"), ("i'll",), ("s been", "s got"), ("s ",), ("re ",), ("'re",), ("'ve",),
    ("'ll",), ("'d",), ("'d",),
    ("name's",), ("name is",), ("still",), (" here",), (" n ",), ("w/", " w "), ("let's",), ("'s",),
    ("'s",), ("gonna",), ("wanna",), ("gotta",), ("kinda",),
    ("can not",), ("can not",), ("me some",), ("me ",), ("after",), ("in ", "in,", "in.", "in!", "in?"),
    ("i",),
)  # fmt: skip
assert len(_NEEDS) == len(_REPLACEMENTS)
# "master's in economics", "today's plan": possessives that "'s" + "in"/"at" would misread as "is".
_KEEP_POSSESSIVE = NOT_NAMES | {"master", "bachelor", "children", "people", "women", "men", "everyone"}
_NOUN_IS = re.compile(rf"\b([A-Za-z]+)'s\s+(?={_IS_AFTER_NOUN})")

# Abbreviations whose dot must not end a sentence.
_ABBREVIATIONS = re.compile(
    r"\b(?:Mr|Mrs|Ms|Dr|St|Jr|Sr|Prof|Inc|Ltd|Co|Corp|vs|etc|Mt|Ft|Ave|approx|e\.g|i\.e|U\.S|U\.K|D\.C|"
    r"a\.m|p\.m)\.|\b[A-Z]\.(?=\s?[A-Z])|(?<=\d)\.(?=\d)"
)
_DOT = "\u2024"  # stands in for a protected dot while splitting


_BLANKS = re.compile(r"[ \t]+")
_SENTENCE = re.compile(r"[^.!?;\n]+(?:[.!?;]+|\n|$)")
_EMOTICON = re.compile(r"\s*(?:[:;]-?[)(DPp]|<3|\(:|xD)\s*$")  # trailing emoticons


def normalize(text: str) -> str:
    """Expand contractions and tidy spacing; keeps the original casing of every other word."""
    text = text.replace("\u00a0", " ")
    if not text.isascii():
        for pattern, replacement in _REPLACEMENTS:
            text = pattern.sub(replacement, text)
    else:
        lowered = text.lower()
        for (pattern, replacement), needs in zip(_REPLACEMENTS, _NEEDS, strict=True):
            for need in needs:  # a plain loop: any() with a generator cost more than the tests
                if need in lowered:
                    text = pattern.sub(replacement, text)
                    lowered = text.lower()
                    break
    if "'s" in text or not text.isascii():
        text = _NOUN_IS.sub(lambda m: m[0] if m[1].lower() in _KEEP_POSSESSIVE else f"{m[1]} is ", text)
    if "  " in text or "\t" in text:  # else every run of blanks is one space already: nothing to do
        text = _BLANKS.sub(" ", text)
    return text.strip()


@dataclass(frozen=True, slots=True)
class Sentence:
    text: str  # without its final punctuation
    question: bool  # ended with "?"


def split_sentences(text: str) -> list[Sentence]:
    """Sentences of ``text``, split on . ! ? ; and newlines, with abbreviations kept whole.

    Dashes and bracketed clauses are asides: "my friend Robert — everyone calls him Bob — is coming"
    reads as "my friend Robert is coming" followed by the aside as a sentence of its own.
    """
    protected = _ABBREVIATIONS.sub(lambda m: m[0].replace(".", _DOT), text)
    out = []
    for m in _SENTENCE.finditer(protected):
        chunk = m[0].strip()
        body = chunk.rstrip(".!?; \n").strip().replace(_DOT, ".")
        body = _EMOTICON.sub("", body).strip()
        if not body:
            continue
        question = "?" in chunk[len(chunk.rstrip("!?.;")) :]
        for part in _asides(body) if ("—" in body or "–" in body or "-" in body or "(" in body) else [body]:
            for clause in break_run_on(part):
                out.append(Sentence(clause, question))
    return out


RUN_ON = 8  # words: a sentence this long may be several run together ("got a dog his name is Pickles")
# "I", "we", "he", "she", "they" begin a clause unless the word before binds them into the one
# they are in: a conjunction, a preposition, a verb that takes a clause ("I think she is"), or the
# person told ("did I tell you I got a job").
_SUBJECT = re.compile(r"\s(?=(?:I|[Ww]e|[Hh]e|[Ss]he|[Tt]hey)\s+[a-z])")
_BINDS = frozenset(
    """and but or nor so yet because cause cos coz bc when whenever while if unless since until till
    after before that than as where wherever which who whom whose how what why though although once
    whether cuz like plus then to for with of at in on from by about into even also just
    think thought said says say know knew guess hope hoped wish feel felt told tell mean means reckon
    bet suppose sure glad afraid realised realized noticed found heard saw see believe forgot remember
    remembered decided wonder wondered worried figured swear promise mind wanna hate love
    thinks reckons knows believes claims swears tells hopes feels worries figures insists guesses
    jokes joked complains complained suggests suggested agrees agreed admits admitted mentioned mentions
    explained explains pretends pretended assumes assumed doubt doubts dream dreamt dreamed dreaming
    imagine imagined imagining pretend wished you me him her us them""".split()
)
_WH = frozenset("how what where why when who which whatever however that".split())
# A clause has a verb: "back in 2023 I was living in Monterey" is one clause, not "back in 2023".
_VERBISH = re.compile(
    r"\b(?:am|is|are|was|were|be|been|being|have|has|had|do|does|did|can|could|will|would|should|may|might|"
    r"must|got|get|gets|go|goes|went|love|loves|like|likes|live|lives|work|works|want|wants|need|needs|know|"
    r"knows|think|thinks|say|says|said|make|made|take|took|see|saw|\w{3,}ed|\w{3,}ing)\b",
    re.IGNORECASE,
)


def break_run_on(body: str) -> list[str]:
    """A long sentence with no stop in it, split where a new subject begins: "we adopted a dog his
    name is Pickles he is a terrier mix" keeps its parts, "I think she is" does not split."""
    if body.count(" ") + 1 < RUN_ON:
        return [body]
    parts, start = [], 0
    for m in _SUBJECT.finditer(body):
        before = body[start : m.start()].split()
        if len(before) < 3 or before[-1].lower().strip(",") in _BINDS or before[-1].endswith(","):
            continue
        if not _VERBISH.search(body, start, m.start()) or _WH.intersection(w.lower() for w in before[-3:]):
            continue  # "how much I love Falmouth": the clause goes on
        parts.append(body[start : m.start()].strip())
        start = m.end()
    parts.append(body[start:].strip())
    return [p for p in parts if p]


_DASH = re.compile(r"\s*[—–]\s*|\s+--?\s+")
_BRACKETED = re.compile(r"\s*\((?P<aside>[^()]{3,200})\)")
# An aside that is a clause of its own ("(she's a nurse)"), not a gloss ("(UC San Diego)", "(since 2019)").
_CLAUSE_ASIDE = re.compile(r"(?:I|we|he|she|they|it|my|our|his|her|their)\s+[a-z]", re.I)
_NEW_SUBJECT = re.compile(r"(?:I|we|he|she|they|it|my|our|his|her|their|this|that|there)\b", re.I)


def _asides(body: str) -> list[str]:
    """The sentence with its dashed or bracketed asides taken out, then each aside."""
    asides: list[str] = []

    def lift(m: re.Match[str]) -> str:
        if _CLAUSE_ASIDE.match(m["aside"]):
            asides.append(m["aside"].strip())
            return ""
        return m[0]

    main = _BRACKETED.sub(lift, body)
    parts = [p.strip(" ,") for p in _DASH.split(main)]
    parts = [p for p in parts if p]
    out: list[str] = []
    while parts:
        head = parts.pop(0)
        # "A — B — c": B is an aside when the text after it continues A without a subject of its own.
        if len(parts) >= 2 and parts[1][:1].islower() and not _NEW_SUBJECT.match(parts[1]):
            asides.insert(0, parts.pop(0))
            head = f"{head} {parts.pop(0)}"
        out.append(head)
    return out + asides


# ------------------------------------------------------------------------------ clause openers

_GREETING = re.compile(
    r"^(?:hi|hello|hey|hiya|howdy|greetings|yo|good (?:morning|afternoon|evening)|nice to meet you|"
    r"pleased to meet you|nice to e-?meet you)\b(?:\s+(?:there|all|everyone|"
    r"again|friend|buddy))?(?:\s+(?-i:[A-Z][a-z]+)(?![a-z]))?[\s,!.:-]*",  # "hi Sam", not "hello there my"
    re.IGNORECASE,
)
_MARKERS = re.compile(
    r"^(?:oh|ah|aw|omg|well|so|and|but|also|btw|by the way|anyway|anyways|actually|honestly|basically|"
    r"okay|ok|yeah|yes|yep|no|nope|lol|haha|hahaha|um|uh|umm|hmm|right|alright|plus|besides|then|fyi|ps|p\.s\.|"
    r"fun fact|big news|good news|bad news|quick update|update|guess what|as you know|as I said|"
    r"like I said|as I mentioned|I mean|you know|to be honest|tbh|just so you know|just fyi|sure|wow|"
    r"oh and|oh also|and also|also also|funny enough|interestingly|by the by|side note|random fact|"
    r"speaking of which|on another note|in other news|otherwise|still|now|though|anyhow|currently|recently|"
    r"lately|finally|originally|luckily|sadly|unfortunately|fortunately|thankfully|happily|apparently|"
    r"ultimately|eventually|meanwhile|overall|also)\b[\s,!:.-]*",
    re.IGNORECASE,
)
# "Big news: ...", "Update: ..." but not "I have three kids: ..."
_LABEL = re.compile(
    r"^(?!(?:I|we|my|our|he|she|they|his|her)\b)(?:[A-Za-z']+\s+){0,3}[A-Za-z']+\s*:\s+(?=\S)", re.I
)
# Prefixes that report the speaker's own statement; what follows is the statement itself.
_REPORTING = re.compile(
    r"^(?:I\s+(?:just\s+)?(?:think|guess|believe|suppose|feel like|know|reckon|bet|am (?:pretty |"
    r"fairly )?sure|should (?:mention|tell you|say)|forgot to (?:mention|tell you)|(?:wanted|"
    r"want) to (?:tell|let) you(?: know)?|have to say|must say|would say|told you|mentioned|(?:can|"
    r"must) admit|realized|realised|admit)|did I (?:tell|mention to) you|(?:you )?remember|"
    r"you know)\s+(?:that\s+)?",
    re.IGNORECASE,
)
_HEDGED = re.compile(
    r"^I\s+(?:just\s+)?(?:think|guess|believe|suppose|feel like|reckon|bet)\b", re.IGNORECASE
)


# Texting's particles at a clause's end ("im nadia btw", "living in leeds atm"): they belong to
# no fact, and left in they end up in one ("lives in Leeds Atm").
_TRAILING = re.compile(rf"(?:[\s,]+(?:{'|'.join(sorted(TEXTING_PARTICLES))}))+[\s,!.]*$", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Opened:
    text: str
    greeted: bool  # the clause opened with a greeting ("Hi, I'm Priya")
    hedged: bool  # "I think ..."


def open_clause(text: str) -> Opened:
    """Strip greetings, discourse markers, labels and reporting prefixes from the clause start."""
    greeted = hedged = False
    for _ in range(6):  # markers stack: "Oh, and btw, I think ..."
        before = text
        if m := _GREETING.match(text):
            greeted = True
            text = text[m.end() :]
        if m := _MARKERS.match(text):
            text = text[m.end() :]
        if m := _LABEL.match(text):
            text = text[m.end() :]
        if m := _REPORTING.match(text):
            hedged = hedged or bool(_HEDGED.match(text))
            text = text[m.end() :]
        if text == before:
            break
    return Opened(_TRAILING.sub("", text).strip(" ,"), greeted, hedged)


_AUX = (
    r"do|does|did|can|could|would|will|should|shall|may|might|must|is|are|am|was|were|have|has|had|"
    r"do not|does not|did not|is not|are not|was not|were not|have not|has not|can not|will not|would not"
)
_QUESTION_START = re.compile(
    rf"^(?:(?:{_AUX})\s+(?:you|I|we|he|she|they|it|there|my|your|this|that|anyone|anybody)\b|"
    r"(?:what|where|when|who|whom|whose|why|how|which)(?:\s+is|\s+are|\s+was|\s+were|\s+do|\s+does|\s+did|"
    r"\s+can|\s+could|\s+would|\s+will|\s+should|\s+have|\s+has|\s+kind|\s+sort|\s+type|\s+about|\s+much|"
    r"\s+many|\s+long|\s+often|\s+old|\s+else)\b)",
    re.IGNORECASE,
)
_NON_STATEMENT = re.compile(
    r"^(?:I\s+(?:wonder|am not sure|do not know|have no idea|can not remember|do not remember|forgot)\b|"
    r"(?:please|kindly)\b|(?:remind|tell|help|give|show|find|book|set|add|let|make|write|explain|recommend|"
    r"suggest|list|search|look|check|send|schedule|create|translate|summarize|summarise|imagine|pretend|"
    r"suppose|consider)\s)",
    re.IGNORECASE,
)


def starts_question(text: str) -> bool:
    """'Should I move?', 'What do you think of Cork?': the sentence opens as a question."""
    return bool(_QUESTION_START.match(text))


def is_question(sentence: Sentence) -> bool:
    return sentence.question or bool(_QUESTION_START.match(sentence.text))


def is_non_statement(text: str) -> bool:
    """Requests, imperatives and admissions of not knowing carry no fact about anyone."""
    return bool(_NON_STATEMENT.match(text))


# Subordinators that make the clause unreal ("if I lived in Paris") or future-bound ("when I retire").
IRREALIS = re.compile(
    r"^(?:if|unless|whether|in case|even if|as if|as though|what if|suppose|imagine)\b", re.I
)
TEMPORAL = re.compile(
    r"^(?:when|whenever|once|after|before|until|till|as soon as|while|since|ever since)\s+", re.I
)
CONDITIONAL_SENTENCE = re.compile(
    r"\b(?:if|unless|suppose|supposing|imagine|hypothetically|what if|in case|pretend|wish|if only)\b", re.I
)


# Speed: whole-sentence scans that most sentences cannot match lack a string each needs (":", "if",
# ...); ``prefiltered`` reads those strings off the pattern and tests for them first.
_EMOTICON, _LABEL, CONDITIONAL_SENTENCE = map(prefiltered, (_EMOTICON, _LABEL, CONDITIONAL_SENTENCE))
