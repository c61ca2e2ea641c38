"""Statements only the speaker makes about themself: "call me Sam", "Priya here", "home is Leeds".

``speaker_drafts`` reads the speaker's name and nickname, and a few clauses that state the speaker's
home, employer or possessions without a subject ("two weeks in at Aerojet", "need to sell my Subaru").
The extractor asks it even of requests ("please call me Sam"), which no other rule reads.
"""

from __future__ import annotations

import re

from .base import Draft
from .clauses import NAME
from .gates import prefiltered
from .lexicon import is_place
from .noun_phrases import name_ok
from .objects import proper_run

_CALL_ME = re.compile(
    r"^(?i:(?:(?:you can|you may|please|just|feel free to|everyone|everybody|people|my friends|friends|"
    r"most people|they|folks|my family|all my friends|most folks)\s+)*calls?\s+me\s+)"
    rf"(?P<o>{NAME})\b"
)
_KNOWN_AS = re.compile(
    rf"^(?i:(?:everyone|everybody|people|my friends|most people)\s+knows?\s+me\s+as\s+)(?P<o>{NAME})\b"
)
_HERE = re.compile(
    rf"^(?:(?:this is|it is)\s+)?(?P<o>{NAME}(?:\s+{NAME})?)\s+(?:here|speaking)(?:$|,)|"
    rf"^this is\s+(?P<n>{NAME})$"
)
# "Jonathan here, but call me Jon": the request follows the introduction in the same clause.
# After a bare space it needs the conjunction: in "only my mum calls me Beatriz" one person's
# name for the speaker is not what the speaker goes by.
_BUT_CALL_ME = re.compile(
    r"(?:,\s*(?:(?:but|so|and)\s+)?|\s+(?:but|so|and)\s+)"
    r"(?:(?:please|just|everyone|everybody|people|my friends|friends|most people)\s+)?"
    rf"calls?\s+me\s+(?P<o>{NAME})\b"
)


def speaker_drafts(text: str, speaker: str, intro: bool) -> list[Draft]:
    """Statements only the speaker makes about themself: "call me Sam", "Priya here"."""
    for pattern in (_CALL_ME, _KNOWN_AS):
        if (m := pattern.match(text)) and name_ok(m["o"]):
            return [
                Draft(
                    "nickname",
                    m["o"],
                    0.85,
                    rule="nickname.call_me",
                    subject=speaker,
                    kind="none",
                    timing="none",
                )
            ]
    out = []
    if intro and (m := _HERE.match(text)):
        name = m["o"] or m["n"]
        if name_ok(name):
            out.append(
                Draft("name", name, 0.6, rule="name.here", subject=speaker, kind="none", timing="none")
            )
    if (m := _BUT_CALL_ME.search(text)) and name_ok(m["o"]):
        out.append(
            Draft(
                "nickname", m["o"], 0.8, rule="nickname.call_me", subject=speaker, kind="none", timing="none"
            )
        )
    if (m := _HOME_IS.match(text)) and (place := proper_run(m["o"], allow_region=True)):
        out.append(Draft("lives_in", place, 0.7, rule="lives_in.home_is", subject=speaker, kind="place"))
    if (m := _WEEKS_IN.match(text)) and (org := proper_run(m["o"])) and not is_place(org):
        out.append(Draft("works_at", org, 0.7, rule="works_at.weeks_in", subject=speaker, timing="none"))
    if (m := _FIRST_STINT.match(text)) and (org := proper_run(m["o"])) and not is_place(org):
        out += [
            Draft("works_at", org, 0.7, rule="works_at.first_days", subject=speaker, timing="none"),
            Draft("job_title", m["job"], 0.65, rule="job.first_days", subject=speaker, kind="none",
                  timing="none"),
        ]
    if (m := _TO_SELL.search(text)) and (thing := proper_run(m["o"], max_tokens=3) or m["o"].lower()):
        said = f"{speaker} owns {thing if thing[:1].isupper() else 'a ' + thing}"
        out.append(Draft("owns", thing, 0.65, rule="owns.to_sell", subject=speaker, text=said, kind="thing"))
    return out


# "Home is Vancouver these days", "home for me is Saskatoon"
_HOME_IS = re.compile(
    r"^(?:[Mm]y\s+)?[Hh]ome(?:\s+for\s+(?:me|us))?\s+(?:is|has been)\s+(?:now\s+)?(?:in\s+)?"
    r"(?P<o>[A-Z][\w'.-]*.*)"
)
# "two weeks in at Aerojet": how long someone has been in a new job
_WEEKS_IN = re.compile(
    r"^(?:\w+\s+){1,2}(?:days?|weeks?|months?)\s+in\s+at\s+(?P<o>(?:the\s+)?[A-Z].*)"
)
# "first week at WHOI as a research technician": a new job, told by its first days. Only with
# the role: "my first day at Disneyland" is a visit.
_FIRST_STINT = re.compile(
    r"^(?:(?i:my|our)\s+)?(?i:first|second|third|1st|2nd|3rd)\s+(?:full\s+)?(?:day|week|month)s?\s+"
    r"(?:at|with)\s+(?P<o>(?:the\s+)?[A-Z][\w&.'-]*(?:\s+[A-Z][\w&.'-]*)*)\s+as\s+(?:a\s+|an\s+|the\s+)?"
    r"(?P<job>[a-z][a-z-]*(?:\s+[a-z][a-z-]*){0,3}?)(?=\s*(?:[,.!?;:]|\s(?:and|but|so|which)\b|$))"
)
# "I need to sell my Subaru": what one is about to sell, one still owns
_TO_SELL = re.compile(
    r"\b(?:need|have|want|going|trying|got|planning|hoping)\s+to\s+sell\s+my\s+(?:old\s+)?"
    r"(?P<o>[A-Z][\w-]*(?:\s+[A-Z0-9][\w-]*){0,2}|car|bike|van|camera|piano|guitar|motorbike|boat|caravan)\b"
)


# Speed: most clauses lack a word each of these needs ("call", "sell", "in").
_BUT_CALL_ME, _TO_SELL, _WEEKS_IN = map(prefiltered, (_BUT_CALL_ME, _TO_SELL, _WEEKS_IN))
