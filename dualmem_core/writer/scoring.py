"""How recall ranks: the whole formula, in one screen, as pure functions over plain numbers.

    relevance = W_VECTOR * cosine + W_TEXT * bm25 / best_bm25 + W_GRAPH * shared / most_shared
                + W_RANK * (reciprocal-rank fusion over the lists, scaled to 0..1)
                + W_INTENT * intent (1 for a fact of the predicate asked about whom it asks, 0.5
                  for the relation fact that leads there: ``intent.py``; absent when unread)
                + W_CUE * cue (a message's text match to the words the asked predicates are
                  stated in, over the best match: ``vocab/statement_words.py``; present questions)
    score     = relevance * (0.6 + 0.4 * confidence) * (0.6 + 0.4 * salience) * staleness
                * (ASIDE for another person's fact of that predicate or the value set aside)
                * (SPOKEN for a message said by a person the question names)
    staleness = 1 if current else STALE; for a question about the past ("before", "used to",
                "previously", ...): PAST_CURRENT if current else 1. Asked about the present,
                a message whose facts have all ended is stale too (``recall._past_tellings``)

The seed's baseline was cosine x confidence x salience x 0.7 when superseded. Adding the text
and graph signals lets an exact name or a shared entity lift a memory that embeddings miss;
rank fusion keeps one list's scale from drowning the others.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

# Chosen on LoCoMo's conversations 0-4 and the fixture's tune part, both embedders: a message's
# search text holds its context (``search_text.py``), which its vector does not, so the text
# list outweighs the cosine (0.45 / 0.25 before: LoCoMo R@10 64.9% -> 72.5%, hashing).
W_VECTOR = 0.30  # meaning: the embedder's cosine similarity
W_TEXT = 0.40  # exact words, and the message's context: names, places, numbers that embeddings blur
W_GRAPH = 0.10  # memories about the same people and places as the best hits
W_RANK = 0.20  # agreement between the lists, robust to their different scales
# A fact of the predicate the question asks for (``intent.py``: "where does she work?" asks for
# works_at), about the person asked about; the other weights sum to 1, this one comes on top.
W_INTENT = 0.25
W_CUE = 0.08  # a message in the words facts of the asked predicates are stated in (the cue list)
INTENT_RELATION = 0.5  # "her mum's job": the fact that says who her mum is
RRF_K = 60  # the usual reciprocal-rank constant: flattens differences deep in a list
STALE = 0.5  # a superseded or ended fact keeps half its score: findable, below its successor
PAST_CURRENT = 0.8  # asked about the past, what holds now keeps most of its score
# A fact the question sets aside: of the predicate asked for but about someone else ("Robert lives
# in Boston" for "where does the user live?"), or with the value it names ("before Denver").
ASIDE = 0.6
# A message said by someone the question names ("what did Ana say about the trip?" in a chat
# of several people): what a person asks about someone is mostly what that person said. Chosen
# on LoCoMo's conversations 0-4 (R@5 / R@10 63.2 / 72.5% -> 68.3 / 75.6%; 2.0 gave 68.8 / 76.2%).
# Speakers that are only a role ("user") name nobody, so a two-party agent chat is unchanged.
SPOKEN = 1.5


@dataclass(slots=True)
class Signals:
    """What one candidate scored in each list; ranks are 1-based, 0 when absent."""

    cosine: float = 0.0
    bm25: float = 0.0
    shared_entities: int = 0
    ranks: list[int] = field(default_factory=list)
    cue: float = 0.0  # text match to the words the asked predicates are stated in, 0..1
    intent: float = 0.0  # how well the fact answers what the question asks for, 0..1
    aside: bool = False  # a fact the question sets aside: another person's, or the value it names
    spoken: bool = False  # a message said by a person the question names


def rrf(ranks: list[int], lists: int) -> float:
    """Reciprocal-rank fusion, scaled so first place in every list scores 1."""
    best = lists / (RRF_K + 1)
    return sum(1.0 / (RRF_K + r) for r in ranks if r > 0) / best if lists else 0.0


def relevance(s: Signals, best_bm25: float, most_shared: int, lists: int) -> dict[str, float]:
    """The weighted parts of relevance, by name (they add up to it)."""
    return {
        "vector": W_VECTOR * max(s.cosine, 0.0),
        "text": W_TEXT * (s.bm25 / best_bm25 if best_bm25 > 0 else 0.0),
        "graph": W_GRAPH * (s.shared_entities / most_shared if most_shared else 0.0),
        "rank_fusion": W_RANK * rrf(s.ranks, lists),
        **({"cue": W_CUE * s.cue} if s.cue else {}),
    }


def final_score(parts: dict[str, float], confidence: float, salience: float, current: bool, *,
                past: bool = False, aside: bool = False, spoken: bool = False) -> float:
    """``past``: the question asks about what was (see ``asks_about_the_past``), so what ended
    ranks as it deserves and what holds now gives way a little (PAST_CURRENT). ``aside``: the
    fact is one the question sets aside (ASIDE). ``spoken``: said by a person it names (SPOKEN)."""
    staleness = (PAST_CURRENT if current else 1.0) if past else (1.0 if current else STALE)
    kept = (ASIDE if aside else 1.0) * (SPOKEN if spoken else 1.0)
    return sum(parts.values()) * (0.6 + 0.4 * confidence) * (0.6 + 0.4 * salience) * staleness * kept


# Words that ask about an earlier state ("where did she live before Portland?", "his previous
# job", "what did I use to eat"), and the past-tense "did" ("when did they get engaged?": the
# engagement has since become a marriage). "old" is left out: "how old is Mateo" asks about now.
_PAST_CUES = re.compile(
    r"\b(before|previous(ly)?|used to|use to|former(ly)?|earlier|originally|prior|at first|in the past"
    r"|back (in|when|then)|ex|ex-\w+|no longer|any ?more|until|did)\b",
    re.IGNORECASE,
)


def asks_about_the_past(query: str) -> bool:
    return _PAST_CUES.search(query) is not None
