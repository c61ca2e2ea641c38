"""The stages in order, and how each one reads the results of those before it.

Dagster runs them as one asset each; ``Editor.run`` runs them in a loop. Either way a stage
gets the same snapshot view and the earlier stages' results of the same run, so it can, for
instance, leave out the memories dedupe is folding away.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from ..errors import InvalidInput
from .confidence import score
from .config import EditorConfig
from .decisions import StageResult
from .dedupe import deduplicate
from .entities import resolve_entities
from .intentions import find_intentions
from .judge import Judge
from .relations import mine_relations
from .summaries import summarise
from .supersede import supersede
from .topics import find_topics
from .view import GraphView

# Summaries before scoring: the entity stage has linked the turns to the people they name.
STAGES = ("dedupe", "supersede", "entities", "relations", "summaries", "topics", "intentions", "confidence")


def _copies(prior: list[StageResult]) -> dict[str, str]:
    """copy -> canonical, for the memories dedupe folds away in this run."""
    return {d.subject: d.target for r in prior for d in r.changing() if d.action == "duplicate" and d.target}


_RUNNERS: dict[str, Callable[[GraphView, list[StageResult], EditorConfig, Judge], StageResult]] = {
    "dedupe": lambda view, prior, config, judge: deduplicate(view, config, judge),
    "supersede": lambda view, prior, config, judge: supersede(view, _copies(prior), config, judge),
    "entities": lambda view, prior, config, judge: resolve_entities(view, config, judge),
    "relations": lambda view, prior, config, judge: mine_relations(view, config, prior),
    "summaries": lambda view, prior, config, judge: summarise(view, config, prior, judge),
    "topics": lambda view, prior, config, judge: find_topics(view, config),
    "intentions": lambda view, prior, config, judge: find_intentions(view, config),
    "confidence": lambda view, prior, config, judge: score(view, config, prior),
}


def run_stage(
    name: str, view: GraphView, prior: list[StageResult], config: EditorConfig, judge: Judge
) -> StageResult:
    """Run one stage; ``prior`` holds the results of the stages before it, in order."""
    if name not in _RUNNERS:
        raise InvalidInput(f"unknown Editor stage {name!r}; the stages are {', '.join(STAGES)}")
    started, failures = time.perf_counter(), judge.failures
    result = _RUNNERS[name](view, prior, config, judge)
    result.llm_failures = judge.failures - failures
    result.seconds = round(time.perf_counter() - started, 4)
    usage = judge.usage.get(name)
    if usage is not None:
        result.llm_calls, result.llm_tokens = usage.calls, usage.tokens
    return result


def run_all(
    view: GraphView, config: EditorConfig, judge: Judge, on_stage: Callable[[str], None] | None = None
) -> list[StageResult]:
    """Every stage in order; ``on_stage(name)`` is called as each one starts (for progress)."""
    results: list[StageResult] = []
    for name in STAGES:
        if on_stage is not None:
            on_stage(name)
        results.append(run_stage(name, view, results, config, judge))
    return results
