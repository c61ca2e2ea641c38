"""The main job for now: write a short conversation into a store and read it back, in time.

It exercises the real store contract end to end: episodes and memories written one message at
a time, hybrid reads (vector and full text), and a supersession applied as a change set so
that point-in-time queries show the bitemporal model at work.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from .providers import HashingEmbedder
from .store import (
    ENV_STORE,
    Edge,
    EdgeType,
    Episode,
    Memory,
    MemoryVersion,
    SearchFilter,
    Store,
    WriteBatch,
    open_store,
)
from .store import changes as ch
from .timeutil import utcnow

DEMO_USER = "demo-maya"
FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "demo_conversation.jsonl"


@dataclass
class DemoResult:
    store_url: str
    messages: int
    write_ms: list[float]
    lines: list[str]


def default_demo_url() -> str:
    from platformdirs import user_data_dir

    return f"sqlite:///{Path(user_data_dir('dualmem')) / 'demo.db'}"


def load_messages(path: Path = FIXTURE) -> list[dict]:
    with path.open(encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def run_demo(url: str | None = None, fixture: Path = FIXTURE) -> DemoResult:
    # Same rule as open_store, but the last resort is a demo file, not the user's memory.
    url = url or os.environ.get(ENV_STORE, "").strip() or default_demo_url()
    embedder = HashingEmbedder()
    with open_store(url, dimension=embedder.dimension) as store:
        store.delete_user(DEMO_USER)  # the demo starts from a clean slate, whatever the store
        messages = load_messages(fixture)
        write_ms, versions = [], {}
        for message in messages:
            start = time.perf_counter()
            versions[message["source_id"]] = _remember(store, embedder, message)
            write_ms.append((time.perf_counter() - start) * 1000)
        move = next(m for m in messages if "moved to" in m["content"])
        _supersede(store, versions["demo-1"], datetime.fromisoformat(move["at"]))
        lines = _questions(store, embedder)
        return DemoResult(store.url, len(messages), write_ms, lines)


def _remember(store: Store, embedder: HashingEmbedder, message: dict) -> MemoryVersion:
    """Store one message as an episode plus an observation memory, in one transaction."""
    said_at = datetime.fromisoformat(message["at"])
    episode = Episode(user_id=DEMO_USER, text=message["content"], observed_at=said_at,
                      source_id=message["source_id"], role=message["role"],
                      session_id=message.get("session_id"))
    memory = Memory(user_id=DEMO_USER, kind="observation", session_id=message.get("session_id"))
    version = MemoryVersion(memory_id=memory.id, user_id=DEMO_USER, text=message["content"],
                            valid_from=said_at, embedding=embedder.embed([message["content"]])[0])
    provenance = Edge(user_id=DEMO_USER, type=EdgeType.FROM, src_id=memory.id, dst_id=episode.id)
    store.write(WriteBatch([episode], [memory], [version], [], [provenance]))
    return version


def _supersede(store: Store, old: MemoryVersion, moved_at: datetime) -> None:
    """Close the 'lives in Seattle' belief where the move begins (by hand, as the Editor will)."""
    ended = MemoryVersion(memory_id=old.memory_id, user_id=DEMO_USER, text=old.text,
                          embedding=old.embedding, valid_from=old.valid_from, valid_to=moved_at,
                          status="superseded", created_by="demo-run")
    store.apply_changes(ch.ChangeSet(DEMO_USER, "demo-run", [ch.CloseVersion(old.id),
                                                             ch.AddVersion(ended)]))


def _questions(store: Store, embedder: HashingEmbedder) -> list[str]:
    lines = []
    now = utcnow()
    asks = [("Where does Maya live?", now),
            ("Where does Maya live?", datetime.fromisoformat("2026-02-01T00:00:00+00:00")),
            ("What food should I avoid suggesting?", now), ("Tell me about the dog Biscuit", now)]
    for question, as_of in asks:
        flt = SearchFilter(DEMO_USER, valid_at=as_of)
        by_vector = store.vector_search(embedder.embed([question])[0], flt, 2)
        by_text = store.text_search(question, flt, 2)
        when = "" if as_of is now else f" (as of {as_of:%Y-%m-%d})"
        lines.append(f"Q: {question}{when}")
        for label, hits in (("vector", by_vector), ("text", by_text)):
            for hit in hits:
                state = "current" if hit.version.status == "active" else hit.version.status
                lines.append(f"   {label:<6} {hit.score:6.3f}  [{state}, since "
                             f"{hit.version.valid_from:%Y-%m-%d}] {hit.version.text}")
    return lines
