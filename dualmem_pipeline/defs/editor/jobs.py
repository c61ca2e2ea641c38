"""The Editor as one job: snapshot, five stages, change set, checks, publish, for one user."""

from dagster import AssetSelection, define_asset_job

editor_job = define_asset_job(
    "editor_job",
    selection=AssetSelection.groups("editor"),
    description="Edit one user's graph: snapshot, the five stages, checks, publish.",
)
