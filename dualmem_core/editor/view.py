"""A read-only, indexed view of one user's graph snapshot: what every Editor stage reads.

The snapshot holds every version and edge, open and closed; the view answers the questions the
stages ask (what is believed now, who said it, what mentions whom, which memories are near)
without going back to the store, so a stage is a pure function of the snapshot.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar, cast

import numpy as np
import pyarrow as pa

from ..store import EdgeType, Entity, Episode, Memory, MemoryVersion, UserGraph
from ..store.models import Edge, normalize_text
from ..store.snapshot import read_snapshot, tables_to_graph
from ..timeutil import FAR_FUTURE

SELF = "user"  # the subject the Writer gives to facts about the speaker
T = TypeVar("T")


@dataclass
class GraphView:
    graph: UserGraph
    memories: dict[str, Memory] = field(init=False)
    current: dict[str, MemoryVersion] = field(init=False)  # memory id -> its open version
    versions_of: dict[str, list[MemoryVersion]] = field(init=False)  # every version, oldest first
    entities: dict[str, Entity] = field(init=False)
    episodes: dict[str, Episode] = field(init=False)
    edges: dict[EdgeType, list[Edge]] = field(init=False)  # open edges only
    sources: dict[str, list[str]] = field(init=False)  # memory id -> episode ids
    mentions: dict[str, list[str]] = field(init=False)  # memory id -> entity ids
    mentioned_by: dict[str, list[str]] = field(init=False)  # entity id -> memory ids

    def __post_init__(self) -> None:
        g = self.graph
        self.memories = {m.id: m for m in g.memories}
        self.entities = {e.id: e for e in g.entities}
        self.episodes = {e.id: e for e in g.episodes}
        self.versions_of = defaultdict(list)
        for v in sorted(g.versions, key=lambda v: (v.tx_from, v.id)):
            self.versions_of[v.memory_id].append(v)
        self.current = {v.memory_id: v for v in g.versions if v.tx_to == FAR_FUTURE}
        self.edges = defaultdict(list)
        for e in g.edges:
            if e.tx_to == FAR_FUTURE:
                self.edges[e.type].append(e)
        self.sources, self.mentions, self.mentioned_by = (
            defaultdict(list),
            defaultdict(list),
            defaultdict(list),
        )
        for e in self.edges[EdgeType.FROM]:
            self.sources[e.src_id].append(e.dst_id)
        for e in self.edges[EdgeType.MENTIONS]:
            self.mentions[e.src_id].append(e.dst_id)
            self.mentioned_by[e.dst_id].append(e.src_id)
        self._matrix: tuple[list[str], np.ndarray] | None = None
        self._self_names: set[str] | None = None
        self._subject_keys: dict[str | None, str] = {}
        self._memos: dict[str, object] = {}

    @classmethod
    def from_tables(cls, user_id: str, tables: dict[str, pa.Table]) -> GraphView:
        return cls(tables_to_graph(user_id, tables))

    @classmethod
    def from_snapshot(cls, folder: str | Path) -> GraphView:
        return cls(read_snapshot(folder))

    @property
    def user_id(self) -> str:
        return self.graph.user_id

    # -- questions the stages ask ----------------------------------------------------------

    def memo(self, key: str, make: Callable[[], T]) -> T:
        """``make()``, made once per view: what is read from the snapshot alone never changes,
        so two stages asking the same question share one answer (which they must not alter)."""
        if key not in self._memos:
            self._memos[key] = make()
        return cast(T, self._memos[key])

    def new_memory_ids(self) -> list[str]:
        """Memories no Editor run has reviewed yet: an incremental run starts from these."""
        return sorted(
            m.id for m in self.memories.values() if m.review_state == "new" and m.id in self.current
        )

    def live(self, memory_id: str) -> bool:
        """Believed now and not folded into another memory."""
        v = self.current.get(memory_id)
        return v is not None and v.status == "active"

    def first_seen(self, memory_id: str) -> tuple:
        """Sort key for "oldest": when the memory was first believed, then its id."""
        versions = self.versions_of.get(memory_id) or []
        return (versions[0].tx_from if versions else FAR_FUTURE, memory_id)

    def base_confidence(self, memory_id: str) -> float:
        """The confidence its first version was written with (the Writer's), before any run."""
        versions = self.versions_of.get(memory_id) or []
        return versions[0].confidence if versions else 0.5

    def sessions_of(self, memory_id: str) -> set[str]:
        out = set()
        for ep_id in self.sources.get(memory_id, ()):
            ep = self.episodes.get(ep_id)
            if ep is not None:
                out.add(ep.session_id or ep.source_id or ep.id)
        return out

    def fact_subject(self, memory_id: str) -> str:
        """A fact's subject as a key; the user's own names ("Priya", "Pri") count as the user."""
        return self.subject_named(self.current[memory_id].subject)

    def subject_named(self, subject: str | None) -> str:
        """A subject as a key, the user's own names as the user (see ``fact_subject``)."""
        if self._self_names is None:
            self._self_names = {
                object_key(v.object)
                for v in self.current.values()
                if subject_key(v.subject) == SELF and v.predicate in ("name", "nickname") and v.object
            }
        key = self._subject_keys.get(subject)  # subjects repeat: each is read once per view
        if key is None:
            key = subject_key(subject)
            key = self._subject_keys[subject] = SELF if key in self._self_names else key
        return key

    def cosine(self, a: str, b: str) -> float:
        """Cosine of two memories' current embeddings (0 when either has none)."""
        va, vb = self.current[a].embedding, self.current[b].embedding
        if va is None or vb is None:
            return 0.0
        x, y = np.asarray(va, dtype=np.float32), np.asarray(vb, dtype=np.float32)
        norms = float(np.linalg.norm(x) * np.linalg.norm(y))
        return float(x @ y) / norms if norms else 0.0

    def open_edges(self, type_: EdgeType) -> list[Edge]:
        return self.edges.get(type_, [])

    def near(self, memory_ids: list[str], k: int, threshold: float) -> dict[str, list[tuple[str, float]]]:
        """For each memory, up to k other live memories with cosine >= threshold, best first.

        One matrix product of the asked memories against every live vector: the cost follows
        how many memories are asked about (the new ones), not the number of pairs in the graph.
        """
        ids, matrix = self._vectors()
        out: dict[str, list[tuple[str, float]]] = {m: [] for m in memory_ids}
        if not ids:
            return out
        row_of = {m: i for i, m in enumerate(ids)}
        asked = [m for m in memory_ids if m in row_of]
        width = min(k, len(ids) - 1)
        if width <= 0:
            return out
        for start in range(0, len(asked), 512):
            chunk = asked[start : start + 512]
            rows = np.array([row_of[m] for m in chunk])
            scores = matrix[rows] @ matrix.T
            scores[np.arange(len(chunk)), rows] = -1.0  # not its own neighbour
            top = np.argpartition(-scores, width - 1, axis=1)[:, :width]
            top_scores = np.take_along_axis(scores, top, axis=1)
            order = np.argsort(-top_scores, axis=1)
            top, top_scores = (
                np.take_along_axis(top, order, axis=1),
                np.take_along_axis(top_scores, order, axis=1),
            )
            for memory_id, cols, values in zip(chunk, top, top_scores, strict=True):
                keep = values >= threshold
                out[memory_id] = [(ids[j], float(v)) for j, v in zip(cols[keep], values[keep], strict=True)]
        return out

    def _vectors(self) -> tuple[list[str], np.ndarray]:
        if self._matrix is None:
            ids = sorted(
                m for m, v in self.current.items() if v.embedding is not None and v.status == "active"
            )
            if ids:
                # ids holds only versions with an embedding
                vectors = [cast(np.ndarray, self.current[m].embedding) for m in ids]
                matrix = np.stack(vectors).astype(np.float32)
                norms = np.linalg.norm(matrix, axis=1, keepdims=True)
                matrix /= np.where(norms == 0, 1.0, norms)
            else:
                matrix = np.zeros((0, 0), dtype=np.float32)
            self._matrix = (ids, matrix)
        return self._matrix


def follow(links: dict[str, str], node: str) -> str:
    """Where a chain of links (copy -> canonical, merged -> kept) ends; safe against cycles."""
    seen = set()
    while node in links and node not in seen:
        seen.add(node)
        node = links[node]
    return node


def subject_key(subject: str | None) -> str:
    return normalize_text(subject or "")


def object_key(obj: str | None) -> str:
    return normalize_text(obj or "").removeprefix("the ").strip(" .!?,;:'\"")
