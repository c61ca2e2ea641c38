"""Tell other installed packages that a user was forgotten, without importing them.

A package that keeps its own records of a user (the Dagster pipeline keeps a partition, runs and
their event logs) registers a callable in the entry point group ``dualmem.on_forget``::

    [project.entry-points."dualmem.on_forget"]
    dagster = "dualmem_pipeline.users:on_forget"

It is called as ``hook(user_id, purge_runs=...)`` after the store has deleted the user, and returns
a line saying what it did (or None when it had nothing to do). The forget has already happened: a
hook that fails is reported, never undoes it, and never stops the other hooks.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from importlib.metadata import entry_points

GROUP = "dualmem.on_forget"


@dataclass
class HookReport:
    """What the hooks said: one line per hook that did something, one per hook that failed."""

    done: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)


def announce_forgotten(user_id: str, *, purge_runs: bool = False) -> HookReport:
    """Call every registered ``dualmem.on_forget`` hook for this (already deleted) user."""
    report = HookReport()
    for point in sorted(entry_points(group=GROUP), key=lambda p: p.name):
        try:
            said = point.load()(user_id, purge_runs=purge_runs)
        except Exception as exc:  # a broken hook must not turn a done forget into an error
            report.failed.append(f"{point.name}: {type(exc).__name__}: {exc}")
            continue
        if said:
            report.done.append(f"{point.name}: {said}")
    return report
