"""The request and response models of the frontends, and their conversion from the Writer's and
Editor's dataclasses: one set for both servers, the REST API's JSON (and its OpenAPI description)
and the MCP tools' structured results (and their output schemas). ``compact.py`` holds only the
MCP tools' parameter descriptions.

Open interval ends (the store's 9999-12-31 sentinel) and unknown starts are ``null`` here, so a
client never has to know the sentinel. Times in are ISO 8601 dates or date-times, read as UTC when
they have no offset, as in the CLI and the MCP server.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal, cast

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from ..editor import EditorRun
from ..store.forgetting import ForgetReceipt
from ..timeutil import EARLIEST, is_open
from ..writer.facts import Fact
from ..writer.profile import LastingEntry, Profile
from ..writer.results import History, Hit, ProfileEntry, RememberResult, VersionView
from ..writer.upcoming import Intention
from .times import as_utc

Role = Literal["user", "assistant", "system", "tool"]
MEMORY_ID = "mem_01a2280ecf8b643de7979aadb3942025"
RUN_ID = "run-20260302T180000-4a4ba77a"
SAID_AT = "2026-03-02T18:00:00Z"


# An ISO 8601 date (its midnight) or date-time; UTC when it has no offset.
Time = Annotated[datetime, AfterValidator(as_utc)]


def _end(moment: datetime) -> datetime | None:
    return None if is_open(moment) else moment


def _start(moment: datetime) -> datetime | None:
    return None if moment <= EARLIEST else moment


# -- remember ---------------------------------------------------------------------------------


class MessageIn(BaseModel):
    """One message of a conversation; unset fields take the request's values."""

    model_config = ConfigDict(extra="forbid")

    content: str = Field(description="What was said.", examples=["My sister Lena lives in Seattle."])
    role: Role | None = Field(None, description="Who said it; only `user` messages are mined for facts.")
    speaker: str | None = Field(None, description="A person's name when not the user.", examples=["Maya"])
    source_id: str | None = Field(
        None, description="Your id for this message: forget by it later.", examples=["msg-18"]
    )
    at: Time | None = Field(None, description="When it was said (UTC if no offset).", examples=[SAID_AT])


class RememberIn(BaseModel):
    """One message as a string, or a list of messages, to store for a user."""

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [
                {"content": "I moved to Portland last week.", "session_id": "s1", "at": SAID_AT,
                 "source_id": "msg-17"},
                {"content": [{"role": "user", "content": "My sister Lena lives in Seattle.",
                              "source_id": "msg-18"},
                             {"role": "assistant", "content": "Noted!", "source_id": "msg-19"}],
                 "session_id": "s1"},
            ]
        },
    )

    content: str | list[MessageIn] = Field(description="One message as text, or a list of messages.")
    session_id: str | None = Field(None, description="The conversation it belongs to.", examples=["s1"])
    agent_id: str | None = Field(None, description="The agent that heard it.", examples=["travel-bot"])
    at: Time | None = Field(
        None,
        description="When it was said (UTC if no offset); relative dates such as 'last week' resolve "
        "against it. Default: now.",
        examples=[SAID_AT],
    )
    source_id: str | None = Field(
        None, description="Your id for a single message: forget by it later.", examples=["msg-17"]
    )
    role: Role | None = Field(None, description="Default role of the messages (`user`).")
    speaker: str | None = Field(None, description="Default speaker: a person's name when not the user.")

    def messages(self) -> str | list[dict[str, Any]]:
        if isinstance(self.content, str):
            return self.content
        return [m.model_dump(exclude_none=True) for m in self.content]


class FactOut(BaseModel):
    text: str = Field(description="The fact as a short statement.", examples=["user lives in Portland"])
    subject: str = Field(examples=["user"])
    predicate: str = Field(examples=["lives_in"])
    object: str = Field(examples=["Portland"])
    valid_from: datetime | None = Field(description="When it began to hold, if the message said.")
    valid_to: datetime | None = Field(description="When it stopped holding, if the message said.")
    negated: bool = Field(description="True for a statement of what is not so ('I don't eat meat').")
    confidence: float = Field(examples=[0.85])
    rule: str = Field(description="The extraction rule that found it (empty for an LLM).")

    @classmethod
    def of(cls, fact: Fact) -> FactOut:
        return cls(text=fact.text, subject=fact.subject, predicate=fact.predicate, object=fact.object,
                   valid_from=fact.valid_from, valid_to=fact.valid_to, negated=fact.negated,
                   confidence=fact.confidence, rule=fact.rule)


class RememberOut(BaseModel):
    """What one remember stored."""

    episode_ids: list[str] = Field(description="One raw episode per message.")
    memory_ids: list[str] = Field(description="New memories: an observation per message, and the facts.")
    fact_ids: list[str] = Field(description="The facts among the new memories.", examples=[[MEMORY_ID]])
    skipped_duplicates: list[str] = Field(
        description="Existing memories that were said again: they gained a source, not a copy."
    )
    already_stored: list[str] = Field(
        default_factory=list,
        description="Source ids stored before with the same text: nothing was written for them.",
    )
    facts: list[FactOut] = Field(description="The facts the extractor found.")
    extractor: str = Field(
        description="`llm`, `rules`, or `rules (LLM timeout|error|bad_reply)` when the model failed and "
        "the rules extracted instead.",
        examples=["rules"],
    )

    @classmethod
    def of(cls, result: RememberResult) -> RememberOut:
        return cls(episode_ids=result.episode_ids, memory_ids=result.memory_ids, fact_ids=result.fact_ids,
                   skipped_duplicates=result.skipped_duplicates, already_stored=result.already_stored,
                   facts=[FactOut.of(f) for f in result.facts], extractor=result.extractor)


# -- recall, history, profile -------------------------------------------------------------------


class HitOut(BaseModel):
    memory_id: str = Field(examples=[MEMORY_ID])
    version_id: str
    text: str = Field(examples=["user lives in Portland"])
    score: float = Field(description="Fused relevance; higher is better.", examples=[0.47])
    why: dict[str, float] = Field(
        description="The weighted parts of relevance (they add up to it, before confidence, salience "
        "and the penalty for not being current); see dualmem_core/writer/scoring.py.",
        examples=[{"vector": 0.21, "text": 0.18, "graph": 0.05, "rank_fusion": 0.03}],
    )
    sources: list[str] = Field(description="Source ids of the messages it came from.", examples=[["msg-17"]])
    current: bool = Field(description="False for a superseded or ended fact.")
    valid_from: datetime | None = Field(description="When it began to hold; null if unknown.")
    valid_to: datetime | None = Field(description="When it stopped holding; null while it holds.")
    kind: str = Field(description="`observation` (what was said) or `fact` (what it means).",
                      examples=["fact"])
    subject: str | None = None
    predicate: str | None = None
    object: str | None = None

    @classmethod
    def of(cls, hit: Hit) -> HitOut:
        return cls(memory_id=hit.memory_id, version_id=hit.version_id, text=hit.text, score=hit.score,
                   why=hit.why, sources=hit.sources, current=hit.current,
                   valid_from=_start(hit.valid_from), valid_to=_end(hit.valid_to), kind=hit.kind,
                   subject=hit.subject, predicate=hit.predicate, object=hit.object)


class RecallOut(BaseModel):
    query: str = Field(examples=["Where does the user live?"])
    hits: list[HitOut] = Field(description="Best first.")

    @classmethod
    def of(cls, query: str, hits: list[Hit]) -> RecallOut:
        return cls(query=query, hits=[HitOut.of(h) for h in hits])


class VersionOut(BaseModel):
    version_id: str
    text: str
    status: str = Field(description="`active`, `superseded`, `duplicate`, ...", examples=["superseded"])
    valid_from: datetime | None = Field(description="When it began to hold in the world; null if unknown.")
    valid_to: datetime | None = Field(description="When it stopped holding; null while it holds.")
    tx_from: datetime = Field(description="When the memory started to believe this version.")
    tx_to: datetime | None = Field(description="When it stopped believing it; null while it does.")
    created_by: str = Field(description="`writer` or the Editor run that made it.", examples=["writer"])

    @classmethod
    def of(cls, v: VersionView) -> VersionOut:
        return cls(version_id=v.version_id, text=v.text, status=v.status, valid_from=_start(v.valid_from),
                   valid_to=_end(v.valid_to), tx_from=v.tx_from, tx_to=_end(v.tx_to), created_by=v.created_by)


class HistoryOut(BaseModel):
    memory_id: str = Field(examples=[MEMORY_ID])
    user_id: str = Field(examples=["u1"])
    versions: list[VersionOut] = Field(description="Oldest belief first.")
    superseded_by: list[str] = Field(description="Memories that superseded this one.")
    supersedes: list[str] = Field(description="Memories this one superseded.")
    sources: list[str] = Field(description="Source ids of the messages it came from.")

    @classmethod
    def of(cls, h: History) -> HistoryOut:
        return cls(memory_id=h.memory_id, user_id=h.user_id, versions=[VersionOut.of(v) for v in h.versions],
                   superseded_by=h.superseded_by, supersedes=h.supersedes, sources=h.sources)


class ProfileEntryOut(BaseModel):
    predicate: str = Field(examples=["lives_in"])
    value: str = Field(examples=["Portland"])
    text: str = Field(examples=["user lives in Portland"])
    memory_id: str = Field(examples=[MEMORY_ID])
    since: datetime | None = Field(description="When it began to hold; null if unknown.")
    sources: list[str] = Field(examples=[["msg-17"]])

    @classmethod
    def of(cls, e: ProfileEntry) -> ProfileEntryOut:
        return cls(predicate=e.predicate, value=e.value, text=e.text, memory_id=e.memory_id,
                   since=_start(e.since), sources=e.sources)


class LastingEntryOut(BaseModel):
    predicate: str = Field(examples=["hobby"])
    value: str = Field(examples=["pottery"])
    text: str = Field(examples=["user does pottery"])
    negated: bool = Field(description="True for a lasting 'does not' (does not eat meat).")
    memory_ids: list[str] = Field(description="Every current fact that says it.", examples=[[MEMORY_ID]])
    since: datetime | None = Field(description="When it began to hold; null if unknown.")
    sources: list[str] = Field(description="Source ids of the messages that support it, in the order said.",
                               examples=[["msg-17", "msg-90"]])
    occasions: int = Field(description="Distinct sessions (or days, for messages without one) among them.",
                           examples=[2])
    topic_ids: list[str] = Field(description="Editor topics whose turns added evidence.")

    @classmethod
    def of(cls, e: LastingEntry) -> LastingEntryOut:
        return cls(predicate=e.predicate, value=e.value, text=e.text, negated=e.negated,
                   memory_ids=e.memory_ids, since=_start(e.since), sources=e.sources,
                   occasions=e.occasions, topic_ids=e.topic_ids)


class ProfileOut(BaseModel):
    user_id: str = Field(examples=["u1"])
    subject: str = Field(examples=["user"])
    entries: dict[str, ProfileEntryOut] = Field(
        description="Identity: the current value of each single-valued fact, by predicate."
    )
    lasting: list[LastingEntryOut] = Field(
        default_factory=list,
        description="Lasting preferences and traits: current multi-valued facts told on two or more"
                    " sessions (or days), most occasions first (docs/layers.md, Profile).")

    @classmethod
    def of(cls, user_id: str, subject: str, p: Profile) -> ProfileOut:
        return cls(user_id=user_id, subject=subject,
                   entries={k: ProfileEntryOut.of(e) for k, e in p.identity.items()},
                   lasting=[LastingEntryOut.of(e) for e in p.lasting])


class IntentionOut(BaseModel):
    memory_id: str = Field(examples=[MEMORY_ID])
    text: str = Field(description="The message that said the plan.",
                      examples=["I'm flying to Lisbon next Friday"])
    due: datetime = Field(description="When it is due (the start of its day when a day was said).")
    state: str = Field(description="`open`: not yet said to be done or dropped.", examples=["open"])
    sources: list[str] = Field(description="Source ids of the messages it came from.", examples=[["msg-17"]])

    @classmethod
    def of(cls, i: Intention) -> IntentionOut:
        return cls(memory_id=i.memory_id, text=i.text, due=i.due, state=i.state, sources=i.sources)


class UpcomingOut(BaseModel):
    user_id: str = Field(examples=["u1"])
    within: str = Field(description="The window asked for, from now.", examples=["7d"])
    intentions: list[IntentionOut] = Field(description="The user's open plans coming due, soonest first.")

    @classmethod
    def of(cls, user_id: str, within: str, found: list[Intention]) -> UpcomingOut:
        return cls(user_id=user_id, within=within, intentions=[IntentionOut.of(i) for i in found])


# -- forget -------------------------------------------------------------------------------------


HOOKS = ("What the dualmem.on_forget hooks of other installed packages did after everything of the "
         "user was deleted, one line each ('failed: ...' for a hook that failed: the forget stands).")


class ForgetOut(BaseModel):
    """Proof of a deletion: what went, by id."""

    user_id: str = Field(examples=["u1"])
    source_ids: list[str] = Field(description="The source ids asked for.", examples=[["msg-17"]])
    episode_ids: list[str] = Field(description="Deleted messages.")
    memory_ids: list[str] = Field(description="Deleted memories, with every version.")
    entity_ids: list[str] = Field(description="Deleted people and places no other memory mentioned.")
    versions: int = Field(description="How many versions were deleted.")
    edges: int = Field(description="How many edges were deleted.")
    kept_memory_ids: list[str] = Field(
        description="Memories that also came from other messages: they lost only this provenance."
    )
    deleted: dict[str, int] = Field(
        default_factory=dict,
        description="How many records of each kind were deleted (for everything of a user, the only "
        "part filled in: the id lists are then empty).",
        examples=[{"episodes": 1, "memories": 2, "entities": 0, "versions": 2, "edges": 5}],
    )
    hooks: list[str] = Field(default_factory=list, description=HOOKS)

    @classmethod
    def of(cls, r: ForgetReceipt | dict[str, int], user_id: str = "", hooks: list[str] | None = None
           ) -> ForgetOut:
        if isinstance(r, dict):  # everything of the user: the store reports counts per kind
            return cls(user_id=user_id, source_ids=[], episode_ids=[], memory_ids=[], entity_ids=[],
                       versions=r.get("versions", 0), edges=r.get("edges", 0), kept_memory_ids=[],
                       deleted=dict(r), hooks=hooks or [])
        return cls(user_id=r.user_id, source_ids=r.source_ids, episode_ids=r.episode_ids,
                   memory_ids=r.memory_ids, entity_ids=r.entity_ids, versions=r.versions, edges=r.edges,
                   kept_memory_ids=r.kept_memory_ids,
                   deleted={"episodes": len(r.episode_ids), "memories": len(r.memory_ids),
                            "entities": len(r.entity_ids), "versions": r.versions, "edges": r.edges})


class ForgetUserOut(BaseModel):
    user_id: str = Field(examples=["u1"])
    deleted: dict[str, int] = Field(
        description="How many records of each kind were deleted.",
        examples=[{"episodes": 2, "memories": 4, "versions": 5, "entities": 2, "edges": 9, "runs": 1}],
    )
    hooks: list[str] = Field(default_factory=list, description=HOOKS)


# -- the Editor ---------------------------------------------------------------------------------


class EditorRunOut(BaseModel):
    """One Editor run or rollback, as published."""

    run_id: str = Field(examples=[RUN_ID])
    user_id: str = Field(examples=["u1"])
    kind: Literal["edit", "rollback"]
    counts: dict[str, dict[str, int]] = Field(
        description="Decisions by stage and action.",
        examples=[{"dedupe": {}, "supersede": {"supersede": 1}, "confidence": {"rescore": 3}}],
    )
    operations: int = Field(description="Operations applied to the graph.", examples=[11])
    skipped: list[dict[str, Any]] = Field(
        description="Operations skipped because the Writer changed their target since the snapshot."
    )
    llm_calls: int
    llm_tokens: int
    llm_by_stage: dict[str, dict[str, int]] = Field(description="LLM calls and tokens by stage.")
    llm_failures: int = Field(description="Unusable LLM replies (the pair was left as it was).")
    duration_s: float
    applied_at: datetime | None = Field(description="When it was published; null if there was nothing to do.")
    rollback_of: str | None = Field(None, description="For a rollback, the run it undid.")

    @classmethod
    def of(cls, run: EditorRun) -> EditorRunOut:
        # EditorRun.kind is a plain str holding "edit" or "rollback"; pydantic validates it here
        return cls(run_id=run.run_id, user_id=run.user_id, kind=cast(Literal["edit", "rollback"], run.kind),
                   counts=run.counts, operations=run.operations, skipped=run.skipped, llm_calls=run.llm_calls,
                   llm_tokens=run.llm_tokens, llm_by_stage=run.llm_by_stage, llm_failures=run.llm_failures,
                   duration_s=run.duration_s, applied_at=run.applied_at, rollback_of=run.rollback_of)


class RollbackOut(EditorRunOut):
    """The rollback of a run: made now, or (``already_rolled_back``) the one made before."""

    already_rolled_back: bool = Field(
        False, description="True when the run had been rolled back before: this is that earlier rollback, "
        "and nothing was undone this time."
    )

    @classmethod
    def of_rollback(cls, run: EditorRun, *, already: bool) -> RollbackOut:
        return cls(**EditorRunOut.of(run).model_dump(), already_rolled_back=already)


class EditorRunsOut(BaseModel):
    runs: list[EditorRunOut] = Field(description="Every published run and rollback, oldest first.")


# -- errors and health --------------------------------------------------------------------------


class ErrorOut(BaseModel):
    error: str = Field(description="The error type.", examples=["NotFound"])
    detail: str = Field(description="What was wrong and what to do.",
                        examples=["user 'u2' has no memory 'mem_01a2…'"])


class HealthOut(BaseModel):
    status: Literal["ok"]
    backend: str = Field(description="The store's backend.", examples=["sqlite"])
