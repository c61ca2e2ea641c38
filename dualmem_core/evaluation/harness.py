"""The whole loop, measured: the fixture through the real Writer, the real Editor, the real recall.

For each user of a part: start from an empty graph, remember every message in order (timed),
ask every question (recall before the Editor), run the Editor once, ask again (after), and
score the stored graph against the gold labels with ``metrics``. Questions are asked without
counting as recall use, so the measurement does not feed the Editor's salience.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from datetime import time as dtime
from typing import Any

import numpy as np

from ..editor import Editor
from ..providers import Embedder
from ..providers.llm import LLM
from ..store import Store
from ..store.models import reproducible_ids
from ..writer.writer import Writer
from . import metrics
from .fixture import PARTS, READ_PARTS, Fixture, Question

K = 5


@dataclass
class PartResult:
    part: str
    users: list[str]
    before: dict[str, float | None]  # retrieval before the Editor (None: a rate over nothing)
    after: dict[str, float | None]  # retrieval and graph metrics after it
    counts: dict[str, int]  # the raw counts behind the pair metrics
    llm_calls: int = 0
    llm_tokens: int = 0
    write_ms: dict[str, float] = field(default_factory=dict)  # per message: p50, p95, max
    editor_s: dict[str, float] = field(default_factory=dict)  # per user run: mean, max
    misses: list[dict[str, Any]] = field(default_factory=list)  # questions whose answer was not in the top k
    per_user: dict[str, dict[str, float | None]] = field(default_factory=dict)  # after the Editor


@dataclass
class EvalResult:
    store: str
    embedder: str
    parts: dict[str, PartResult]
    seconds: float

    def as_dict(self) -> dict[str, Any]:
        return {
            "store": self.store,
            "embedder": self.embedder,
            "seconds": round(self.seconds, 2),
            "parts": {name: vars(p) for name, p in self.parts.items()},
        }


def evaluate(
    store: Store,
    fixture: Fixture,
    *,
    embedder: Embedder | None = None,
    llm: LLM | None = None,
    parts: tuple[str, ...] = PARTS,
) -> EvalResult:
    """Run the loop for every user of ``parts`` on ``store`` (their old data is deleted first).

    Ids are made in creation order (``reproducible_ids``), so the numbers are the same every run
    of the same code: with random ids, ties that recall or the Editor break by id moved a part's
    recall@5 by a question from run to run."""
    with reproducible_ids():
        return _evaluate(store, fixture, embedder, llm, parts)


def _evaluate(store: Store, fixture: Fixture, embedder: Embedder | None, llm: LLM | None,
              parts: tuple[str, ...]) -> EvalResult:
    started = time.perf_counter()
    writer = Writer(store, embedder=embedder, llm=llm)
    editor = Editor(store, llm=llm)
    out = {}
    for part in parts:
        users = fixture.users(part)
        counts: dict[str, int] = {}
        before, after, write_ms, editor_s = [], [], [], []
        calls = tokens = 0
        per_user = {}
        for user in users:
            store.delete_user(user)
            for m in fixture.messages_of(user):
                t = time.perf_counter()
                writer.remember(
                    m.content,
                    user_id=user,
                    session_id=m.session_id,
                    at=m.at.astimezone(UTC),
                    source_id=m.source_id,
                    role=m.role,
                )
                write_ms.append((time.perf_counter() - t) * 1000)
            before += _ask(writer, fixture, user)
            run = editor.run(user)
            editor_s.append(run.duration_s)
            calls, tokens = calls + run.llm_calls, tokens + run.llm_tokens
            user_counts, answers = score_user(writer, fixture, user)
            after += answers
            per_user[user] = {**metrics.retrieval(answers, K), **metrics.graph_metrics(user_counts)}
            for name, n in user_counts.items():
                counts[name] = counts.get(name, 0) + n
        retrieval_after = metrics.retrieval(after, K)
        out[part] = PartResult(
            part,
            users,
            metrics.retrieval(before, K),
            {**retrieval_after, **metrics.graph_metrics(counts)},
            counts,
            calls,
            tokens,
            _percentiles(write_ms),
            {"mean": round(float(np.mean(editor_s)), 3), "max": round(max(editor_s), 3)} if editor_s else {},
            # Only a part that is read lists its misses: dev and held-out are measured, never read.
            [_miss(a, fixture) for a in after
             if part in READ_PARTS and not set().union(*a.hits[:K]) >= set(a.question.answers)],
            per_user,
        )
    return EvalResult(store.url, writer.embedder.name, out, time.perf_counter() - started)


def score_user(writer: Writer, fixture: Fixture, user: str) -> tuple[dict[str, int], list[metrics.Answered]]:
    """One user's graph counts and answered questions, as the store holds them now."""
    stored = metrics.StoredUser(writer.store.export_graph(user))
    counts: dict[str, int] = {}
    for found in (
        metrics.duplicates(stored, fixture.facts_of(user)),
        metrics.provenance(stored, fixture.facts_of(user)),
        metrics.supersessions(stored, fixture, user),
        metrics.entities(stored, fixture, user),
    ):
        counts.update(found)
    return counts, _ask(writer, fixture, user)


def user_metrics(writer: Writer, fixture: Fixture, user: str) -> dict[str, float | None]:
    """Every metric of one user (the asset check's view of an evaluation partition)."""
    counts, answers = score_user(writer, fixture, user)
    return {**metrics.retrieval(answers, K), **metrics.graph_metrics(counts)}


def _ask(writer: Writer, fixture: Fixture, user: str) -> list[metrics.Answered]:
    return [
        metrics.answered(
            q, writer.recall(q.question, user_id=user, k=K, as_of=_as_of(q), record_access=False), fixture
        )
        for q in fixture.questions_of(user)
    ]


def _as_of(q: Question) -> datetime | None:
    return None if q.as_of is None else datetime.combine(q.as_of, dtime(12), tzinfo=UTC)


def _percentiles(ms: list[float]) -> dict[str, float]:
    if not ms:
        return {}
    p50, p95 = np.percentile(ms, [50, 95])
    return {"p50": round(float(p50), 2), "p95": round(float(p95), 2), "max": round(max(ms), 2)}


def _miss(a: metrics.Answered, fixture: Fixture) -> dict[str, Any]:
    return {
        "question": a.question.id,
        "kind": a.question.kind,
        "text": a.question.question,
        "answers": [fixture.fact(f).statement for f in a.question.answers],
    }
