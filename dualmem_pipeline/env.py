"""Settings that come from the environment, resolved by Dagster at run time."""

import os

from dagster import EnvVar


def from_env(name: str) -> EnvVar | str:
    """``EnvVar(name)`` when the variable is set (the UI shows where a value comes from, never a
    secret), else "" so that the resource falls back to its default."""
    return EnvVar(name) if os.environ.get(name, "").strip() else ""
