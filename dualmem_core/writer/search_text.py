"""What full-text search indexes for a message: the message in its context.

A turn's meaning lives partly outside it: who said it, when, and the turns just before it in
its session ("Where did you go?" / "Lisbon, finally!"). Searched alone, "Lisbon, finally!" never
matches a question about a trip. So an observation's search text is

    "<speaker>: <text> (<date>) <speaker>: <text> <previous turn> <turn before that>"

The message comes twice so its own words outweigh its neighbours' (BM25 counts them), the
speaker's name lets "what did Ana say about ..." match, and the date's words let "in May 2023"
match. Only earlier turns are used: a later turn never rewrites what is already stored, so a new
message costs nothing for its predecessors. The text shown (``version.text``) stays the message.

Chosen on LoCoMo's first five conversations (``benchmarks/locomo.py --conversations 0-4``):
plain BM25 over this text found 60.6 / 68.2% of the evidence turns at 5 / 10 against 45.2 / 52.7%
for "speaker: text" alone, and dualmem's recall went from 45.6 / 53.2% to 56.8 / 65.4%. The
message once instead of twice did worse at 5 (56.2 against 56.8%) and better at 10 (66.6 against
65.4%); one earlier turn instead of two, or no date, did worse at both;
indexing the next turn too added nothing at 10.
"""

from __future__ import annotations

from collections import deque
from datetime import datetime

from ..store.forgetting import NEIGHBOUR_CHARS  # forget resets search texts holding this much
from ..store.validate import MAX_TEXT_CHARS

PREVIOUS = 2  # earlier turns of the session indexed with a message
SPEAKER_PROBE = 40  # characters of the message that mark where the speaker's name ends
MAX_SPEAKER_CHARS = 80  # a longer head is not a name


class RecentTurns:
    """The last ``PREVIOUS`` turns of one session, newest last (both roles)."""

    def __init__(self) -> None:
        self.turns: deque[str] = deque(maxlen=PREVIOUS)

    def search_text(self, text: str, speaker: str | None, at: datetime) -> str | None:
        """The message's search text with the turns heard so far; None when it would not fit
        within a text's length limit (the store then indexes the text itself)."""
        head = f"{speaker}: {text}" if speaker else text  # no name for a bare role: see the Writer
        earlier = [t[:NEIGHBOUR_CHARS] for t in reversed(self.turns)]
        out = " ".join([f"{head} ({at.day} {at:%B %Y})", head, *earlier])
        return out if len(out) <= MAX_TEXT_CHARS else None

    def heard(self, text: str) -> None:
        """This message becomes the newest earlier turn of the next ones."""
        self.turns.append(text)


def speaker_of(text: str, search_text: str | None) -> str | None:
    """Who said a message, read back from the head of its search text ("<speaker>: <text> ...");
    None for a message indexed by its own words (no name, an agent's reply, a reset after a
    forget)."""
    if not search_text:
        return None
    head = search_text.find(": " + text[:SPEAKER_PROBE])
    return search_text[:head] if 0 < head <= MAX_SPEAKER_CHARS else None
