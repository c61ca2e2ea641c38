"""What each backend supplies (its primitives), and the steps written once over them.

``Store`` (base.py) is the interface the Writer and the Editor call: it validates its input and
calls the ``_`` methods declared here. A multi-step operation that both backends take in the same
order (a change set: plan, apply, record; a forget: select, delete, redact) is written here once
as a template; each backend supplies only its own statements for the steps.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import asdict
from datetime import datetime
from typing import Any, TypeVar

import numpy as np

from ..timeutil import utcnow
from . import changes as ch
from .forgetting import ForgetReceipt, absent_ids, redact_run, select_forgotten
from .lease import Lease
from .models import (
    Edge,
    EdgeType,
    Entity,
    Episode,
    Memory,
    MemoryVersion,
    Neighbour,
    SearchFilter,
    SearchHit,
    UserGraph,
    WriteBatch,
)
from .planning import Ref, TargetState, change_refs, plan_changes

T = TypeVar("T")


class Backend(ABC):
    """The statements a backend runs; ``Store`` adds the public, validating methods."""

    # -- steps both backends take in the same order (each supplies its own statements) ------

    def _apply_changes(self, changes: ch.ChangeSet, on_conflict: str) -> ch.ChangeReceipt:
        """A change set, once: a run already recorded answers as it was; otherwise its plan,
        made against the state of what it references, is applied and the run recorded (with
        ids the plan found absent redacted), all in one write transaction."""
        now = utcnow()

        def work(tx: Any) -> ch.ChangeReceipt:
            receipt = ch.ChangeReceipt(changes.run_id, changes.user_id, applied_at=now)
            done = self._run_applied_at(tx, changes)
            if done is not None:
                receipt.already_applied, receipt.applied_at = True, done
                return receipt
            refs = change_refs(changes)
            state = self._change_state(tx, refs)
            plan = plan_changes(changes, state, now, on_conflict)
            self._apply_operations(tx, changes.user_id, plan.operations, state, now)
            record = redact_run(plan.journal, [asdict(s) for s in plan.skipped], changes.meta,
                                absent_ids(refs, state, plan.journal))
            self._record_run(tx, changes, now, record)
            receipt.applied, receipt.skipped = len(plan.operations), plan.skipped
            return receipt

        receipt = self._in_write(work)
        if not receipt.already_applied:
            self._changed(changes.user_id)
        return receipt

    def _forget(self, user_id: str, source_ids: list[str], episode_ids: list[str],
                memory_ids: list[str]) -> ForgetReceipt:
        """Select what goes (``forgetting.select_forgotten``), delete it, then redact the
        forgotten ids from the user's Editor runs, in one write transaction."""
        def work(tx: Any) -> ForgetReceipt:
            episodes, explicit = self._forget_targets(tx, user_id, source_ids, episode_ids, memory_ids)
            memories, entities, kept = select_forgotten(episodes, explicit, self._edge_pairs(tx, user_id))
            receipt = ForgetReceipt(user_id, sorted(episodes), sorted(memories), sorted(entities),
                                    kept_memory_ids=sorted(kept), source_ids=sorted(set(source_ids)))
            self._delete_forgotten(tx, receipt)
            self._redact_runs(tx, user_id, receipt.deleted_ids)
            self._forget_finish(tx, user_id)
            return receipt

        receipt = self._in_write(work)
        self._forgotten(user_id)
        return receipt

    def _changed(self, user_id: str) -> None:
        """After a committed change set: what the store keeps in process for the user is no
        longer current (nothing by default)."""
        return None

    def _forgotten(self, user_id: str) -> None:
        """After a committed forget (nothing by default)."""
        return None

    def _forget_finish(self, tx: Any, user_id: str) -> None:
        """The last statements of a forget's transaction, after the runs are redacted."""
        return None

    @abstractmethod
    def _in_write(self, work: Callable[[Any], T]) -> T:
        """``work(tx)`` in one write transaction, committed; its result."""
    @abstractmethod
    def _run_applied_at(self, tx: Any, changes: ch.ChangeSet) -> datetime | None: ...
    @abstractmethod
    def _change_state(self, tx: Any, refs: set[Ref]) -> dict[Ref, TargetState]: ...
    @abstractmethod
    def _apply_operations(self, tx: Any, user_id: str, ops: list[ch.Operation],
                          state: dict[Ref, TargetState], now: datetime) -> None: ...
    @abstractmethod
    def _record_run(self, tx: Any, changes: ch.ChangeSet, now: datetime, record: tuple) -> None: ...
    @abstractmethod
    def _forget_targets(self, tx: Any, user_id: str, source_ids: list[str], episode_ids: list[str],
                        memory_ids: list[str]) -> tuple[set[str], set[str]]: ...
    @abstractmethod
    def _edge_pairs(self, tx: Any, user_id: str) -> Callable[[str, str, set[str]], list[tuple[str, str]]]: ...
    @abstractmethod
    def _delete_forgotten(self, tx: Any, receipt: ForgetReceipt) -> None: ...
    @abstractmethod
    def _redact_runs(self, tx: Any, user_id: str, deleted_ids: set[str]) -> None: ...

    # -- backend primitives ---------------------------------------------------------------

    @abstractmethod
    def _write(self, user_id: str, batch: WriteBatch) -> None: ...
    @abstractmethod
    def _set_vectors(self, user_id: str, vectors: dict[str, np.ndarray], edges: list[Edge]) -> list[str]:
        """Vectors onto the user's versions that have none (and the edges starting at their
        memories), in one write transaction; the ids of the versions set."""
    @abstractmethod
    def _versions_without_vector(self, user_id: str | None, limit: int) -> list[MemoryVersion]: ...
    @abstractmethod
    def _record_access(self, user_id: str, memory_ids: list[str], at: datetime) -> None: ...
    @abstractmethod
    def _import_graph(self, user_id: str, batch: WriteBatch, replace: bool) -> None: ...
    @abstractmethod
    def _delete_user(self, user_id: str) -> dict[str, int]: ...
    @abstractmethod
    def _vector_search(self, unit_query: np.ndarray, flt: SearchFilter, k: int) -> list[SearchHit]: ...
    @abstractmethod
    def _text_search(self, terms: list[str], flt: SearchFilter, k: int) -> list[SearchHit]: ...
    @abstractmethod
    def _nearest_memories(self, user_id: str, unit: np.ndarray, k: int,
                          min_score: float) -> list[list[tuple[str, float]]]: ...
    @abstractmethod
    def _entity_neighbours(self, user_id: str, memory_ids: list[str], max_entity_degree: int,
                           limit: int) -> list[Neighbour]: ...
    @abstractmethod
    def _get_memories(self, user_id: str, ids: list[str]) -> list[Memory]: ...
    @abstractmethod
    def _get_episodes(self, user_id: str, ids: list[str]) -> list[Episode]: ...
    @abstractmethod
    def _episodes_by_source(self, user_id: str, source_ids: list[str]) -> list[Episode]: ...
    @abstractmethod
    def _get_versions(self, user_id: str, memory_ids: list[str], known_at: datetime | None,
                      all_versions: bool, embeddings: bool) -> list[MemoryVersion]: ...
    @abstractmethod
    def _get_edges(self, user_id: str, node_ids: list[str] | None, types: list[EdgeType] | None,
                   known_at: datetime | None, all_versions: bool) -> list[Edge]: ...
    @abstractmethod
    def _find_by_content_hash(self, user_id: str, hashes: list[str]) -> list[MemoryVersion]: ...
    @abstractmethod
    def _export_graph(self, user_id: str) -> UserGraph: ...
    @abstractmethod
    def _find_entities(self, user_id: str, keys: list[str]) -> list[Entity]: ...
    @abstractmethod
    def _list_facts(self, flt: SearchFilter, predicates: list[str] | None, limit: int) -> list[SearchHit]: ...
    @abstractmethod
    def _memory_owner(self, memory_id: str) -> str: ...
    @abstractmethod
    def _get_run(self, user_id: str, run_id: str) -> ch.RunRecord: ...
    @abstractmethod
    def _list_runs(self, user_id: str) -> list[ch.RunRecord]: ...
    @abstractmethod
    def _counts(self, user_id: str) -> dict[str, int]: ...
    @abstractmethod
    def _acquire_lease(self, user_id: str, owner: str, seconds: float) -> Lease: ...
    @abstractmethod
    def _release_lease(self, user_id: str, owner: str) -> None: ...
