"""What one message's reading carries: ``MessageState`` from clause to clause, ``Clause`` for one clause.

The three layers of the rule extractor share them (``extractor.py`` reads the message,
``clause_reader.py`` a clause, ``verb_reader.py`` its verb phrase), so they sit below all three.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from . import dates
from .clauses import Subject


@dataclass(slots=True)
class MessageState:
    """What carries from one clause to the next within one message."""

    speaker: str
    now: datetime
    people: list[str] = field(default_factory=list)  # third persons named so far, for he/she
    previous: Subject | None = None  # for clauses that share the previous subject
    spoke: bool = False  # a clause with content came before (greetings do not count)
    last_pet: str | None = None  # an unnamed pet mentioned earlier ("I adopted a puppy!")
    last_place: str | None = None  # the place last named, for "there" ("lived there until 2015")
    previous_past: bool = False  # the previous clause was in the past ("I was living in X, working as Y")
    previous_dated: str = ""  # the previous clause's dated text, for a continuation without its own dates
    until: str = ""  # the previous clause's "until 2015" as "in 2015", for a following "when" clause
    away: bool = False  # the message speaks of a trip ("here in Rome" is then not home)
    antecedent: str | None = None  # the last named subject, for "they're my favourite band"
    copula: str = ""  # the previous clause's "am"/"is"/..., for a following bare complement
    motion: str = ""  # the previous clause's "moved", for "and then to Cranston"
    work_talk: bool = False  # the message speaks of jobs, so "I'm with Telstra" names an employer
    moved: bool = False  # the message speaks of a move, so "we're in Sheffield now" is a home
    own_voice: bool = True  # the user's own message: only they drop their "I'm" ("single again lol")
    unnamed_partner: bool = False  # the speaker said they see someone, not yet whom
    named: str | None = None  # the person a "his name is ..." of this message named

    carried: str | None = None  # the one earlier message's person a pronoun may mean (``discourse.py``)

    @property
    def referent(self) -> str | None:
        distinct = list(dict.fromkeys(self.people))
        if not distinct:  # nobody named yet in this message: "she" is who the conversation was about
            return self.carried
        return distinct[0] if len(distinct) == 1 else None


@dataclass(slots=True)
class Clause:
    text: str  # the opened clause; leading adverbials are stripped as the clause is read
    intro: bool
    hedged: bool
    conditional: bool
    subordinate: bool
    inherits: bool
    conjunction: str = ""  # the word that introduced the clause ("when", "but")
    greeted: bool = False  # it opened with a greeting ("Greetings from Cairns!")
    said: str = ""  # the clause as said, before discourse markers ("now", "so") were stripped
    hobby_hint: bool = False
    weight: float = 1.0
    dated: str = ""  # the clause with its leading time adverbials, which dates resolve over
    found: dict[bool | None, list[dates.TimeExpression]] = field(default_factory=dict)

    def times(self, prefer_future: bool | None, now: datetime) -> list[dates.TimeExpression]:
        """The clause's time expressions, resolved once per reading rather than once per fact."""
        if prefer_future not in self.found:
            self.found[prefer_future] = dates.find_time_expressions(
                self.dated or self.text, now, prefer_future
            )
        return self.found[prefer_future]
