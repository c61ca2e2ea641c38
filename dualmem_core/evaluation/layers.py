"""Per-layer numbers of one user's stored graph, for the ``memory_quality`` check: how many
current memories each of the Editor's layers holds (session summaries, recurring topics,
intentions), how many of the user's said messages they were made from, and, for a user of the
evaluation fixture, what share of the messages its questions' answers were told in lies under
each layer (what recall can reach through that layer, ``writer/candidates._through_layers``).
A layer the Editor was not configured to build shows 0 memories, not a missing number."""

from __future__ import annotations

from .fixture import Fixture
from .metrics import StoredUser, ratio

LAYER_KINDS = {"summary": "summaries", "topic": "topics", "intention": "intentions"}


def layer_numbers(stored: StoredUser, evidence: set[str] | None = None) -> dict[str, int | float | None]:
    """``layer.<name>`` (current memories), ``layer.<name>.sources`` (distinct messages under
    them) and, given the evidence messages, ``layer.<name>.evidence_coverage`` (None: no evidence)."""
    out: dict[str, int | float | None] = {}
    for kind, name in LAYER_KINDS.items():
        layers = [m for m, k in stored.kind.items() if k == kind and stored.status.get(m) == "active"]
        under = set().union(*(stored.sources.get(m, set()) for m in layers))
        out[f"layer.{name}"] = len(layers)
        out[f"layer.{name}.sources"] = len(under)
        if evidence is not None:
            out[f"layer.{name}.evidence_coverage"] = ratio(len(evidence & under), len(evidence))
    return out


def question_evidence(fixture: Fixture, user: str) -> set[str]:
    """The source ids of the messages that told the answers to the user's questions."""
    return {s for q in fixture.questions_of(user) for fact in q.answers for s in fixture.fact(fact).sources}
