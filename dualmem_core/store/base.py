"""The one narrow interface the Writer and the Editor use, whatever the backend.

Public methods validate their input here, once, and then call the backend's ``_`` method, so
both backends refuse bad input with the same errors. Logic (scoring, decisions) lives above
this layer; a store only stores, filters and searches.
"""

from __future__ import annotations

import gc
from abc import abstractmethod
from collections import defaultdict
from collections.abc import Iterable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager, nullcontext
from datetime import datetime

import numpy as np

from ..errors import ConflictError, InvalidInput, SourceIdTaken, TenantViolation
from ..timeutil import require_aware, utcnow
from . import changes as ch
from .backend import Backend
from .forgetting import ForgetReceipt
from .lease import Lease, check_ttl
from .models import (
    EDGE_ENDPOINTS,
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
    normalize_text,
)
from .planning import validate_changes
from .query import observations, query_terms
from .validate import (
    check_batch,
    check_filter,
    check_k,
    check_stored_user_id,
    check_text,
    check_user_id,
    check_vector,
)

DEFAULT_DIMENSION = 384  # all-MiniLM-L6-v2, the offline sentence embedder


class Store(Backend):
    """A bitemporal memory graph for many users, each isolated from the others."""

    url: str
    dimension: int
    created: bool = False  # this open made a new, empty store (see open_store's create)

    # -- writes ---------------------------------------------------------------------------

    def write(self, batch: WriteBatch) -> None:
        """Write one user's new records in one transaction: all of them or none."""
        if batch.is_empty():
            return
        user_id = check_batch(batch, self.dimension)
        try:
            self._write(user_id, batch)
        except ConflictError:
            clash = self._source_clash(user_id, batch)
            if clash is None:
                raise
            raise clash from None

    def _source_clash(self, user_id: str, batch: WriteBatch) -> SourceIdTaken | None:
        """After a refused write: the (user, source id) pairs of its episodes that another stored
        episode holds. The store's unique (user, source id) key refused it, not a read before the
        write, so of concurrent writers under one source id exactly one wins; only a refused
        write pays for this look-up (by then the winner has committed)."""
        mine = {e.source_id: e.id for e in batch.episodes if e.source_id is not None}
        if not mine:
            return None
        taken = {e.source_id: e.text for e in self._episodes_by_source(user_id, list(mine))
                 if e.source_id is not None and e.id != mine[e.source_id]}
        return SourceIdTaken(user_id, taken) if taken else None

    def set_vectors(self, user_id: str, vectors: dict[str, Iterable[float]],
                    edges: Sequence[Edge] = ()) -> list[str]:
        """Give versions stored without a vector (``versions_without_vector``) their vector, and
        add ``edges`` (the SIMILAR_TO links of their memories), in one transaction.

        A version that has a vector by now (another writer was first), is gone, or is another
        user's is skipped, and so are the edges that start at its memory; returns the ids of
        the versions given a vector. Vectors are the Writer's background embedding
        (``writer/embed_queue.py``): a remember stores its memories first, their vectors later.
        """
        check_user_id(user_id)
        if not vectors:
            return []
        rows = {check_text(vid, "version id"): check_vector(v, self.dimension) for vid, v in vectors.items()}
        edges = list(edges)
        if edges:
            if check_batch(WriteBatch(edges=edges), self.dimension) != user_id:
                raise TenantViolation(f"edges of another user in a write of user {user_id!r}")
        return self._set_vectors(user_id, rows, edges)

    def apply_changes(self, changes: ch.ChangeSet, *, on_conflict: str = "raise") -> ch.ChangeReceipt:
        """Apply an Editor run's change set atomically; applying the same run again is a no-op."""
        validate_changes(changes, self.dimension)
        return self._apply_changes(changes, on_conflict)

    def record_access(self, user_id: str, memory_ids: Sequence[str], at: datetime | None = None) -> None:
        """Count a recall of these memories (feeds salience); unknown ids are ignored."""
        check_user_id(user_id)
        at = utcnow() if at is None else require_aware(at, "at")
        if memory_ids:
            self._record_access(user_id, list(dict.fromkeys(memory_ids)), at)

    def import_graph(self, graph: UserGraph, *, replace: bool = False) -> None:
        """Write a whole exported graph back; with ``replace`` the user's current graph goes first."""
        check_user_id(graph.user_id)
        batch = graph.as_batch()
        if not batch.is_empty():
            if batch.user_ids() != {graph.user_id}:
                others = sorted(batch.user_ids() - {graph.user_id})
                raise TenantViolation(f"the graph of user {graph.user_id!r} holds records of {others}")
            check_batch(batch, self.dimension)
        self._import_graph(graph.user_id, batch, replace)

    def forget(self, user_id: str, *, source_ids: Sequence[str] = (), episode_ids: Sequence[str] = (),
               memory_ids: Sequence[str] = ()) -> ForgetReceipt:
        """Delete episodes (by the caller's source ids or by id) and what came only from them,
        and the given memories, with every version, edge and index entry; returns a receipt.

        Memories that also came from other episodes lose only that provenance. Entities that
        only deleted memories mentioned go too, and run journals forget the deleted ids.
        """
        check_stored_user_id(user_id)
        for name, ids in (("source_ids", source_ids), ("episode_ids", episode_ids),
                          ("memory_ids", memory_ids)):
            if isinstance(ids, str) or not all(isinstance(i, str) and i for i in ids):
                raise InvalidInput(f"{name} must be a list of non-empty strings, got {ids!r}")
        if not (source_ids or episode_ids or memory_ids):
            return ForgetReceipt(user_id)
        return self._forget(user_id, list(source_ids), list(episode_ids), list(memory_ids))

    def delete_user(self, user_id: str) -> dict[str, int]:
        """Delete everything stored for one user; returns how many records of each kind went."""
        return self._delete_user(check_stored_user_id(user_id))

    # -- reads ----------------------------------------------------------------------------

    def reading(self) -> AbstractContextManager[None]:
        """A block of reads that may share one read transaction (on Neo4j: a round trip per read
        instead of a session and a transaction each). Write nothing inside it."""
        return nullcontext()

    def vector_search(self, vector: Iterable[float], flt: SearchFilter, k: int = 10) -> list[SearchHit]:
        """Top-k versions by cosine similarity among those the filter admits.

        Hits of every search leave ``version.embedding`` as None; ``get_versions`` has it.
        """
        query = check_vector(vector, self.dimension, "query vector")
        return self._vector_search(query / np.linalg.norm(query), check_filter(flt), check_k(k))

    def hybrid_search(self, vector: Iterable[float], query: str, flt: SearchFilter, k: int = 10, *,
                      cues: str = "") -> tuple[list[SearchHit], list[SearchHit], list[SearchHit]]:
        """``vector_search`` and ``text_search`` (empty for a query without words) together:
        what recall asks for, in one round trip where the backend can. ``cues``: words for a
        third list, the text search of them over observations only (recall's cue list, for
        the words a question's facts are stated in); empty without them."""
        check_text(query, "query", empty="there is nothing to search for")
        vector = check_vector(vector, self.dimension, "query vector")
        return self._hybrid_search(vector / np.linalg.norm(vector), query_terms(query),
                                   check_filter(flt), check_k(k), query_terms(cues) if cues else [])

    def _hybrid_search(self, unit_query: np.ndarray, terms: list[str], flt: SearchFilter, k: int,
                       cues: list[str]) -> tuple[list[SearchHit], list[SearchHit], list[SearchHit]]:
        return (self._vector_search(unit_query, flt, k), self._text_search(terms, flt, k) if terms else [],
                self._text_search(cues, observations(flt), k) if cues else [])

    def nearest_memories(self, user_id: str, vectors: Sequence[Iterable[float]], k: int,
                         min_score: float) -> list[list[tuple[str, float]]]:
        """For each vector, up to k (memory id, cosine) of the user's current memories scoring at
        least ``min_score``, best first: one pass for a whole batch (the Writer's SIMILAR_TO links).

        From a scan of the user's vectors cached in this process: exact up to 20k vectors; past
        that both stores search the groups nearest each vector (``store/clusters.py``: 99% of a
        full scan's links on the writer benchmark).
        """
        check_user_id(user_id)
        if not vectors:
            return []
        rows = [check_vector(v, self.dimension, "vector") for v in vectors]
        unit = np.stack([r / np.linalg.norm(r) for r in rows])
        return self._nearest_memories(user_id, unit, check_k(k), float(min_score))

    def text_search(self, query: str, flt: SearchFilter, k: int = 10) -> list[SearchHit]:
        """Top-k versions by BM25 over their text among those the filter admits."""
        check_text(query, "query", empty="there is nothing to search for")
        terms = query_terms(query)
        if not terms:
            return []
        return self._text_search(terms, check_filter(flt), check_k(k))

    def entity_neighbours(self, user_id: str, memory_ids: Sequence[str], *,
                          max_entity_degree: int = 50, limit: int = 50) -> list[Neighbour]:
        """Memories sharing an entity with the seeds, skipping hub entities; most shared first."""
        check_user_id(user_id)
        if not memory_ids:
            return []
        return self._entity_neighbours(user_id, list(memory_ids), max_entity_degree, limit)

    def expand(self, flt: SearchFilter, seeds: Sequence[str], known: Iterable[str], *,
               max_entity_degree: int = 50, limit: int = 50) -> tuple[list[Neighbour], list[Memory],
                                                                      list[MemoryVersion]]:
        """Recall's one hop: ``entity_neighbours`` of the seeds, and for the neighbours not in
        ``known`` their memories and their versions believed at ``flt.known_at`` (without
        vectors). One round trip where the backend can."""
        check_filter(flt)
        if not seeds:
            return [], [], []
        return self._expand(flt.user_id, list(seeds), set(known), flt.known_at, max_entity_degree, limit)

    def _expand(self, user_id: str, seeds: list[str], known: set[str], known_at: datetime | None,
                max_entity_degree: int, limit: int) -> tuple[list[Neighbour], list[Memory],
                                                             list[MemoryVersion]]:
        neighbours = self._entity_neighbours(user_id, seeds, max_entity_degree, limit)
        new_ids = [n.memory_id for n in neighbours if n.memory_id not in known]
        if not new_ids:
            return neighbours, [], []
        return (neighbours, self._get_memories(user_id, new_ids),
                self._get_versions(user_id, new_ids, known_at, False, False))

    def get_memories(self, user_id: str, ids: Sequence[str]) -> list[Memory]:
        return self._get_memories(check_user_id(user_id), list(ids)) if ids else []

    def get_episodes(self, user_id: str, ids: Sequence[str]) -> list[Episode]:
        return self._get_episodes(check_user_id(user_id), list(ids)) if ids else []

    def sources_of(self, user_id: str, memory_ids: Sequence[str]) -> dict[str, list[str]]:
        """Source ids (the episode id when it has none) of the episodes each memory currently
        comes from (open FROM edges), in the order they were said."""
        check_user_id(user_id)
        return self._sources_of(user_id, list(dict.fromkeys(memory_ids))) if memory_ids else {}

    def _sources_of(self, user_id: str, memory_ids: list[str]) -> dict[str, list[str]]:
        edges = self.get_edges(user_id, node_ids=memory_ids, types=[EdgeType.FROM])
        episodes = {e.id: e for e in self.get_episodes(user_id, list({e.dst_id for e in edges}))}
        wanted, found = set(memory_ids), defaultdict(list)
        for edge in edges:
            episode = episodes.get(edge.dst_id)
            if episode is not None and edge.src_id in wanted:
                found[edge.src_id].append((episode.observed_at, episode.source_id or episode.id))
        return {m: [s for _, s in sorted(pairs)] for m, pairs in found.items()}

    def episodes_by_source(self, user_id: str, source_ids: Sequence[str]) -> list[Episode]:
        """Episodes stored under the caller's source ids (several may share one)."""
        check_user_id(user_id)
        return self._episodes_by_source(user_id, list(dict.fromkeys(source_ids))) if source_ids else []

    def get_versions(self, user_id: str, memory_ids: Sequence[str], *, known_at: datetime | None = None,
                     all_versions: bool = False, embeddings: bool = True) -> list[MemoryVersion]:
        """Versions of these memories believed at ``known_at`` (now), or every version ever.

        ``embeddings=False`` leaves the vectors out, which is much cheaper over Bolt.
        """
        check_user_id(user_id)
        if known_at is not None:
            known_at = require_aware(known_at, "known_at")
        if not memory_ids:
            return []
        return self._get_versions(user_id, list(memory_ids), known_at, all_versions, embeddings)

    def get_edges(self, user_id: str, *, node_ids: Sequence[str] | None = None,
                  types: Sequence[EdgeType] | None = None, known_at: datetime | None = None,
                  all_versions: bool = False) -> list[Edge]:
        """Edges touching ``node_ids`` (or all of the user's), open at ``known_at`` (now)."""
        check_user_id(user_id)
        if known_at is not None:
            known_at = require_aware(known_at, "known_at")
        if node_ids is not None and not node_ids:
            return []
        kinds = [EdgeType(t) for t in types] if types else None
        return self._get_edges(user_id, list(node_ids) if node_ids is not None else None,
                               kinds, known_at, all_versions)

    def find_by_content_hash(self, user_id: str, hashes: Sequence[str]) -> list[MemoryVersion]:
        """Current versions whose normalised text hashes to one of ``hashes`` (exact duplicates)."""
        check_user_id(user_id)
        return self._find_by_content_hash(user_id, list(hashes)) if hashes else []

    def versions_without_vector(self, user_id: str | None = None, *,
                                limit: int = 1000) -> list[MemoryVersion]:
        """Up to ``limit`` current versions (open in transaction time) stored without a vector,
        of one user or of every user (None), oldest first: what a Writer whose process ended
        before its background embedding finished left to embed (``writer/embed_queue.py``)."""
        if user_id is not None:
            check_stored_user_id(user_id)
        return self._versions_without_vector(user_id, check_k(limit))

    def find_entities(self, user_id: str, names: Sequence[str]) -> list[Entity]:
        """Entities whose name or an alias equals one of ``names``, ignoring case and spacing."""
        check_user_id(user_id)
        keys = sorted({normalize_text(n) for n in names if isinstance(n, str) and n.strip()})
        return self._find_entities(user_id, keys) if keys else []

    def list_facts(self, flt: SearchFilter, *, predicates: Sequence[str] | None = None,
                   limit: int = 1000) -> list[SearchHit]:
        """Versions with a structured predicate that the filter admits, latest valid_from first.

        Unranked (score 0): what a profile or an Editor stage reads, not a search.
        """
        check_filter(flt)
        return self._list_facts(flt, list(predicates) if predicates else None, check_k(limit))

    def memory_owner(self, memory_id: str) -> str:
        """The user a memory belongs to (ids are unguessable, so holding one is the capability)."""
        check_text(memory_id, "memory_id")
        return self._memory_owner(memory_id)

    def export_graph(self, user_id: str) -> UserGraph:
        """Every record of one user, open and closed: the input of a snapshot.

        Whole even while others write: a backend may read record kinds one after another (Neo4j
        reads at read-committed), so a version or edge whose ends were committed after their
        kind was read is left out; it belongs to the next snapshot.
        """
        with collector_paused():
            return whole(self._export_graph(check_stored_user_id(user_id)))

    def get_run(self, user_id: str, run_id: str) -> ch.RunRecord:
        return self._get_run(check_user_id(user_id), run_id)

    def list_runs(self, user_id: str) -> list[ch.RunRecord]:
        return self._list_runs(check_user_id(user_id))

    def counts(self, user_id: str) -> dict[str, int]:
        """How many records of each kind one user has (all versions and edges included)."""
        return self._counts(check_stored_user_id(user_id))

    # -- Editor leases (lease.py: one Editor run per user, across processes) ---------------

    def acquire_lease(self, user_id: str, owner: str, seconds: float) -> Lease:
        """Take or renew the user's Editor lease for ``seconds``; ``ConflictError`` if another
        live holder has it. ``delete_user`` clears it."""
        check_text(owner, "owner")
        check_ttl(seconds)
        return self._acquire_lease(check_user_id(user_id), owner, seconds)

    def release_lease(self, user_id: str, owner: str) -> None:
        """Give the lease back if ``owner`` still holds it."""
        self._release_lease(check_user_id(user_id), owner)

    @abstractmethod
    def list_users(self) -> list[str]:
        """Every user with at least one record, sorted."""

    @abstractmethod
    def close(self) -> None: ...

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


@contextmanager
def collector_paused() -> Iterator[None]:
    """No cycle collection while a whole graph is read: an export makes millions of records and
    no cycles, and each full pass of the collector rescans every object alive, the records made
    so far too, so the passes cost more than the records (issue 37). Process-wide for its
    duration: another thread's cycles wait for it."""
    was_on = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_on:
            gc.enable()


def whole(graph: UserGraph) -> UserGraph:
    """``graph`` without versions whose memory, or edges whose ends, it does not hold."""
    nodes = {"memory": {m.id for m in graph.memories}, "episode": {e.id for e in graph.episodes},
             "entity": {e.id for e in graph.entities}}
    graph.versions = [v for v in graph.versions if v.memory_id in nodes["memory"]]
    # Each edge type's two id sets, looked up once by the type as stored (a StrEnum hashes as
    # its text): an Enum call per edge was a sixth of an export's Python time at 20k memories.
    ends = {t: (nodes[src], nodes[dst]) for t, (src, dst) in EDGE_ENDPOINTS.items()}
    graph.edges = [e for e in graph.edges if e.src_id in ends[e.type][0] and e.dst_id in ends[e.type][1]]
    return graph


def duplicates_warning(where: object, found: list) -> str:
    """What to do about a store whose episodes already repeat a (user, source id)."""
    shown = ", ".join(f"user {u!r} source id {s!r} ({n} messages)" for u, s, n in found)
    more = ", ..." if len(found) >= 5 else ""
    return (f"{where} holds several messages under one source id ({shown}{more}), "
            "stored before the store enforced one message per source id; it is opened without "
            "that rule, so concurrent retries can store more copies. Keep one of each: "
            "forget the others by episode id (store.forget(user, episode_ids=[...])), or forget "
            "the source id and remember it again; the next open then enforces the rule")
