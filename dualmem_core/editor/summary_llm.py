"""Session summaries with a model: one call per session, through the provider cache like every
other call (so a recorded run replays without the model), counted in the run's report under the
``summaries`` stage. Any unusable reply is counted as a failure and the session falls back to
the extractive summary (``summaries.py``): a run never stops on a bad reply, only on a cache miss
in replay.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from ..errors import CacheMiss, DualmemError
from ..prompts import editor_summary as prompt
from ..providers.llm import Usage, failure_kind
from .judge import Judge

log = logging.getLogger(__name__)
MAX_CHARS = 2000  # of a model's summary: longer is a retelling, not a summary


@dataclass(slots=True)
class Written:
    text: str
    turns: list[int]  # indices into the session's turns the summary draws on, in order


def written(judge: Judge, stage: str, turns: list[tuple[str, str]]) -> Written | None:
    """The model's summary of a session's (speaker, text) turns, or None without a model or
    with an unusable reply."""
    if judge.llm is None:
        return None
    chat = [{"role": "system", "content": prompt.SYSTEM},
            {"role": "user", "content": prompt.user_prompt([(i, s, t) for i, (s, t) in enumerate(turns)])}]
    try:
        reply = judge.llm.complete_json(chat, prompt.SCHEMA, name="session_summary",
                                        sources=[t for _, t in turns])
    except CacheMiss:
        raise
    except DualmemError as exc:
        _failed(judge, stage, failure_kind(exc), str(exc))
        return None
    judge.usage[stage] = judge.usage.get(stage, Usage()) + reply.usage
    text, cited = reply.parsed.get("summary"), reply.parsed.get("turns")
    if not isinstance(text, str) or not text.strip() or len(text) > MAX_CHARS or not isinstance(cited, list):
        _failed(judge, stage, "bad_reply", "no usable summary")
        return None
    indices = sorted({i for i in cited if type(i) is int and 0 <= i < len(turns)})  # bool is no index
    if not indices:
        _failed(judge, stage, "bad_reply", "it cited no turn of the session")
        return None
    return Written(text.strip(), indices)


def _failed(judge: Judge, stage: str, kind: str, why: str) -> None:
    log.warning("Editor %s: the LLM's summary was unusable (%s: %s); extractive instead", stage, kind, why)
    judge.failures += 1
    judge.failure_kinds[kind] += 1
    return None
