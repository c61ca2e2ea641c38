"""``memory_quality``: the evaluation harness as a check on a published evaluation user.

An evaluation partition is a user of the gold-labelled fixture (``fixtures/eval/``) whose
conversations were loaded into the store through the Writer (``dualmem eval --store <url>`` or
``dualmem demo`` do that). After the Editor publishes for such a user, the check scores that
user's graph and questions against the gold labels and fails when a metric misses the
floors committed for that user in ``fixtures/thresholds.json`` (made from measured runs, one
step under the lowest value of every embedder and store). Every metric is in its metadata.
The check is not blocking: it runs after ``publish``, the last asset, has changed the store, so
failing it could only fail the step, not stop the change (``rollback_job`` undoes a bad run).

Any other user (a real one) has no gold labels, so the check is of graph health instead, and
says so in ``measured``: the graph invariants on the published graph (a violation fails with
WARN: the Editor's own checks already block one a run would cause, so one found here predates
it), the counts of current and superseded memories, and a stale-first rate on the user's own
single-valued facts: for each (subject, predicate) slot holding a superseded value and a current
one, whether recall of "subject phrase" ("user lives in") puts a superseded value first. That
rate is shown, not judged: there is no floor for a user nobody labelled.

Both kinds of user also get per-layer numbers (``evaluation/layers.py``): the memories each of
the Editor's layers holds and the messages under them; an evaluation user, also the share of its
questions' evidence each layer reaches. They are shown, not judged.
"""

from collections import defaultdict
from collections.abc import Iterator
from typing import Any

from dagster import (
    AssetCheckExecutionContext,
    AssetCheckResult,
    AssetCheckSeverity,
    AssetCheckSpec,
    MetadataValue,
    multi_asset_check,
)

from dualmem_core.editor.invariants import check_graph
from dualmem_core.editor.stints import fact_slots
from dualmem_core.editor.view import GraphView
from dualmem_core.evaluation import floors
from dualmem_core.evaluation.fixture_loading import load_fixture
from dualmem_core.evaluation.harness import user_metrics
from dualmem_core.evaluation.layers import layer_numbers, question_evidence
from dualmem_core.evaluation.metrics import StoredUser
from dualmem_core.vocab import predicates
from dualmem_core.writer.writer import Writer

from ...users import users_partitions
from ..providers.resources import EmbedderResource
from ..store.resources import StoreResource

THRESHOLDS = floors.THRESHOLDS  # a module attribute, so a test can point it at other floors
STALE_SLOTS = 25  # slots probed for stale-first, one recall each: the check stays cheap
SHOWN = 10  # violations and stale slots listed in the metadata


@multi_asset_check(
    specs=[
        AssetCheckSpec(
            "memory_quality",
            asset="publish",
            # publish is the last asset and has already written to the store when this runs:
            # blocking would only fail the step afterwards, and block nothing.
            blocking=False,
            partitions_def=users_partitions,
            description="After publish: an evaluation user's gold-label metrics against "
            "fixtures/thresholds.json; any other user's graph health (invariants, counts, stale-first). "
            "Not blocking: publish is the last step and has already changed the store when this runs, "
            "so a miss is reported (roll the run back with rollback_job), not prevented; the checks "
            "that block a bad change set are on change_set.",
        )
    ],
)
def memory_quality(
    context: AssetCheckExecutionContext, store: StoreResource, embedder: EmbedderResource
) -> Iterator[AssetCheckResult]:
    user_id = context.op_execution_context.partition_key
    fixture = load_fixture()
    writer = Writer(store.store, embedder=embedder.embedder)
    if user_id not in fixture.users():
        violations, metadata = graph_health(writer, user_id)
        yield AssetCheckResult(check_name="memory_quality", passed=not violations,
                               severity=AssetCheckSeverity.WARN, metadata=metadata)
        return
    part = fixture.part_of(user_id)
    values = user_metrics(writer, fixture, user_id)
    stored = StoredUser(writer.store.export_graph(user_id))
    layers = layer_numbers(stored, question_evidence(fixture, user_id))
    wanted = floors.load(THRESHOLDS).users.get(user_id, {})
    misses = floors.below(values, wanted)
    yield AssetCheckResult(
        check_name="memory_quality",
        passed=not misses,
        severity=AssetCheckSeverity.ERROR,
        metadata={
            "measured": "gold labels: the evaluation fixture's metrics against this user's floors",
            "part": part,
            "floors": len(wanted),
            "below_thresholds": MetadataValue.json(misses),
            **{name: float(v) if v is not None else MetadataValue.text("– (nothing to count)")
               for name, v in values.items()},
            **shown_layers(layers),
        },
    )


def graph_health(writer: Writer, user_id: str) -> tuple[int, dict[str, Any]]:
    """(invariant violations, the check's metadata) of a user outside the fixture."""
    view = GraphView(writer.store.export_graph(user_id))
    found = check_graph(view.graph)
    statuses: defaultdict[str, int] = defaultdict(int)
    for v in view.current.values():
        statuses[v.status] += 1
    probed, stale = stale_first(writer, user_id, view)
    violations = sum(len(vs) for vs in found.values())
    return violations, {
        "measured": "graph health: no gold labels for a user outside the evaluation fixture",
        "invariant_violations": violations,
        **{f"violations.{name}": len(vs) for name, vs in found.items()},
        "violation_sample": MetadataValue.json([{"invariant": v.invariant, "subject": v.subject,
                                                 "message": v.message}
                                                for vs in found.values() for v in vs][:SHOWN]),
        "memories": len(view.memories),
        "current_memories": statuses["active"],
        "superseded_memories": statuses["superseded"],
        "other_memories": sum(n for s, n in statuses.items() if s not in ("active", "superseded")),
        "stale_slots_probed": len(probed),
        "stale_first_rate": (float(len(stale) / len(probed)) if probed
                             else MetadataValue.text("– (no single-valued fact was superseded)")),
        "stale_first_sample": MetadataValue.json(stale[:SHOWN]),
        **shown_layers(layer_numbers(StoredUser(view.graph))),
    }


def shown_layers(numbers: dict[str, int | float | None]) -> dict[str, Any]:
    """The per-layer numbers (``evaluation/layers.py``) as metadata: counts as numbers, a share
    with nothing to count (no question's evidence) said so."""
    none = MetadataValue.text("– (nothing to count)")
    return {name: none if v is None else v for name, v in numbers.items()}


def stale_first(writer: Writer, user_id: str, view: GraphView) -> tuple[list[str], list[str]]:
    """(slots probed, slots whose first hit is a superseded value): single-valued slots only,
    those holding both a superseded and a current value, at most ``STALE_SLOTS`` of them."""
    probed: list[str] = []
    stale: list[str] = []
    for (_, predicate), members in sorted(fact_slots(view).items()):
        if len(probed) == STALE_SLOTS:
            break
        status = {m: view.current[m].status for m in members}
        if not predicates.is_single_valued(predicate) or set(status.values()) != {"active", "superseded"}:
            continue
        entry = predicates.get(predicate)
        newest = view.current[members[-1]]
        query = f"{newest.subject or ''} {entry.phrase if entry else predicate.replace('_', ' ')}".strip()
        hits = writer.recall(query, user_id=user_id, k=1, record_access=False)
        probed.append(query)
        if hits and status.get(hits[0].memory_id) == "superseded":
            stale.append(query)
    return probed, stale
