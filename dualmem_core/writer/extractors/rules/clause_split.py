"""Cutting one sentence into independent clauses, at conjunctions and commas that start one.

``preprocess`` hands over sentences; this module decides where a sentence holds several clauses
("I'm 34 and live in Denver", "Ty loves fishing, Finn is 8") and which of them inherit the previous
clause's subject. Separate from ``preprocess`` because the clause cuts have their own many patterns
and exceptions (compound subjects, appositions, complements after a copula).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ....vocab.relation_words import relation_of
from .clauses import DROPPED
from .gates import prefiltered
from .lexicon import job_head

_CONJUNCTIONS = (
    r"and then|and also|and now|and|but|so|because|'cause|cause|although|though|while|whereas|yet|plus|"
    r"since|then|as|or|before|after|until|till|when|once|whenever"
)
_CONJUNCTION = re.compile(rf"(?:,\s*|\s+)(?P<conj>{_CONJUNCTIONS})\s+", re.IGNORECASE)
# An adverb between the conjunction and the subject: "..., so now I am 25", "but honestly we ...".
_CLAUSE_ADVERB = re.compile(
    r"(?:now|then|actually|honestly|basically|anyway|finally|luckily|sadly|obviously|apparently|"
    r"today|yesterday|recently|currently|still|yeah|well|back there|back then|back home|over there|"
    r"before that|after that|since then|these days|nowadays|later)\s*,?\s+(?=(?:I|we|he|she|they)\s)"
)
_COMMA = re.compile(
    r",\s+(?=(?:I|we|my|our|he|she|they|his|her|people|everyone|everybody|nobody|someone|me\s+and)\b)"
)
# ", lived there until 2015", ", working as an aquarist": a second verb phrase of the same subject.
_COMMA_VERB = re.compile(
    r",\s+(?=(?:now\s+|then\s+|later\s+)?(?:lived|worked|moved|studied|taught|spent|started|got|went|"
    r"now\s+in(?=\s+[A-Z])|been\s+(?:at|with|in|there)|live|work|grew up|born|raised|joined|relocated|"
    r"settled|love|loves|hate|hates|like|likes|enjoy|enjoys|prefer|prefers|"
    r"(?:working|living|studying|teaching|based)"
    r"\s+(?:as|at|in|for|out of))\b)"
)
# ", from Kilkenny", ", married to Ben" after "I'm 29": the same subject and copula, a second complement.
COMPLEMENT_START = re.compile(
    r"\d{1,2}(?=\s*(?:,|$|\s+(?:and|years?|yo)\b))|"  # "I'm Ana, 34, ...": an age
    r"(?:now\s+|originally\s+|also\s+|still\s+|just\s+|back\s+(?=in\s)|(?:really|so|very|mad|well|totally|severely|quite)\s+)?"
    r"(?:from\s+[A-Z]|married\b|engaged\b|single\b|divorced\b|retired\b|self-employed\b|in\s+[A-Z]|"
    r"an?\s+[a-z]|allergic\s+to\b|into\b|obsessed\s+with\b|fluent\s+in\b|(?:vegetarian|vegan|pescatarian)\b)"
)
_COMMA_COMPLEMENT = re.compile(rf",\s+(?={COMPLEMENT_START.pattern})")
_COMMA_BARE = re.compile(r",\s+(?=[a-z])")
_BARE_JOB = re.compile(r"(?P<t>[a-z][a-z-]*(?:\s+[a-z][a-z-]*){0,2}?)\s*(?:,|$|\s+(?:in|at|for|with|from)\s)")


def bare_job(text: str) -> bool:
    """'nurse in Lisbon', 'backend dev at Monzo': an occupation said without "a"."""
    m = _BARE_JOB.match(text)
    return m is not None and job_head(m["t"])


_COPULA = re.compile(
    r"\b(?:[Ii] am|[Ww]e are|[Ii] was|[Ww]e were|"
    r"(?:[Hh]e|[Ss]he|[Tt]hey|[A-Z][a-z]+|[Mm]y [a-z-]+) (?:is|are|was|were))\b"
)
_PRONOUN_START = re.compile(r"\b(?:I|we|my|our|his|her|their|he|she|they)\b", re.IGNORECASE)
_CAP = "[A-Z\u00C0-\u00D6\u00D8-\u00DE][a-z\u00DF-\u00FF]+"  # a capitalised word: "Tom", "Bené", "Álvaro"
_NAME_VERB_START = re.compile(rf"{_CAP}(?:\s+{_CAP})?\s+(?:is|was|has|had|[a-z]+s|[a-z]+ed)\b")
# ", our beagle," after a name: a short noun phrase between commas, no clause
_APPOSITIVE = re.compile(r"(?:my|our|his|her|their)(?:\s+[a-z-]+){1,3}\s*(?:,|$)")
_ENDS_WITH_NAME = re.compile(rf"\b{_CAP}$")
# ", Ty loves fishing": a comma before a named subject and its verb starts a clause too
_COMMA_NAME = re.compile(rf",\s+(?={_NAME_VERB_START.pattern})")
# Words that start a verb phrase, so "I'm 34 and live in Denver" splits into two clauses.
VERB_START = re.compile(
    r"(?:am|is|are|was|were|have|has|had|do|does|did|will|would|can|just|also|recently|currently|now|"
    r"still|live|lives|lived|work|works|worked|love|loves|loved|like|likes|enjoy|enjoys|hate|hates|moved|"
    r"got|get|study|studies|studied|speak|speaks|play|plays|own|owns|went|go|goes|started|joined|bought|"
    r"adopted|married|never|no longer|used to|teach|teaches|run|runs|switched|quit|stopped|sold|retired|"
    r"finished|graduated|became|split|separated|divorced)\b"
)
ONWARD = r"(?:(?:later|eventually|finally)\s+)?(?:on\s+)?to\s+(?=[A-Z])"
_ONWARD = re.compile(ONWARD)
_WITH_WHOM = re.compile(rf"\bwith\s+(?:my|our)\s+[a-z]+(?:\s+{_CAP})?$")
_IS = re.compile(r"\b(?:is|am|are)\b")
_COMPOUND_START = re.compile(rf"(?:{_CAP}|(?:my|our)\s+[a-z-]+(?:\s+{_CAP})?)\s*,?\s+and\s+I\b")
_ENDS_WITH_SUBJECT = re.compile(
    r"\b(?:when|after|before|since|because|until|till|while|as|once|then|so|but)\s+"
    rf"(?:{_CAP}|(?:my|our)\s+[a-z-]+(?:\s+{_CAP})?)$"
)
# "my wife Elena" / "Tom" standing alone before "and I": a compound subject, not a clause.
_BARE_SUBJECT = re.compile(
    rf"^(?:(?:[Mm]y|[Oo]ur)\s+[a-z-]+(?:\s+(?!(?:is|was|are|were|has|had|am)\b)[a-z-]+)?(?:\s+{_CAP})?|"
    rf"{_CAP}(?:\s+{_CAP})?)$"
)


def _names_people_before(left: str) -> bool:
    """Whether ``left`` ends with a relation noun ("my kids", "two boys") the names after it name."""
    words = left.split()
    if not words:
        return False
    last = words[-1].lower()
    return relation_of(last) is not None or (last.endswith("s") and relation_of(last[:-1]) is not None)


@dataclass(frozen=True, slots=True)
class Piece:
    """One clause of a sentence."""

    text: str
    conjunction: str = ""  # the word that introduced it ("because", "but"), "" for the first
    inherits_subject: bool = False  # "... and live in Denver": the subject is the previous clause's


def split_clauses(sentence: str) -> list[Piece]:
    """Independent clauses of one sentence: split at conjunctions and commas that start a new clause."""
    cuts: list[tuple[int, int, str, bool]] = []  # (cut start, next clause start, conjunction, inherits)
    copula = _COPULA.search(sentence)  # a complement after a comma or "and" shares a copula said before it
    copula_at = copula.start() if copula else -1
    for m in _CONJUNCTION.finditer(sentence):
        rest = sentence[m.end() :]
        if lead := _CLAUSE_ADVERB.match(rest):  # ", so now I am 25": the clause starts at "I"
            rest = rest[lead.end() :]
        conj = m["conj"].lower()
        if _PRONOUN_START.match(rest) or _NAME_VERB_START.match(rest) or _COMPOUND_START.match(rest):
            left = sentence[cuts[-1][1] if cuts else 0 : m.start()].strip(" ,")
            if conj == "and" and _BARE_SUBJECT.match(left) and not re.match(r"(?:he|she|they|we)\b", rest):
                continue  # "My wife Elena and I moved": one compound subject
            if conj == "and" and left.rsplit(",", 1)[-1].strip().lower() in ("me", "i"):
                continue  # "me and my ex Crystal were married": the same, the speaker first
            if conj == "and" and _WITH_WHOM.search(left) and re.match(r"(?:my|our|his|her|their)\s", rest):
                continue  # "I live with my partner and our two cats in Leith": one list of companions
            if conj == "and" and rest.startswith("I ") and _ENDS_WITH_SUBJECT.search(left):
                continue  # "until 2015 when Elena and I moved": the compound starts after "when"
            if conj == "as" and not re.match(r"(?:I|we|he|she|they)\s", rest):
                continue
            if conj in ("or", "so", "before", "after", "until", "till", "when", "once", "whenever") and not (
                _PRONOUN_START.match(rest) or _COMPOUND_START.match(rest)
            ):
                continue
            cuts.append((m.start(), m.end(), conj, False))
        elif conj in ("and then", "then") and _ONWARD.match(rest):  # "moved to Boston and then to Providence"
            cuts.append((m.start(), m.end(), conj, True))
        elif conj in ("and", "but", "and then", "and also", "and now", "then") and (
            VERB_START.match(rest) or (0 <= copula_at < m.start() and COMPLEMENT_START.match(rest))
        ):
            cuts.append((m.start(), m.end(), conj, True))
    for m in (*_COMMA.finditer(sentence), *_COMMA_NAME.finditer(sentence)):
        left_start = max((c[1] for c in cuts if c[1] <= m.start()), default=0)
        left = sentence[left_start : m.start()]
        if m.re is _COMMA_NAME and _names_people_before(left):
            continue  # "two boys, Finn is 8 and Rory is 5": the names are the boys
        if _APPOSITIVE.match(sentence, m.end()) and _ENDS_WITH_NAME.search(left):
            continue  # "we took Biscuit, our beagle, to the beach": the name's apposition
        short = len(left.split()) <= 3 and not _PRONOUN_START.search(left) and not _IS.search(left)
        if short and not DROPPED.match(left.strip()):
            continue  # "Last summer, I went ...": an adverbial; "Just moved house, we're ..." is a clause
        if any(c[0] <= m.start() < c[1] for c in cuts):
            continue
        cuts.append((m.start(), m.end(), "", False))
    for m in _COMMA_VERB.finditer(sentence):
        if not any(c[0] <= m.start() < c[1] for c in cuts):
            cuts.append((m.start(), m.end(), "", True))
    if "," in sentence and copula_at >= 0:
        for m in _COMMA_COMPLEMENT.finditer(sentence):
            if copula_at < m.start() and not any(c[0] <= m.start() < c[1] for c in cuts):
                cuts.append((m.start(), m.end(), "", True))
        for m in _COMMA_BARE.finditer(sentence):  # "I'm Ana, 34, nurse in Lisbon": a job without its article
            if copula_at < m.start() and bare_job(sentence[m.end() :]) and not any(
                c[0] <= m.start() < c[1] for c in cuts
            ):
                cuts.append((m.start(), m.end(), "", True))
    cuts.sort()
    pieces: list[Piece] = []
    start, conj, inherits = 0, "", False
    for cut_start, cut_end, next_conj, next_inherits in cuts:
        if cut_start < start:
            continue
        text = sentence[start:cut_start].strip(" ,")
        if text:
            pieces.append(Piece(text, conj, inherits))
        start, conj, inherits = cut_end, next_conj, next_inherits
    tail = sentence[start:].strip(" ,")
    if tail:
        pieces.append(Piece(tail, conj, inherits))
    return pieces


# Speed: whole-sentence scans that most sentences cannot match lack a string each needs ("," or a
# copula); ``prefiltered`` reads those strings off the pattern and tests for them first.
_COPULA, _COMMA, _COMMA_VERB = map(prefiltered, (_COPULA, _COMMA, _COMMA_VERB))
