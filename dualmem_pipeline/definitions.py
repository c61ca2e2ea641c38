"""The code location ``workspace.yaml`` loads: every Editor asset, check, resource, job and trigger."""

from dagster import Definitions, in_process_executor

from .defs.editor.assets import change_set, publish, stage_assets
from .defs.editor.checks import change_set_invariants
from .defs.editor.jobs import editor_job
from .defs.editor.schedules import nightly_editor_schedule
from .defs.editor.sensors import new_memories_sensor
from .defs.evaluation.checks import memory_quality
from .defs.providers.resources import EmbedderResource, LLMResource
from .defs.rollback.jobs import rollback_job
from .defs.snapshot.assets import graph_snapshot
from .defs.store.resources import StoreResource


def resources() -> dict[str, object]:
    """The store, the optional LLM and the embedder, each configured from the environment."""
    return {"store": StoreResource.from_env(), "llm": LLMResource.from_env(),
            "embedder": EmbedderResource.from_env()}


def build_definitions() -> Definitions:
    """Everything, with resources read from the environment as it is now."""
    return Definitions(
        assets=[graph_snapshot, *stage_assets, change_set, publish],
        asset_checks=[change_set_invariants, memory_quality],
        jobs=[editor_job, rollback_job],
        schedules=[nightly_editor_schedule],
        sensors=[new_memories_sensor],
        resources=resources(),
        executor=in_process_executor,
    )


defs = build_definitions()
