"""The code location ``workspace.yaml`` loads: every Editor asset, resource, job and schedule."""

from __future__ import annotations

from dagster import Definitions

from .defs.snapshot.assets import graph_snapshot
from .defs.store.resources import StoreResource

defs = Definitions(assets=[graph_snapshot], resources={"store": StoreResource()})
