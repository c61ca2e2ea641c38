"""The MCP tools' models: their parameters (described for an agent), and the compact responses they
return: times as ISO strings (null for an open or unknown end), scores rounded, the ids an agent
cites, and nothing it does not need.

The class names are part of the tools' output schemas (their titles and ``$defs``), so they match
the full shapes' names in ``models.py`` without being the same classes.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

from pydantic import BaseModel, Field

from ..store.forgetting import ForgetReceipt
from ..timeutil import EARLIEST, is_open
from ..writer.results import History, Hit, RememberResult

# -- the tools' parameters -----------------------------------------------------------------------

UserId = Annotated[str, Field(
    min_length=1, max_length=512,
    description="Stable id of the person the memory is about: the same in every conversation "
                "(e.g. the host's account id), never a per-conversation id.")]
SessionId = Annotated[str | None, Field(
    description="Id of the current conversation, to group and later filter what was said in it.")]
AgentId = Annotated[str | None, Field(
    description="Id of the agent writing or reading, if several share a store.")]
_ISO = ("An ISO 8601 date or date-time, e.g. 2026-02-01 or 2026-02-01T18:00:00+01:00 "
        "(without a timezone: UTC).")
SaidAt = Annotated[str | None, Field(description=f"When it was said; default now. {_ISO}")]
AsOf = Annotated[str | None, Field(
    description=f"Valid time: only what held in the world at that moment, for questions about the past. "
                f"{_ISO}")]
KnownAt = Annotated[str | None, Field(
    description=f"Belief time: only what memory believed at that moment. {_ISO}")]


# -- the tools' results -------------------------------------------------------------------------

def iso_or_none(value: datetime) -> str | None:
    """A JSON time, or None for an open or unknown interval end."""
    return None if is_open(value) or value <= EARLIEST else value.isoformat()


class HitOut(BaseModel):
    memory_id: str
    text: str
    score: float
    current: bool = Field(description="False for a superseded or ended memory: not today's truth.")
    kind: str = Field(description="'observation' (what was said) or 'fact' (extracted from it).")
    valid_from: str | None = Field(description="When it began to hold; null if unknown.")
    valid_to: str | None = Field(description="When it stopped holding; null while it still holds.")
    sources: list[str] = Field(description="Source ids of the messages it came from, to cite.")
    why: dict[str, float] = Field(description="The score's parts: why it ranked.")

    @classmethod
    def of(cls, hit: Hit) -> HitOut:
        return cls(memory_id=hit.memory_id, text=hit.text, score=round(hit.score, 4), current=hit.current,
                   kind=hit.kind, valid_from=iso_or_none(hit.valid_from), valid_to=iso_or_none(hit.valid_to),
                   sources=hit.sources, why={k: round(v, 4) for k, v in hit.why.items()})


class RecallOut(BaseModel):
    hits: list[HitOut]

    @classmethod
    def of(cls, hits: list[Hit]) -> RecallOut:
        return cls(hits=[HitOut.of(h) for h in hits])


class FactOut(BaseModel):
    text: str
    valid_from: str | None
    valid_to: str | None


class RememberOut(BaseModel):
    episode_ids: list[str]
    memory_ids: list[str] = Field(description="New memories: the message itself and the facts in it.")
    skipped_duplicates: list[str] = Field(description="Existing memories the message repeated.")
    already_stored: list[str] = Field(
        default_factory=list, description="Source ids stored before with this text: nothing written.")
    facts: list[FactOut]

    @classmethod
    def of(cls, result: RememberResult) -> RememberOut:
        return cls(
            episode_ids=result.episode_ids, memory_ids=result.memory_ids,
            skipped_duplicates=result.skipped_duplicates, already_stored=result.already_stored,
            facts=[FactOut(text=f.text, valid_from=iso_or_none(f.valid_from) if f.valid_from else None,
                           valid_to=iso_or_none(f.valid_to) if f.valid_to else None) for f in result.facts],
        )


class VersionOut(BaseModel):
    version_id: str
    text: str
    status: str
    valid_from: str | None
    valid_to: str | None
    believed_from: str | None = Field(description="When memory started to believe this version.")
    believed_to: str | None = Field(description="When memory stopped believing it; null if it still does.")


class HistoryOut(BaseModel):
    memory_id: str
    versions: list[VersionOut]
    superseded_by: list[str]
    supersedes: list[str]
    sources: list[str]

    @classmethod
    def of(cls, found: History) -> HistoryOut:
        return cls(
            memory_id=found.memory_id, superseded_by=found.superseded_by, supersedes=found.supersedes,
            sources=found.sources,
            versions=[VersionOut(version_id=v.version_id, text=v.text, status=v.status,
                                 valid_from=iso_or_none(v.valid_from), valid_to=iso_or_none(v.valid_to),
                                 believed_from=iso_or_none(v.tx_from), believed_to=iso_or_none(v.tx_to))
                      for v in found.versions],
        )


class ForgetOut(BaseModel):
    deleted_episode_ids: list[str]
    deleted_memory_ids: list[str]
    deleted_entity_ids: list[str]
    kept_memory_ids: list[str] = Field(
        description="Memories that lost this provenance but had other sources, so they stay.")
    deleted_counts: dict[str, int]

    @classmethod
    def of(cls, receipt: ForgetReceipt | dict[str, int]) -> ForgetOut:
        if isinstance(receipt, dict):  # everything: the store reports counts per kind
            return cls(deleted_episode_ids=[], deleted_memory_ids=[], deleted_entity_ids=[],
                       kept_memory_ids=[], deleted_counts=dict(receipt))
        return cls(
            deleted_episode_ids=receipt.episode_ids, deleted_memory_ids=receipt.memory_ids,
            deleted_entity_ids=receipt.entity_ids, kept_memory_ids=receipt.kept_memory_ids,
            deleted_counts={"episodes": len(receipt.episode_ids), "memories": len(receipt.memory_ids),
                            "entities": len(receipt.entity_ids), "versions": receipt.versions,
                            "edges": receipt.edges},
        )
