"""The pipeline's ``dualmem.on_forget`` hook (pyproject.toml's entry points), called by
``dualmem forget --everything`` after the store's delete.

It deletes the user's partition in the Dagster instance in DAGSTER_HOME at once, so neither the
sensor nor the nightly schedule launches a run for them (without it, the sensor's next tick does),
and with ``--purge-runs`` their finished runs and those runs' event logs. This module imports
Dagster only when there is an instance to change: a core install without the ``dagster`` extra,
or a shell without DAGSTER_HOME, pays nothing and hears nothing.
"""

from __future__ import annotations

import os
from importlib.util import find_spec


def on_forget(user_id: str, *, purge_runs: bool = False) -> str | None:
    """What was done, in one line; None when there is no Dagster instance to change."""
    if not os.environ.get("DAGSTER_HOME") or find_spec("dagster") is None:
        return None
    from dagster import DagsterInstance

    from .users import delete_partitions, delete_user_runs

    with DagsterInstance.get() as instance:
        said = ["partition deleted" if delete_partitions(instance, [user_id]) else "no partition to delete"]
        if purge_runs:
            deleted, left = delete_user_runs(instance, user_id)
            said.append(f"{deleted} run(s) deleted with their event logs"
                        + (f", {left} queued or running left alone" if left else ""))
    return "Dagster: " + "; ".join(said)
