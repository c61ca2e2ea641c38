"""``memory_quality``: the evaluation harness as a blocking check on a published evaluation user.

An evaluation partition is a user of the gold-labelled fixture (``fixtures/eval/``) whose
conversations were loaded into the store through the Writer (``dualmem eval --store <url>`` or
``dualmem demo`` do that). After the Editor publishes for such a user, the check scores that
user's graph and questions against the gold labels and fails when a metric misses the
floors committed for that user in ``fixtures/thresholds.json`` (made from measured runs, one
step under the lowest value of every embedder and store). Every metric is in its metadata.
For any other user it passes and says it had nothing to measure.
"""

from collections.abc import Iterator

from dagster import (
    AssetCheckExecutionContext,
    AssetCheckResult,
    AssetCheckSeverity,
    AssetCheckSpec,
    MetadataValue,
    multi_asset_check,
)

from dualmem_core.evaluation import floors
from dualmem_core.evaluation.fixture import load_fixture
from dualmem_core.evaluation.harness import user_metrics
from dualmem_core.writer.writer import Writer

from ..editor.assets import publish
from ..providers.resources import EmbedderResource
from ..store.resources import StoreResource
from ..users import users_partitions

THRESHOLDS = floors.THRESHOLDS  # a module attribute, so a test can point it at other floors


@multi_asset_check(
    specs=[
        AssetCheckSpec(
            "memory_quality",
            asset=publish,
            blocking=True,
            partitions_def=users_partitions,
            description="Gold-label metrics of an evaluation user after publish, "
            "against fixtures/thresholds.json",
        )
    ],
)
def memory_quality(
    context: AssetCheckExecutionContext, store: StoreResource, embedder: EmbedderResource
) -> Iterator[AssetCheckResult]:
    user_id = context.op_execution_context.partition_key
    fixture = load_fixture()
    if user_id not in fixture.users():
        yield AssetCheckResult(
            check_name="memory_quality",
            passed=True,
            metadata={"measured": "no: not a user of the evaluation fixture"},
        )
        return
    part = fixture.part_of(user_id)
    values = user_metrics(Writer(store.store, embedder=embedder.embedder), fixture, user_id)
    wanted = floors.load(THRESHOLDS).users.get(user_id, {})
    misses = floors.below(values, wanted)
    yield AssetCheckResult(
        check_name="memory_quality",
        passed=not misses,
        severity=AssetCheckSeverity.ERROR,
        metadata={
            "part": part,
            "floors": len(wanted),
            "below_thresholds": MetadataValue.json(misses),
            **{name: float(v) if v is not None else MetadataValue.text("– (nothing to count)")
               for name, v in values.items()},
        },
    )
