"""A client-side copy of each user's current vectors: the Writer's SIMILAR_TO neighbours and
recall's vector ranking of current versions.

Asking the HNSW index for every new memory's neighbours cost seconds per 50-message batch (one
index walk per vector, then a user filter that throws most hits away); one matrix product over
the user's own vectors costs milliseconds and is exact.

Staying correct with other writers (threads or processes): every write that adds, closes or
reopens a version of a user bumps ``seq`` on that user's ``UserClock`` node and stamps those
versions with it; a write that deletes versions also gives the clock a new random ``epoch``.
The clock node's write lock is held until commit, so a user's seqs commit in order. Before each
use the cache reads the clock (one small query): same epoch and seq, nothing to do; a higher
seq, it fetches the versions stamped after its own seq; another epoch, it reloads the user.
What the Writer links is therefore exact as of that read, like any read before a write.

A one-message ``remember`` at 100k rows scored every row for its one or two vectors. From
``PRUNE_ROWS`` rows on, ``nearest`` for up to ``BOUND_QUERIES`` vectors first bounds every
score from each row's coordinates in the cache's ``HEAD`` principal directions and the length
of the rest (Cauchy-Schwarz on the rest, for unit vectors):

    q . x  <=  q_head . x_head + |q_rest| * |x_rest|

and scores in full only the rows whose bound reaches the threshold: the same rows and scores
as a full scan (the bound is rounded up, so float32 rounding cannot drop a row).

A batch's neighbour search scored every row for every message: at 100k rows a 40 x 100k
product, a large part of a 50-message ``remember``. From ``GROUPED_ROWS`` rows on, every
query looks only in the groups of rows nearest it (``store/clusters.py``, as the embedded store
does), through the same bound: what it finds scores as a full scan would score it, and what it
can miss is a neighbour in a group not searched.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

import neo4j
import numpy as np

from ...timeutil import utcnow
from ..blas import one_thread
from ..lru import LeastRecent
from ..models import Edge, MemoryVersion, WriteBatch
from ..projection import grow, with_rest
from ..vector_index import _SLACK, VectorIndex
from . import rows as R
from .rows import FAR_CYPHER, WRITTEN_ORDER, user_clock

CLOCK_LABEL = "UserClock"
# Locks the user's clock for the rest of the write transaction and returns the new seq.
BUMP_CLOCK = ("MERGE (c:UserClock {user_id: $user}) ON CREATE SET c.seq = 0, c.epoch = randomUUID() "
              "SET c.seq = c.seq + 1")
NEW_EPOCH = "SET c.epoch = randomUUID()"
_WIDE = 64  # rows ranked per query before de-duplicating by memory (widened if too few)
PRUNE_ROWS = 5_000  # below this many rows a full product is cheap: no bound
# A batch's queries each leave different rows (on the benchmark's chat text 2% each, 64% for
# 75 queries together): gathering them took twice the full product, so only a remember of a
# few messages goes through the bound.
BOUND_QUERIES = 3
GROUPED_ROWS = 20_000  # from this many rows on, ``nearest`` searches the nearest groups only
HEAD = 64  # principal coordinates per row for the bound


class UserVectors(VectorIndex):
    """Unit vectors of one user's current versions, with their memory ids."""

    HEAD = HEAD

    def __init__(self, dimension: int, epoch: str | None, seq: int):
        self.epoch, self.seq = epoch, seq
        super().__init__(dimension)
        self.memory_ids: list[str | None] = []
        self.version_ids: list[str | None] = []  # None once the row's version left
        self.row_of: dict[str, int] = {}  # version id -> row
        self.live = np.zeros(0, dtype=bool)
        self.lock = threading.Lock()

    @property
    def rows(self) -> int:
        return len(self.row_of)

    @property
    def size(self) -> int:
        """Rows stored, live or not."""
        return len(self.memory_ids)

    def apply(self, changes: list[tuple[str, str, bool, object]]) -> None:
        """Upsert (version id, memory id, current?, vector) rows; a closed version leaves."""
        added = []
        for version_id, memory_id, current, vector in changes:
            row = self.row_of.pop(version_id, None)
            if row is not None:
                self.live[row], self.memory_ids[row], self.version_ids[row] = False, None, None
            if current and vector is not None:
                added.append((version_id, memory_id, vector))
        if not added:
            return
        start = len(self.memory_ids)
        need = start + len(added)
        capacity = self._grow(need)
        if capacity is not None:
            self.live = grow(self.live, capacity)
        block = np.asarray([v for _, _, v in added], dtype=np.float32)
        norms = np.linalg.norm(block, axis=1, keepdims=True)
        self.matrix[start:need] = block / np.where(norms == 0, 1, norms)
        self.live[start:need] = True
        self._added(start, need)
        for offset, (version_id, memory_id, _) in enumerate(added):
            self.row_of[version_id] = start + offset
            self.memory_ids.append(memory_id)
            self.version_ids.append(version_id)
        if len(self.memory_ids) > 2 * self.rows + 1024:  # mostly dead rows: compact
            self._compact()

    def nearest(self, unit: np.ndarray, k: int, min_score: float) -> list[list[tuple[str, float]]]:
        """For each unit vector, up to k (memory id, cosine) at or above ``min_score``, best first
        (equal scores by memory id); a memory with several current versions counts its best."""
        size = len(self.memory_ids)
        if size == 0:
            return [[] for _ in unit]
        queries = unit.astype(np.float32)
        live = self.live[:size]
        if size >= GROUPED_ROWS and self._fit_bound():
            with one_thread():  # a loop of small products (blas.py)
                return self._nearest_grouped(queries, k, min_score)
        if len(queries) > BOUND_QUERIES or not self._fit_bound():
            # queries x rows: each query's scores contiguous, so finding those above the bar is cheap
            scores = queries @ self.matrix[:size].T
            out = []
            for row in scores:
                found = np.flatnonzero(row >= min_score)
                found = found[live[found]]
                out.append(self._best(found, row[found], k))
            return out
        # Per query: its bound over every row (a sixth of a full product), then full scores
        # for the few rows the bound leaves (about 2% on the benchmark's chat text).
        assert self.basis is not None  # fitted: ``_fit_bound`` was true
        bounds = with_rest(queries, self.basis) @ self.head_t[:, :size]
        out = []
        for query, bound in zip(queries, bounds, strict=True):
            rows = np.flatnonzero((bound >= min_score - _SLACK) & live)
            out.append(self._best(*_above(rows, self.matrix[rows] @ query, min_score), k))
        return out

    def _nearest_grouped(self, queries: np.ndarray, k: int,
                         min_score: float) -> list[list[tuple[str, float]]]:
        """``nearest`` over the rows of each query's nearest groups and those written since the
        groups were sorted, through the bound."""
        size = len(self.memory_ids)
        groups = self._grouped()
        assert self.basis is not None  # fitted: ``_fit_bound`` was true
        rested = with_rest(queries, self.basis)
        probes = groups.probes(rested[:, :HEAD])
        tail = np.arange(groups.sorted_upto, size)  # written since the last sort: searched by all
        tail_bounds = rested @ self.head_t[:, groups.sorted_upto:size]
        live = self.live[:size]
        out = []
        for query, rested_query, probed, tail_bound in zip(queries, rested, probes, tail_bounds, strict=True):
            rows, bound = groups.bounds(rested_query, probed)
            rows, bound = np.concatenate([rows, tail]), np.concatenate([bound, tail_bound])
            keep = (bound >= min_score - _SLACK) & live[rows]
            rows, bound = rows[keep], bound[keep]
            floor = self._floor(query, rows, bound, k)
            if floor > min_score:
                rows = rows[bound >= floor - _SLACK]
            out.append(self._best(*_above(rows, self.matrix[rows] @ query, min_score), k))
        return out

    def _floor(self, query: np.ndarray, rows: np.ndarray, bound: np.ndarray, k: int) -> float:
        """A score the query's k-th best memory reaches: the k-th best of the distinct memories
        among the 2k rows of best bound, scored in full (-inf when they are fewer than k).

        Chat has many near-copies: on the writer benchmark's 100k rows about 1,500 rows of a
        query's groups had a bound above 0.75, and gathering them all to score was most of the
        search. A row whose bound is below the floor cannot change the k best, so only rows
        whose bound reaches it are scored: the answer is the one scoring every row gives."""
        if rows.size <= 2 * k:
            return -np.inf
        picks = np.argpartition(-bound, 2 * k - 1)[: 2 * k]
        best: dict[str, float] = {}
        for row, score in zip(rows[picks].tolist(), (self.matrix[rows[picks]] @ query).tolist(), strict=True):
            memory_id = self.memory_ids[row]
            if memory_id is not None and score > best.get(memory_id, -np.inf):
                best[memory_id] = score
        return sorted(best.values(), reverse=True)[k - 1] if len(best) >= k else -np.inf

    def ranked_versions(self, unit: np.ndarray, n: int) -> tuple[list[tuple[str, float]], bool]:
        """The n current versions closest to one unit vector, as (version id, cosine) best
        first, plus every version tied with the n-th (a cut never splits equal scores); and
        whether that is all of them."""
        size = len(self.version_ids)
        # One thread: a matrix-vector product is too small to share, and on a busy machine
        # BLAS's threads waited for a core (10k rows: p50 6.5 to 32 ms on all threads,
        # 0.6 ms on one, at load average 16 on 2 cores).
        with one_thread():
            scores = self.matrix[:size] @ unit.astype(np.float32)
        live = np.flatnonzero(self.live[:size])
        if live.size > n:
            bar = -np.partition(-scores[live], n - 1)[n - 1]
            picked = live[scores[live] >= bar]
        else:
            picked = live
        ids = self.version_ids
        ranked = sorted(((ids[row], float(scores[row])) for row in picked.tolist()),
                        key=lambda item: (-item[1], item[0]))
        return ranked, picked.size == live.size

    def _best(self, rows: np.ndarray, scores: np.ndarray, k: int,
              wide: int | None = None) -> list[tuple[str, float]]:
        """The k best memories among ``rows`` (with their ``scores``), each at its best version."""
        wide = _WIDE + 4 * k if wide is None else wide
        picked = np.arange(rows.size)
        if rows.size > wide:
            picked = np.argpartition(-scores, wide - 1)[:wide]
        by_memory: dict[str, float] = {}
        for i in picked.tolist():
            memory_id, score = self.memory_ids[rows[i]], float(scores[i])
            if memory_id is not None and score > by_memory.get(memory_id, -np.inf):
                by_memory[memory_id] = score
        if len(by_memory) < k and picked.size < rows.size:  # many versions of a few memories
            return self._best(rows, scores, k, rows.size)
        return sorted(by_memory.items(), key=lambda item: (-item[1], item[0]))[:k]

    def _fit_bound(self) -> bool:
        """Whether ``nearest`` bounds before scoring; (re)fits the principal directions when due."""
        return self._fit_when_due(self.rows, PRUNE_ROWS)

    def _sample_rows(self) -> np.ndarray:
        return np.flatnonzero(self.live[: self.size])

    def _compact(self) -> None:
        keep = np.flatnonzero(self.live[:len(self.memory_ids)])
        self.matrix = self.matrix[keep].copy()
        self.live = np.ones(keep.size, dtype=bool)
        if self.basis is not None:
            self.head_t = self.head_t[:, keep].copy()
        self.groups = None  # its row numbers are gone: grouped again when next needed
        new_row = {old: new for new, old in enumerate(keep.tolist())}
        self.memory_ids = [self.memory_ids[i] for i in keep.tolist()]
        self.version_ids = [self.version_ids[i] for i in keep.tolist()]
        self.row_of = {vid: new_row[row] for vid, row in self.row_of.items()}


class VectorCache:
    """The ``UserVectors`` of the most recently used users, refreshed from the clock."""

    def __init__(self, dimension: int, max_rows: int = 400_000):
        self.dimension = dimension
        self.max_rows = max_rows  # about 600 MB at 384 dimensions; the user in use always stays
        self._users: LeastRecent[str, UserVectors] = LeastRecent(max_weight=max_rows, weigh=_rows)
        self._lock = threading.Lock()

    def entry(self, user_id: str) -> UserVectors:
        with self._lock:
            entry = self._users.get(user_id)
            if entry is None:
                entry = self._users[user_id] = UserVectors(self.dimension, None, -1)
            self._users.trim()  # the others' rows grew since they were put in
            return entry

    def refresh(self, tx: neo4j.ManagedTransaction, user_id: str, entry: UserVectors) -> None:
        """Bring ``entry`` (its lock held) up to date with the store: one query if nothing changed."""
        seq, epoch = user_clock(tx, user_id)
        if epoch == entry.epoch and seq == entry.seq:
            return
        if entry.seq < 0:  # a first read: the whole user
            fresh = UserVectors(self.dimension, epoch, seq)
            fresh.apply([(r["id"], r["m"], True, r["e"]) for r in tx.run(
                f"MATCH (v:MemoryVersion) WHERE v.user_id = $user AND v.tx_to = {FAR_CYPHER} "
                "AND v.embedding IS NOT NULL RETURN v.id AS id, v.memory_id AS m, v.embedding AS e "
                f"ORDER BY {WRITTEN_ORDER}",
                user=user_id)])
            entry.matrix, entry.memory_ids, entry.version_ids, entry.row_of, entry.live = (
                fresh.matrix, fresh.memory_ids, fresh.version_ids, fresh.row_of, fresh.live)
        elif epoch != entry.epoch:  # deletions: resynchronised by id, not reloaded
            entry.apply(_resync(tx, user_id, entry))
        else:  # upserts are idempotent, so rows committed after the clock read do no harm
            entry.apply([(r["id"], r["m"], r["current"], r["e"]) for r in tx.run(
                "MATCH (v:MemoryVersion) WHERE v.user_id = $user AND v.seq > $since "
                f"RETURN v.id AS id, v.memory_id AS m, v.tx_to = {FAR_CYPHER} AS current, v.embedding AS e "
                f"ORDER BY {WRITTEN_ORDER}", user=user_id, since=entry.seq)])
        entry.epoch, entry.seq = epoch, seq

    def written(self, user_id: str, epoch: str | None, seq: int,
                changes: list[tuple[str, str, bool, object]]) -> None:
        """This process committed ``seq``: extend a cache that was exactly one seq behind, so
        the next read need not fetch back what was just sent (any other state refreshes)."""
        with self._lock:
            entry = self._users.get(user_id)
        if entry is None:
            return
        with entry.lock:
            if entry.epoch == epoch and entry.seq == seq - 1:
                entry.apply(changes)
                entry.seq = seq

    def forget(self, user_id: str) -> None:
        with self._lock:
            self._users.pop(user_id, None)


def _rows(entry: UserVectors) -> int:
    return entry.rows


def _resync(tx: neo4j.ManagedTransaction, user_id: str,
            entry: UserVectors) -> list[tuple[str, str, bool, object]]:
    """The changes that make ``entry`` hold exactly the user's current versions: the ids of
    those (no vectors: a whole reload of 100k vectors took seconds), then the vectors of the
    few the cache lacks. Versions never change their vector, so an id held is a row right."""
    current = {r["id"]: r["m"] for r in tx.run(
        f"MATCH (v:MemoryVersion) WHERE v.user_id = $user AND v.tx_to = {FAR_CYPHER} "
        f"RETURN v.id AS id, v.memory_id AS m ORDER BY {WRITTEN_ORDER}", user=user_id)}
    changes: list[tuple[str, str, bool, object]] = [
        (vid, "", False, None) for vid in entry.row_of if vid not in current]
    missing = [vid for vid in current if vid not in entry.row_of]
    if missing:  # a version without a vector comes back with None, and apply leaves it out
        changes += [(r["id"], r["m"], True, r["e"]) for r in tx.run(
            "UNWIND $ids AS id MATCH (v:MemoryVersion {id: id}) RETURN v.id AS id, v.memory_id AS m, "
            "v.embedding AS e", ids=missing)]
    return changes


def _above(rows: np.ndarray, scores: np.ndarray, min_score: float) -> tuple[np.ndarray, np.ndarray]:
    """The rows (and their scores) at or above ``min_score``."""
    keep = scores >= min_score
    return rows[keep], scores[keep]



if TYPE_CHECKING:
    from .state import Neo4jState as _Store
else:
    _Store = object


class VectorWrites(_Store):
    """Vectors written after their versions (a mixin of ``Neo4jStore``): the Writer stores a
    memory first and embeds it in the background (``writer/embed_queue.py``)."""

    def _set_vectors(self, user_id: str, vectors: dict[str, np.ndarray], edges: list[Edge]) -> list[str]:
        from ..planning import batch_external_refs

        now = utcnow()

        def work(tx: neo4j.ManagedTransaction) -> tuple[list[tuple[str, str, bool]], str | None, int]:
            # The lock first (writing a property), then the check: of two writers embedding the
            # same version, the second sees the first's vector and sets and links nothing.
            done = [(r["id"], r["m"], r["current"]) for r in tx.run(
                "UNWIND $rows AS row MATCH (v:MemoryVersion {id: row.id}) WHERE v.user_id = $user "
                "SET v.user_id = v.user_id WITH v, row WHERE v.embedding IS NULL "
                "CALL db.create.setNodeVectorProperty(v, 'embedding', row.embedding) "
                f"RETURN v.id AS id, v.memory_id AS m, v.tx_to = {FAR_CYPHER} AS current",
                rows=[{"id": vid, "embedding": np.asarray(v, np.float32).tolist()}
                      for vid, v in vectors.items()], user=user_id)]
            if not done:
                return [], None, 0
            linked = {m for _, m, _ in done}
            wanted = [e for e in edges if e.src_id in linked]
            there = {r["id"] for r in tx.run(
                "UNWIND $ids AS id MATCH (m:Memory {id: id}) WHERE m.user_id = $user RETURN m.id AS id",
                ids=sorted({e.dst_id for e in wanted}), user=user_id)} if wanted else set()
            wanted = [e for e in wanted if e.dst_id in there]
            epoch, seq = self._insert(tx, user_id, {"edges": wanted}, now,
                                      wanted=batch_external_refs(WriteBatch(edges=wanted)))
            tx.run("UNWIND $ids AS id MATCH (v:MemoryVersion {id: id}) SET v.seq = $seq",
                   ids=[vid for vid, _, _ in done], seq=seq).consume()
            return done, epoch, seq

        done, epoch, seq = self._run(work)
        if done:
            self._vectors.written(user_id, epoch, seq,
                                  [(vid, m, current, vectors[vid]) for vid, m, current in done])
        return [vid for vid, _, _ in done]

    def _versions_without_vector(self, user_id: str | None, limit: int) -> list[MemoryVersion]:
        mine = "v.user_id = $user AND " if user_id is not None else ""

        def work(tx: neo4j.ManagedTransaction) -> list[Any]:
            return [r["n"] for r in tx.run(
                f"MATCH (v:MemoryVersion) WHERE {mine}v.embedding IS NULL AND v.tx_to = {FAR_CYPHER} "
                f"RETURN {R.projection('v', 'MemoryVersion', vector=False)} AS n "
                "ORDER BY v.tx_from, v.id LIMIT $limit", user=user_id, limit=limit)]

        return [R.to_version(p) for p in self._run(work, write=False)]
