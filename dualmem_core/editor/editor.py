"""The Editor: snapshot a user's graph, run the five stages, publish one change set, undo it.

Stages decide; only ``publish`` writes, in one transaction per user tagged with the run id.
The store's guards skip (and report) any operation whose target the Writer changed after the
snapshot, so the Editor never clobbers newer writes. Publishing a run twice applies it once.
``rollback`` turns a run's journal into its exact inverse (``undo.py``) and applies that as a run of
its own.
One run per user at a time: in this process by a lock, across processes by the user's lease in
the store (store/lease.py), which a killed run's successor takes over.
"""

from __future__ import annotations

import gc
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from ..errors import ConflictError, InvalidInput, NotFound
from ..providers.llm import LLM
from ..store import Store
from ..store import changes as ch
from ..store import models as _models
from ..store.base import collector_paused
from ..store.lease import DEFAULT_LEASE_SECONDS, HeldLease
from ..store.snapshot import configured_snapshot_dir, write_snapshot
from ..store.validate import check_id, check_user_id
from ..timeutil import utcnow
from .config import EditorConfig
from .decisions import StageResult, combine
from .judge import Judge
from .stages import run_all
from .undo import _inverse, _touched
from .view import GraphView


@dataclass(slots=True)
class EditorRun:
    """One Editor run (or rollback) as published, or as decided when nothing needed publishing."""

    run_id: str
    user_id: str
    kind: str = "edit"  # "edit" | "rollback"
    counts: dict[str, dict[str, int]] = field(default_factory=dict)  # stage -> action -> n
    operations: int = 0  # applied
    skipped: list[dict[str, Any]] = field(default_factory=list)  # guard failures, with reasons
    llm_calls: int = 0
    llm_tokens: int = 0
    llm_by_stage: dict[str, dict[str, int]] = field(default_factory=dict)
    llm_failures: int = 0
    llm_failure_kinds: dict[str, int] = field(default_factory=dict)  # timeout, error, bad_reply, ...
    duration_s: float = 0.0
    applied_at: datetime | None = None  # None: nothing to publish
    snapshot: str | None = None
    rollback_of: str | None = None
    stages: list[StageResult] = field(default_factory=list)  # decisions, for this process only

    @classmethod
    def from_record(cls, record: ch.RunRecord) -> EditorRun:
        m = record.meta
        return cls(
            record.run_id,
            record.user_id,
            kind=m.get("kind", "edit"),
            counts=m.get("counts", {}),
            operations=len(record.journal),
            skipped=record.skipped,
            llm_calls=m.get("llm_calls", 0),
            llm_tokens=m.get("llm_tokens", 0),
            llm_by_stage=m.get("llm_by_stage", {}),
            llm_failures=m.get("llm_failures", 0),
            llm_failure_kinds=m.get("llm_failure_kinds", {}),
            duration_s=m.get("duration_s", 0.0),
            applied_at=record.applied_at,
            snapshot=m.get("snapshot"),
            rollback_of=m.get("rollback_of"),
        )


class Editor:
    """The slow, thorough half: ``run`` edits one user's graph, ``rollback`` undoes a run."""

    _busy: set[tuple[str, str]] = set()  # (store URL, user) pairs with a run in flight in this process
    _busy_lock = threading.Lock()

    def __init__(
        self,
        store: Store,
        llm: LLM | None = None,
        config: EditorConfig | None = None,
        *,
        snapshot_dir: str | Path | None = None,
        lease_seconds: float = DEFAULT_LEASE_SECONDS,
    ):
        self.store = store
        self.llm = llm
        self.config = config or EditorConfig()
        # Snapshots go where forget() finds them to scrub: DUALMEM_SNAPSHOT_DIR unless given.
        snapshot_dir = snapshot_dir if snapshot_dir is not None else configured_snapshot_dir()
        self.snapshot_dir = Path(snapshot_dir) if snapshot_dir is not None else None
        # How long the user's store lease lasts unless renewed (every third of it while a run
        # lasts): how long a run on a machine that died blocks the user's next run.
        self.lease_seconds = lease_seconds

    # -- edit -------------------------------------------------------------------------------

    def run(
        self, user_id: str, *, dry_run: bool = False, on_stage: Callable[[str], None] | None = None
    ) -> EditorRun:
        """Snapshot, decide in five stages, publish. Returns what was decided and applied.

        ``dry_run`` decides without publishing (the run's ``stages`` hold every decision);
        ``on_stage(name)`` is called as each stage starts, for progress displays.
        """
        check_user_id(user_id)
        with self._exclusive(user_id) as lease:
            started_at = utcnow()
            run_id = new_run_id()
            with collector_paused():  # the view's indexes are millions of objects too
                view = GraphView(self.store.export_graph(user_id))
            with _snapshot_frozen():
                return self._edit(view, run_id, started_at, lease, dry_run, on_stage)

    def _edit(self, view: GraphView, run_id: str, started_at: datetime, lease: HeldLease, dry_run: bool,
              on_stage: Callable[[str], None] | None) -> EditorRun:
        """``run`` after the snapshot: save it, decide, publish (or only decide, for a dry run)."""
        user_id = view.user_id
        snapshot = None if dry_run else self._save_snapshot(view, run_id)
        judge = Judge(self.llm)
        results = run_all(view, self.config, judge, on_stage)
        failure_kinds = dict(judge.failure_kinds)
        if dry_run:
            return EditorRun(
                run_id,
                user_id,
                counts={r.stage: r.counts() for r in results},
                llm_calls=sum(r.llm_calls for r in results),
                llm_tokens=sum(r.llm_tokens for r in results),
                llm_failures=sum(r.llm_failures for r in results),
                llm_failure_kinds=failure_kinds,
                duration_s=_seconds_since(started_at),
                stages=results,
            )
        return self._publish(view, results, run_id, started_at, snapshot, lease, failure_kinds)

    def publish(
        self,
        view: GraphView,
        results: list[StageResult],
        run_id: str,
        *,
        started_at: datetime | None = None,
        snapshot: str | None = None,
        changes: ch.ChangeSet | None = None,
    ) -> EditorRun:
        """Apply the stages' combined change set in one transaction (or nothing, if empty).

        For stages run elsewhere (Dagster's assets): ``started_at`` is when the run's snapshot
        was taken, so the recorded duration covers the whole run; ``changes`` is the change set
        already combined from ``results`` (the one the pipeline's checks examined), applied as
        it is instead of being combined again.
        """
        with self._exclusive(view.user_id) as lease:
            return self._publish(view, results, run_id, started_at, snapshot, lease, changes=changes)

    def _publish(
        self,
        view: GraphView,
        results: list[StageResult],
        run_id: str,
        started_at: datetime | None,
        snapshot: str | None,
        lease: HeldLease,
        failure_kinds: dict[str, int] | None = None,  # by kind, when the stages ran here
        changes: ch.ChangeSet | None = None,
    ) -> EditorRun:
        if changes is None:
            changes = combine(view, results, run_id)
        elif changes.run_id != run_id or changes.user_id != view.user_id:
            raise InvalidInput(f"the change set is run {changes.run_id} of user {changes.user_id}, "
                               f"not run {run_id} of user {view.user_id}")
        if len(changes.operations) > self.config.max_operations:
            raise InvalidInput(
                f"run {run_id} has {len(changes.operations)} operations, more than "
                f"max_operations={self.config.max_operations}; raise it in EditorConfig"
            )
        run = EditorRun(
            run_id,
            view.user_id,
            counts={r.stage: r.counts() for r in results},
            llm_calls=sum(r.llm_calls for r in results),
            llm_tokens=sum(r.llm_tokens for r in results),
            llm_by_stage={r.stage: {"calls": r.llm_calls, "tokens": r.llm_tokens} for r in results},
            llm_failures=sum(r.llm_failures for r in results),
            llm_failure_kinds=failure_kinds or {},
            snapshot=snapshot,
            stages=results,
        )
        if changes.operations:
            changes.meta = {
                "kind": "edit",
                "counts": run.counts,
                "llm_calls": run.llm_calls,
                "llm_tokens": run.llm_tokens,
                "llm_by_stage": run.llm_by_stage,
                "llm_failures": run.llm_failures,
                "llm_failure_kinds": run.llm_failure_kinds,
                "snapshot": snapshot,
                "touched": _touched(results),
            }
            if started_at is not None:
                changes.meta["duration_s"] = _seconds_since(started_at)
            lease.confirm()  # still ours: no other run took over while this one stalled
            _search_texts_as_stored(self.store, changes)
            receipt = self.store.apply_changes(changes, on_conflict="skip")
            run.operations, run.applied_at = receipt.applied, receipt.applied_at
            run.skipped = [{"index": s.index, "group": s.group, "reason": s.reason} for s in receipt.skipped]
        if started_at is not None:
            run.duration_s = _seconds_since(started_at)
        return run

    # -- undo -------------------------------------------------------------------------------

    def rollback(self, run_id: str, *, user_id: str | None = None, cascade: bool = False) -> EditorRun:
        """Undo one run exactly, keeping everything the Writer wrote since.

        Refuses (``ConflictError``) when a later run that is still applied touched the same
        memories or entities, unless ``cascade`` rolls those back first, newest first.
        Rolling back a run twice is a no-op that returns the first rollback.
        """
        check_id(run_id, "run_id")
        user_id = check_user_id(user_id) if user_id is not None else self._owner_of(run_id)
        with self._exclusive(user_id):
            return self._rollback(user_id, run_id, cascade)

    def _rollback(self, user_id: str, run_id: str, cascade: bool) -> EditorRun:
        record = self.store.get_run(user_id, run_id)
        if record.meta.get("kind") == "rollback":
            raise InvalidInput(f"{run_id} is itself a rollback; roll back runs, not rollbacks")
        runs = self.store.list_runs(user_id)
        undone = {r.meta.get("rollback_of"): r for r in runs if r.meta.get("kind") == "rollback"}
        if run_id in undone:
            return EditorRun.from_record(undone[run_id])
        touched = set(record.meta.get("touched", ()))
        later = [
            r
            for r in runs
            if r.meta.get("kind", "edit") == "edit"
            and r.run_id not in undone
            and (r.applied_at, r.run_id) > (record.applied_at, record.run_id)
            and touched & set(r.meta.get("touched", ()))
        ]
        if later and not cascade:
            raise ConflictError(
                f"cannot roll back {run_id}: later runs {', '.join(r.run_id for r in later)} "
                "changed the same memories; roll those back first or pass cascade=True"
            )
        for newer in sorted(later, key=lambda r: (r.applied_at, r.run_id), reverse=True):
            self._rollback(user_id, newer.run_id, cascade=True)
        started = time.perf_counter()
        inverse = ch.ChangeSet(
            user_id,
            f"rollback-{run_id}",
            _inverse(record),
            meta={"kind": "rollback", "rollback_of": run_id, "touched": sorted(touched)},
        )
        # The run's own groups: a decision is undone whole or, if part of it was forgotten since,
        # skipped whole (a rollback removes and reopens; it never brings forgotten data back).
        receipt = self.store.apply_changes(inverse, on_conflict="skip")
        inverse.meta["duration_s"] = round(time.perf_counter() - started, 3)
        return EditorRun(
            inverse.run_id,
            user_id,
            kind="rollback",
            operations=receipt.applied,
            skipped=[{"index": s.index, "group": s.group, "reason": s.reason} for s in receipt.skipped],
            applied_at=receipt.applied_at,
            rollback_of=run_id,
            duration_s=inverse.meta["duration_s"],
        )

    def runs(self, user_id: str) -> list[EditorRun]:
        """Every published run and rollback of a user, oldest first."""
        check_user_id(user_id)
        return [EditorRun.from_record(r) for r in self.store.list_runs(user_id)]

    # -- helpers ----------------------------------------------------------------------------

    def _owner_of(self, run_id: str) -> str:
        for user_id in self.store.list_users():
            try:
                self.store.get_run(user_id, run_id)
                return user_id
            except NotFound:
                continue
        raise NotFound(f"no Editor run {run_id!r} for any user in {self.store.url}; see Editor.runs(user_id)")

    def _save_snapshot(self, view: GraphView, run_id: str) -> str | None:
        if self.snapshot_dir is None:
            return None
        folder = write_snapshot(self.snapshot_dir / view.user_id / run_id, view.graph, self.store.dimension)
        return str(folder)

    def _exclusive(self, user_id: str):
        return _UserLock(self, user_id)


class _UserLock:
    """One Editor run per user at a time: refused at once in this process, and through the
    user's lease in the store (store/lease.py) for runs in other processes or on other hosts.

    Keyed by the store's URL, not the store object: two stores opened on one database (two
    frontends in one process, say) must not edit the same user at once either.
    """

    def __init__(self, editor: Editor, user_id: str):
        self.editor = editor
        self.key = (editor.store.url, user_id)
        self.lease: HeldLease | None = None

    def __enter__(self) -> HeldLease:
        with Editor._busy_lock:
            if self.key in Editor._busy:
                raise ConflictError(
                    f"an Editor run for user {self.key[1]!r} is already in progress; wait for it to finish"
                )
            Editor._busy.add(self.key)
        try:
            self.lease = HeldLease(self.editor.store, self.key[1], self.editor.lease_seconds)
        except BaseException:
            self._unmark()
            raise
        return self.lease

    def __exit__(self, *exc: object) -> None:
        try:
            if self.lease is not None:
                self.lease.release()
        finally:
            self._unmark()

    def _unmark(self) -> None:
        with Editor._busy_lock:
            Editor._busy.discard(self.key)


@contextmanager
def _snapshot_frozen() -> Iterator[None]:
    """The snapshot's objects stay out of the collector's passes while the stages run: they live
    as long as the run and form no cycles, and a full pass otherwise rescans all of them each
    time the stages have made enough objects, which made the passes cost as much as the store
    (0.2 s each at 21k memories, 9 of them; issue 37). The process's other objects are frozen
    with them until the run ends (``gc.freeze`` is process-wide): they are still freed by
    reference counting, only their cycles wait for the end of the run."""
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


def _seconds_since(moment: datetime) -> float:
    return round((utcnow() - moment).total_seconds(), 3)


def new_run_id() -> str:
    if _models._sequence is not None:  # reproducible ids: the run's derived ids follow from it
        return _models.new_id("run")
    return f"run-{utcnow():%Y%m%dT%H%M%S}-{uuid.uuid4().hex[:8]}"


def _search_texts_as_stored(store: Store, changes: ch.ChangeSet) -> None:
    """A new version keeps a search text only if its memory holds that one in the store now: the
    snapshot's copy may hold a message forgotten while the run decided (the store reset every
    search text holding it), and publishing the copy would bring the message back."""
    adds = [op.version for op in changes.operations
            if isinstance(op, ch.AddVersion) and op.version.search_text is not None]
    if not adds:
        return
    stored = store.get_versions(changes.user_id, sorted({v.memory_id for v in adds}), all_versions=True,
                                embeddings=False)
    held = {(v.memory_id, v.search_text) for v in stored}
    for version in adds:
        if (version.memory_id, version.search_text) not in held:
            version.search_text = None
