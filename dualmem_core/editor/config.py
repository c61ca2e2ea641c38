"""The Editor's thresholds, in one place, with why each has its value."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class EditorConfig:
    # Deduplicate. Candidates are each new memory's nearest live neighbours.
    neighbours: int = 8  # how many neighbours of a new memory are compared with it
    candidate_cosine: float = 0.70  # below this two memories are not even compared
    near_cosine: float = 0.90  # near-exact: embeds almost identically ...
    near_overlap: float = 0.75  # ... and shares most content words (Jaccard)
    paraphrase_overlap: float = 0.5  # a paraphrase shares at least half its content words
    grey_cosine: float = 0.80  # close but unproven: asked of the LLM when there is one

    # Resolve entities.
    entity_name_cosine: float = 0.92  # names embedding this close (typos, spacing) may merge
    entity_grey_cosine: float = 0.80  # and this close, only with an LLM's yes

    # Mine relations: an entity mentioned by more memories than this is a hub and is skipped.
    hub_degree: int = 50
    co_mentions: int = 2  # unstructured co-mentions needed before a "mentioned_with" edge

    # Score: a change smaller than this is not worth a new version (keeps reruns a fixpoint).
    min_score_change: float = 0.05

    # Publish: how many operations one transaction may carry before the run is refused.
    max_operations: int = 200_000
