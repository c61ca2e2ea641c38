"""The MCP tools' parameters, described for an agent. Their results are the REST API's models
(``models.py``): one set of names and shapes for both servers.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

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
