"""``memory_quality``: the evaluation harness as a blocking check on a published evaluation user.

An evaluation partition is a user of the gold-labelled fixture (``fixtures/eval/``) whose
conversations were loaded into the store through the Writer (``dualmem eval --store <url>`` or
``dualmem demo`` do that). After the Editor publishes for such a user, the check scores that
user's graph and questions against the gold labels and fails when a metric misses the
thresholds committed for the user's part in ``fixtures/thresholds.json``. Every metric is in
its metadata. For any other user it passes and says it had nothing to measure.
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

from dualmem_core.evaluation.fixture import load_fixture
from dualmem_core.evaluation.harness import user_metrics
from dualmem_core.evaluation.run import THRESHOLDS, below, load_thresholds
from dualmem_core.writer.writer import Writer

from ..editor.assets import publish
from ..providers.resources import EmbedderResource
from ..store.resources import StoreResource
from ..users import users_partitions


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
    misses = below(values, load_thresholds(THRESHOLDS).get(part, {}))
    yield AssetCheckResult(
        check_name="memory_quality",
        passed=not misses,
        severity=AssetCheckSeverity.ERROR,
        metadata={
            "part": part,
            "below_thresholds": MetadataValue.json(misses),
            **{name: float(v) for name, v in values.items()},
        },
    )
