"""Graph reads recall repeats, kept in process: each memory's sources, each entity's degree.

A memory told many times has as many sources: on the writer benchmark at 100k the memories
recall returns most often had hundreds each, and reading them (an edge, an episode each) was
the largest part of a recall after the vector scan. Expansion counts the mentions of each
entity of its seeds (up to the hub limit) to skip hubs: for a hub, that many edge reads.
Recall's hits and their entities repeat, so both are read once and kept, and kept current by
this store's own writes: a batch that adds a FROM edge from a new episode adds its source, and
a new MENTIONS edge adds one to its entity's count; any other change to those edges drops the
entry. So are the MENTIONS edges expansion walks (a seed's entities, a non-hub entity's
memories), followed the same way. Another process's write (or a forget, an Editor change, an
import) moves the user's generation on, and the whole copy is dropped at the next read, as the
vector cache is.

Search hits are kept too: the version and memory rows of each rid a search returned. Reading
them was a sixth of a recall at 100k (a row of each table per hit, ~60 hits), and a row not
read for a while costs several times more (pages gone from SQLite's cache: the slowest recalls
were those). This store's own writes only add rows, so a remember leaves them current; the one
column that changes under them is a memory's access count, which the store adds to them when
it writes counts (``KeptReads.counted``). They are kept as rows: callers get new objects.
"""

from __future__ import annotations

from bisect import insort
from typing import Any

from ...timeutil import FAR_FUTURE, to_micros
from ..models import EdgeType, WriteBatch

MAX_KEPT = 20_000  # memories (and entities) kept per user; past it that part starts over
MAX_KEPT_ROWS = 10_000  # search hits' rows kept per user (~1 KB each, without vectors)


class KeptReads:
    """Per memory: (said at, source id) of each episode it currently comes from, in time order.
    Per entity: its open MENTIONS edges counted up to a cap, and the cap."""

    def __init__(self, generation: int):
        self.generation = generation
        self.by_memory: dict[str, list[tuple[int, str]]] = {}
        self.degrees: dict[str, tuple[int, int]] = {}  # entity -> (count up to cap, cap)
        self.rows: dict[int, tuple[tuple, str]] = {}  # rid -> (version row, its memory's id)
        self.memories: dict[str, tuple] = {}  # memory rows of ``rows``, as the file holds them
        self.supersedes: dict[str, list[tuple]] = {}  # node -> its open SUPERSEDES edge rows
        self.mentions: dict[str, list[str]] = {}  # memory -> entities of its open MENTIONS edges
        self.mentioned_by: dict[str, list[str]] = {}  # entity (not a hub) -> memories mentioning it

    def uncounted(self, entity_ids: list[str], cap: int) -> list[str]:
        return [e for e in entity_ids if self.degrees.get(e, (0, -1))[1] != cap]

    def known_degrees(self, entity_ids: list[str], cap: int) -> dict[str, int]:
        return {e: self.degrees[e][0] for e in entity_ids if self.degrees.get(e, (0, -1))[1] == cap}

    def keep_degrees(self, counted: list[tuple[str, int]], cap: int) -> None:
        if len(self.degrees) + len(counted) > MAX_KEPT:
            self.degrees.clear()
        self.degrees.update((e, (count, cap)) for e, count in counted)

    def missing(self, memory_ids: list[str]) -> list[str]:
        return [m for m in memory_ids if m not in self.by_memory]

    def fill(self, memory_ids: list[str], rows: list[tuple[str, int, str]]) -> None:
        """Keep what a read found for ``memory_ids``: rows of (memory id, said at, source id)."""
        if len(self.by_memory) + len(memory_ids) > MAX_KEPT:
            self.by_memory.clear()
        found: dict[str, list[tuple[int, str]]] = {m: [] for m in memory_ids}
        for memory_id, said_at, source in rows:
            found[memory_id].append((said_at, source))
        for memory_id, pairs in found.items():
            self.by_memory[memory_id] = sorted(pairs)

    def sources(self, memory_ids: list[str]) -> dict[str, list[str]]:
        return {m: [s for _, s in self.by_memory[m]] for m in memory_ids if self.by_memory.get(m)}

    def unread(self, name: str, ids: list[str]) -> list[str]:
        """Of ``ids``, those the map ``name`` (supersedes, mentions, mentioned_by) lacks."""
        kept = getattr(self, name)
        return [i for i in ids if i not in kept]

    def keep_pairs(self, name: str, ids: list[str], rows: list[tuple[str, Any]]) -> None:
        """Keep what a read found for ``ids`` in the map ``name``: rows of (id, what it leads to:
        an edge's other end, or a SUPERSEDES edge's row); a row of an id not asked is left."""
        kept = getattr(self, name)
        if len(kept) + len(ids) > MAX_KEPT:
            kept.clear()
        found: dict[str, list] = {i: [] for i in ids}
        for key, value in rows:
            if key in found:
                found[key].append(value)
        kept.update(found)

    def pairs_of(self, name: str, ids: list[str]) -> dict[str, list]:
        kept = getattr(self, name)
        return {i: kept[i] for i in ids}

    def missing_rows(self, rids: list[int]) -> list[int]:
        return [rid for rid in rids if rid not in self.rows]

    def keep_rows(self, rows: list[tuple[int, tuple, tuple]]) -> None:
        """Keep what a read found: (rid, version row, memory row) of each row still there, as
        ``rows.VERSION_COLUMNS`` and ``rows.MEMORY_COLUMNS`` order them."""
        if len(self.rows) + len(rows) > MAX_KEPT_ROWS:
            self.rows.clear()
            self.memories.clear()
        for rid, version, memory in rows:
            self.rows[rid] = (version, memory[0])
            self.memories[memory[0]] = memory

    def hit_rows(self, rids: list[int]) -> list[tuple[int, tuple, tuple]]:
        """(rid, version row, memory row) of each kept rid of ``rids``."""
        return [(rid, entry[0], self.memories[entry[1]]) for rid in rids
                if (entry := self.rows.get(rid)) is not None]

    def counted(self, memory_id: str, count: int, at: int) -> None:
        """Follow recall counts written to the file (``access.PendingAccess.write``): at is micros."""
        memory = self.memories.get(memory_id)
        if memory is not None:  # access_count and last_accessed_at end the memory row
            self.memories[memory_id] = (*memory[:-2], memory[-2] + count, at)

    def written(self, batch: WriteBatch) -> None:
        """Follow a committed batch of this store's own."""
        episodes = {e.id: e for e in batch.episodes}
        for edge in batch.edges:
            if edge.type == EdgeType.SUPERSEDES:
                self.supersedes.pop(edge.src_id, None)
                self.supersedes.pop(edge.dst_id, None)
            if edge.type == EdgeType.MENTIONS:
                for kept, key, value in ((self.mentions, edge.src_id, edge.dst_id),
                                         (self.mentioned_by, edge.dst_id, edge.src_id)):
                    if key in kept and edge.tx_to == FAR_FUTURE:
                        kept[key].append(value)
                    else:
                        kept.pop(key, None)
            if edge.type == EdgeType.MENTIONS and edge.dst_id in self.degrees:
                count, cap = self.degrees[edge.dst_id]
                if edge.tx_to == FAR_FUTURE:
                    self.degrees[edge.dst_id] = (min(count + 1, cap), cap)
                else:
                    self.degrees.pop(edge.dst_id)
            if edge.type != EdgeType.FROM or edge.src_id not in self.by_memory:
                continue
            episode = episodes.get(edge.dst_id)
            if episode is None or edge.tx_to != FAR_FUTURE:
                self.by_memory.pop(edge.src_id)  # not a plain new source: read it again when asked
            else:
                source = episode.id if episode.source_id is None else episode.source_id
                insort(self.by_memory[edge.src_id], (to_micros(episode.observed_at), source))

