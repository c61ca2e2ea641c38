"""What a forget removes: shared by both backends, so both delete exactly the same records.

Forgetting episodes removes them, the memories that came only from them (every version and
edge), and the entities that only those memories mentioned. A memory that also came from an
episode that stays loses only the forgotten provenance.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Container
from dataclasses import dataclass, field

# (edge type, side, ids) -> (src, dst) pairs of that type whose ``side`` end is in ids,
# open and closed edges alike.
EdgePairs = Callable[[str, str, set[str]], list[tuple[str, str]]]


@dataclass(slots=True)
class ForgetReceipt:
    """What a forget deleted, by id, so a caller can show or log proof of deletion."""

    user_id: str
    episode_ids: list[str] = field(default_factory=list)
    memory_ids: list[str] = field(default_factory=list)
    entity_ids: list[str] = field(default_factory=list)
    versions: int = 0
    edges: int = 0
    kept_memory_ids: list[str] = field(default_factory=list)  # lost provenance, still stored
    source_ids: list[str] = field(default_factory=list)

    @property
    def deleted_ids(self) -> set[str]:
        return {*self.episode_ids, *self.memory_ids, *self.entity_ids}


def select_forgotten(episodes: set[str], memories: set[str],
                     pairs: EdgePairs) -> tuple[set[str], set[str], set[str]]:
    """(memories to delete, entities to delete, memories that only lose provenance)."""
    derived = pairs("FROM", "dst", episodes)
    candidates = {m for m, _ in derived}
    other_sources = {m for m, ep in pairs("FROM", "src", candidates) if ep not in episodes}
    gone = (candidates - other_sources) | memories
    mentioned = {e for _, e in pairs("MENTIONS", "src", gone)}
    still_mentioned = {e for m, e in pairs("MENTIONS", "dst", mentioned) if m not in gone}
    return gone, mentioned - still_mentioned, candidates & other_sources - memories


def redact_journal(journal: list[dict], deleted: set[str]) -> list[dict]:
    """A run journal without the entries about deleted records (ids are personal data too)."""
    return [entry for entry in journal if entry.get("id") not in deleted]


def redact_run(journal: list[dict], skipped: list[dict], meta: dict,
               deleted: set[str]) -> tuple[list[dict], list[dict], dict]:
    """A run record without a trace of deleted records: journal entries about them, and their
    ids in decision group names, skip reasons and the memories the run touched (replaced by
    ``forgotten``, so the rest of a group still undoes whole and every skip is still counted)."""
    def scrub(text: object) -> object:
        if not isinstance(text, str):
            return text
        return re.sub(r"[\w-]+", lambda m: "forgotten" if m.group() in deleted else m.group(), text)

    def scrub_entry(entry: dict) -> dict:
        return {k: scrub(v) if k in ("group", "reason") else v for k, v in entry.items()}

    kept_meta = dict(meta)
    if "touched" in kept_meta:
        kept_meta["touched"] = [i for i in kept_meta["touched"] if i not in deleted]
    return ([scrub_entry(e) for e in redact_journal(journal, deleted)],
            [scrub_entry(e) for e in skipped], kept_meta)


def absent_ids(refs: set[tuple[str, str]], stored: Container[tuple[str, str]],
               journal: list[dict]) -> set[str]:
    """Ids a change set names that neither exist nor are created by it: records forgotten since
    the run's snapshot (or never written). Its run record must not name them."""
    created = {entry.get("id") for entry in journal}
    return {rid for kind, rid in refs if (kind, rid) not in stored and rid not in created}


# How much of an earlier turn a message's search text holds (``writer/search_text.py``).
NEIGHBOUR_CHARS = 2_000


def neighbour_texts(said: list[str]) -> list[str]:
    """What of each forgotten message another message's search text may hold: the stores reset
    every search text holding one of these, so a forgotten message is not found through (or
    kept in) its neighbours."""
    return list(dict.fromkeys(t[:NEIGHBOUR_CHARS] for t in said if t.strip()))
