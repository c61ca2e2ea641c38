"""The code location's resources and executor, each resource configured from the environment
when the definitions load (so a test or a deployment sets the environment first)."""

import dagster as dg

from .io.run_folder import RUN_FOLDER_IO_MANAGER, RunFolderIOManager
from .providers.resources import EmbedderResource, LLMResource
from .store.resources import StoreResource


def resources() -> dict[str, object]:
    """The store, the optional LLM, the embedder and the IO manager of the Editor's outputs."""
    return {"store": StoreResource.from_env(), "llm": LLMResource.from_env(),
            "embedder": EmbedderResource.from_env(), RUN_FOLDER_IO_MANAGER: RunFolderIOManager()}


@dg.definitions
def defs() -> dg.Definitions:
    # One process per run: the stages of a run share its snapshot's view (load_view's cache).
    return dg.Definitions(resources=resources(), executor=dg.in_process_executor)
