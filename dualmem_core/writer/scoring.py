"""How recall ranks: the whole formula, in one screen, as pure functions over plain numbers.

    relevance = W_VECTOR * cosine + W_TEXT * bm25 / best_bm25 + W_GRAPH * shared / most_shared
                + W_RANK * (reciprocal-rank fusion over the lists, scaled to 0..1)
    score     = relevance * (0.6 + 0.4 * confidence) * (0.6 + 0.4 * salience) * staleness

The seed's baseline was cosine x confidence x salience x 0.7 when superseded. Adding the text
and graph signals lets an exact name or a shared entity lift a memory that embeddings miss;
rank fusion keeps one list's scale from drowning the others.
"""

from __future__ import annotations

from dataclasses import dataclass, field

W_VECTOR = 0.45  # meaning: the embedder's cosine similarity
W_TEXT = 0.25  # exact words: names, places, numbers that embeddings blur
W_GRAPH = 0.10  # memories about the same people and places as the best hits
W_RANK = 0.20  # agreement between the lists, robust to their different scales
RRF_K = 60  # the usual reciprocal-rank constant: flattens differences deep in a list
STALE = 0.5  # a superseded or ended fact keeps half its score: findable, below its successor


@dataclass(slots=True)
class Signals:
    """What one candidate scored in each list; ranks are 1-based, 0 when absent."""

    cosine: float = 0.0
    bm25: float = 0.0
    shared_entities: int = 0
    ranks: list[int] = field(default_factory=list)


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
    }


def final_score(parts: dict[str, float], confidence: float, salience: float, current: bool) -> float:
    return (sum(parts.values()) * (0.6 + 0.4 * confidence) * (0.6 + 0.4 * salience)
            * (1.0 if current else STALE))
