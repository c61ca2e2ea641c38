"""The slow rate of the dual-rate trigger: every user, every night."""

from collections.abc import Iterator

from dagster import RunRequest, ScheduleEvaluationContext, SkipReason, schedule

from ...users import editor_run_in_flight
from ..store.resources import StoreResource
from . import jobs


@schedule(job=jobs.editor_job, cron_schedule="0 3 * * *", execution_timezone="UTC")
def nightly_editor_schedule(
    context: ScheduleEvaluationContext, store: StoreResource
) -> Iterator[RunRequest | SkipReason]:
    """One Editor run per known user at 03:00 UTC (a user with a run in flight waits for the next).
    A partition whose user is no longer in the store (forgotten since the sensor's last tick, or
    with the sensor off) gets no run; the sensor deletes it."""
    stored = set(store.store.list_users())
    users = [u for u in context.instance.get_dynamic_partitions("users") if u in stored]
    if not users:
        yield SkipReason("no users yet; the new_memories_sensor adds them as they appear")
    night = context.scheduled_execution_time
    for user_id in users:
        if not editor_run_in_flight(context.instance, user_id, jobs.editor_job.name):
            yield RunRequest(run_key=f"nightly:{user_id}:{night:%Y-%m-%d}", partition_key=user_id)
