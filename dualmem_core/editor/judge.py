"""The grey band's second opinion: batched yes/no questions to an LLM, when one is configured.

Rules settle most pairs. The few they cannot (close embeddings, unproven by names or words) go
to the model in batches, one call per batch per stage; every reply goes through the provider
cache like the Writer's calls. A reply that is unusable counts as "not the same": the Editor
never merges on a guess, and the failure is counted in the run's report.
"""

from __future__ import annotations

import logging
from collections import Counter
from dataclasses import dataclass, field

from ..errors import CacheMiss, DualmemError
from ..prompts import editor_judge as prompt
from ..prompts import editor_update
from ..providers.llm import LLM, Usage, failure_kind

log = logging.getLogger(__name__)
BATCH = 40  # pairs per call: small enough for any model's context, large enough to be cheap


@dataclass
class Judge:
    llm: LLM | None
    usage: dict[str, Usage] = field(default_factory=dict)  # per stage
    failures: int = 0
    failure_kinds: Counter[str] = field(default_factory=Counter)  # providers.llm.failure_kind

    def same(self, stage: str, kind: str, pairs: list[tuple[str, str]]) -> list[bool | None]:
        """For each (A, B) described in words: True/False from the model, None without one."""
        if self.llm is None or not pairs:
            return [None] * len(pairs)
        verdicts: list[bool | None] = []
        for start in range(0, len(pairs), BATCH):
            verdicts += self._ask(stage, kind, pairs[start : start + BATCH])
        return verdicts

    def replaces(self, stage: str, pairs: list[tuple[str, str]]) -> list[bool | None]:
        """For each (earlier message, later message): whether the later changes or ends what
        the earlier said (True/False from the model), None without one."""
        if self.llm is None or not pairs:
            return [None] * len(pairs)
        verdicts: list[bool | None] = []
        for start in range(0, len(pairs), BATCH):
            chunk = pairs[start : start + BATCH]
            chat = [
                {"role": "system", "content": editor_update.SYSTEM},
                {"role": "user",
                 "content": editor_update.user_prompt([(i, a, b) for i, (a, b) in enumerate(chunk)])},
            ]
            verdicts += self._ask(stage, "Update", chunk, chat)
        return verdicts

    def _ask(
        self, stage: str, kind: str, pairs: list[tuple[str, str]], chat: list[dict] | None = None
    ) -> list[bool | None]:
        chat = chat or [
            {"role": "system", "content": prompt.SYSTEM},
            {
                "role": "user",
                "content": prompt.user_prompt(kind, [(i, a, b) for i, (a, b) in enumerate(pairs)]),
            },
        ]
        assert self.llm is not None  # same() and replaces() ask only when a model is configured
        try:
            reply = self.llm.complete_json(
                chat, prompt.SCHEMA, name="verdicts", sources=[t for pair in pairs for t in pair]
            )
        except CacheMiss:
            raise
        except DualmemError as exc:
            kind = failure_kind(exc)
            log.warning("Editor %s: the LLM failed (%s: %s); %d pairs stay apart", stage, kind, exc,
                        len(pairs))
            self.failures += 1
            self.failure_kinds[kind] += 1
            return [False] * len(pairs)
        self.usage[stage] = self.usage.get(stage, Usage()) + reply.usage
        answers = {
            v["index"]: v["same"]
            for v in reply.parsed.get("verdicts", [])
            if isinstance(v, dict) and isinstance(v.get("index"), int) and isinstance(v.get("same"), bool)
        }
        if len(answers) < len(pairs):
            log.warning(
                "Editor %s: the LLM answered %d of %d pairs; the rest stay apart",
                stage,
                len(answers),
                len(pairs),
            )
            self.failures += 1
            self.failure_kinds["bad_reply"] += 1
        return [answers.get(i, False) for i in range(len(pairs))]
