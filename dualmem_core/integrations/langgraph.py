"""dualmem as LangGraph's long-term memory store: ``graph.compile(store=DualmemStore.open(url))``.

The mapping (docs/langgraph.md has it with an example):

- A namespace names a dualmem user: its label at ``user_at`` (the first, by default) is the
  ``user_id``; the other labels, joined by "/", are the messages' ``session_id`` (a scope that
  recall can filter on). ``("u1", "memories")`` is user ``u1``, session ``memories``.
- ``put(namespace, key, value)`` remembers two messages of that user in one call. The first is
  what recall searches and the extractor reads: the value's ``"text"``, ``"content"`` or
  ``"memory"`` field (the first that is a non-blank string), else the value as JSON (``index=``
  a list of fields: those fields' texts; ``index=False``: no such message). Its source id is
  ``langgraph:["<label>",...,"<key>"]``. The second, role ``tool`` (stored and recalled at low
  confidence, never mined for facts), holds the item itself as JSON (namespace, key, value,
  created and updated times) under the source id ``langgraph-item:[...]``: ``get`` returns exactly
  what was put from it.
- A second put of a key forgets both source ids, then remembers the new value (one lock per
  store object keeps concurrent puts of a key apart; another process is not held off). Forget is
  a real delete: the old value and the memories only it gave are gone, not kept as an earlier
  version. What the item said stays in dualmem's bitemporal history only where the Editor
  superseded a fact with a later one.
- ``search(prefix, query=...)`` is ``recall`` for the prefix's user (every user with items when the
  prefix stops before the user label): each recalled memory scores the items among its sources,
  an item takes its best memory's score, best first. Without a query it lists the prefix's items
  in InMemoryStore's order (by namespace, oldest first). ``filter``, ``limit`` and ``offset`` work
  as in LangGraph's ``InMemoryStore``.
- ``delete`` forgets both source ids. ``list_namespaces`` reads the users' item messages.

Listing, filtering and ``list_namespaces`` read a user's whole graph (``Store.export_graph``): fine
for agent-sized memories, slow for users with very many memories. TTLs are not supported.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any

from ..extras import require

require("langgraph.store.base", "langgraph", "dualmem's LangGraph store (DualmemStore)")

from langgraph.store.base import (  # noqa: E402  (after the check that names the extra)
    BaseStore,
    GetOp,
    InvalidNamespaceError,
    Item,
    ListNamespacesOp,
    MatchCondition,
    Op,
    PutOp,
    Result,
    SearchItem,
    SearchOp,
)
from langgraph.store.base.embed import get_text_at_path, tokenize_path  # noqa: E402

from ..errors import InvalidInput  # noqa: E402
from ..store import Store, open_store  # noqa: E402
from ..store.validate import MAX_ID_CHARS, MAX_K  # noqa: E402
from ..timeutil import utcnow  # noqa: E402
from ..writer.writer import Writer  # noqa: E402

TEXT = "langgraph:"  # source id prefix of the message recall searches
RECORD = "langgraph-item:"  # source id prefix of the message that holds the item
TEXT_FIELDS = ("text", "content", "memory")

Key = tuple[tuple[str, ...], str]  # (namespace, key)


def _source_id(prefix: str, namespace: tuple[str, ...], key: str) -> str:
    source_id = prefix + json.dumps([*namespace, key], ensure_ascii=False, separators=(",", ":"))
    if len(source_id) > MAX_ID_CHARS:
        raise InvalidInput(f"namespace {namespace!r} and key {key!r} are too long for dualmem: as a "
                           f"source id they take {len(source_id)} characters, the limit is {MAX_ID_CHARS}")
    return source_id


def _parse_source_id(source_id: str) -> Key | None:
    """The (namespace, key) a source id of this store names; None for anyone else's."""
    for prefix in (TEXT, RECORD):
        if source_id.startswith(prefix):
            try:
                parts = json.loads(source_id[len(prefix):])
            except ValueError:
                return None
            if isinstance(parts, list) and len(parts) >= 2 and all(isinstance(p, str) for p in parts):
                return tuple(parts[:-1]), parts[-1]
    return None


def _check_labels(namespace: tuple[str, ...]) -> None:
    """LangGraph's rule for labels, also for ops passed to ``batch`` directly."""
    for label in namespace:
        if not isinstance(label, str) or not label or "." in label or "\x00" in label:
            raise InvalidNamespaceError(f"invalid namespace label {label!r} in {namespace!r}: labels are "
                                        "non-empty strings without periods or NUL bytes")


def _matches(value: Any, wanted: Any) -> bool:
    """One filter entry, as LangGraph's InMemoryStore reads it (JSONB-like; $eq $ne $gt $gte $lt $lte)."""
    if isinstance(wanted, dict):
        if any(k.startswith("$") for k in wanted):
            return all(_operator(value, op, operand) for op, operand in wanted.items())
        return isinstance(value, dict) and all(_matches(value.get(k), v) for k, v in wanted.items())
    if isinstance(wanted, (list, tuple)):
        return (isinstance(value, (list, tuple)) and len(value) == len(wanted)
                and all(_matches(v, w) for v, w in zip(value, wanted, strict=True)))
    return bool(value == wanted)


def _operator(value: Any, op: str, operand: Any) -> bool:
    if op == "$eq":
        return bool(value == operand)
    if op == "$ne":
        return bool(value != operand)
    if op in ("$gt", "$gte", "$lt", "$lte"):
        if value is None:  # a missing field is not greater or smaller (InMemoryStore raises TypeError)
            return False
        left, right = float(value), float(operand)
        return {"$gt": left > right, "$gte": left >= right, "$lt": left < right, "$lte": left <= right}[op]
    raise ValueError(f"unsupported filter operator: {op}")


def _namespace_matches(condition: MatchCondition, namespace: tuple[str, ...]) -> bool:
    path = tuple(condition.path)
    if len(namespace) < len(path):
        return False
    pairs = (zip(namespace, path, strict=False) if condition.match_type == "prefix"
             else zip(reversed(namespace), reversed(path), strict=False))
    return all(p == "*" or n == p for n, p in pairs)


class DualmemStore(BaseStore):
    """LangGraph's ``BaseStore`` over a dualmem ``Writer``: pass it as ``compile(store=...)``.

    ``user_at`` is the namespace label that names the dualmem user (0: the first, as in
    ``(user_id, "memories")``; 1 for ``("memories", user_id)``).
    """

    def __init__(self, writer: Writer, *, user_at: int = 0, owns_store: bool = False) -> None:
        if user_at < 0:
            raise InvalidInput(f"user_at must be 0 or more, got {user_at}")
        self.writer = writer
        self.store: Store = writer.store
        self.user_at = user_at
        self._owns_store = owns_store
        self._lock = threading.RLock()

    @classmethod
    def open(cls, url: str | None = None, *, user_at: int = 0, **writer_options: Any) -> DualmemStore:
        """A store on ``open_store(url)`` (the embedded default without one) with its own Writer;
        ``close()`` closes both. ``writer_options`` go to ``Writer`` (embedder, llm, ...)."""
        store = open_store(url)
        try:
            return cls(Writer(store, **writer_options), user_at=user_at, owns_store=True)
        except Exception:
            store.close()
            raise

    def close(self) -> None:
        self.writer.close()
        if self._owns_store:
            self.store.close()

    def __enter__(self) -> DualmemStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- LangGraph's two entry points ------------------------------------------------------

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        results: list[Result] = []
        for op in ops:
            if isinstance(op, GetOp):
                _check_labels(op.namespace)
                results.append(self._get(op.namespace, op.key))
            elif isinstance(op, SearchOp):
                _check_labels(op.namespace_prefix)
                results.append(self._search(op))
            elif isinstance(op, ListNamespacesOp):
                for condition in op.match_conditions or ():
                    _check_labels(tuple(condition.path))
                results.append(self._list_namespaces(op))
            elif isinstance(op, PutOp):
                if not op.namespace:
                    raise InvalidNamespaceError("Namespace cannot be empty.")
                _check_labels(op.namespace)
                if op.value is None:
                    self._delete(op.namespace, op.key)
                else:
                    self._put(op.namespace, op.key, op.value, op.index)
                results.append(None)
            else:
                raise ValueError(f"Unknown operation type: {type(op)}")
        return results

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        return await asyncio.to_thread(self.batch, list(ops))

    # -- the operations ---------------------------------------------------------------------

    def _user(self, namespace: tuple[str, ...]) -> str:
        if len(namespace) <= self.user_at:
            raise InvalidInput(f"namespace {namespace!r} has no label {self.user_at} to name the dualmem "
                               f"user (user_at={self.user_at})")
        return namespace[self.user_at]

    def _scope(self, namespace: tuple[str, ...]) -> str | None:
        rest = namespace[:self.user_at] + namespace[self.user_at + 1:]
        return "/".join(rest) or None

    def _records(self, user_id: str, keys: Sequence[Key]) -> dict[Key, Item]:
        """The stored items under ``keys`` (all of one user)."""
        if not keys:
            return {}
        episodes = self.store.episodes_by_source(user_id, [_source_id(RECORD, ns, k) for ns, k in keys])
        return dict(self._item(e.text) for e in episodes)

    @staticmethod
    def _item(text: str) -> tuple[Key, Item]:
        record = json.loads(text)
        namespace = tuple(record["namespace"])
        item = Item(value=record["value"], key=record["key"], namespace=namespace,
                    created_at=datetime.fromisoformat(record["created_at"]),
                    updated_at=datetime.fromisoformat(record["updated_at"]))
        return (namespace, item.key), item

    def _all_items(self, user_id: str) -> list[Item]:
        """Every item of one user in InMemoryStore's order: by namespace, the one with the oldest
        item first, then oldest first within it."""
        episodes = self.store.export_graph(user_id).episodes
        items = [self._item(e.text)[1] for e in episodes if (e.source_id or "").startswith(RECORD)]
        first: dict[tuple[str, ...], datetime] = {}
        for item in items:
            first[item.namespace] = min(first.get(item.namespace, item.created_at), item.created_at)
        return sorted(items, key=lambda i: (first[i.namespace], i.namespace, i.created_at, i.key))

    def _users(self, prefix: Sequence[str]) -> list[str]:
        """The users whose items may fall under ``prefix`` (labels may be '*')."""
        if len(prefix) > self.user_at and prefix[self.user_at] != "*":
            return [prefix[self.user_at]]
        return self.store.list_users()

    def _get(self, namespace: tuple[str, ...], key: str) -> Item | None:
        if len(namespace) <= self.user_at:
            return None
        return self._records(self._user(namespace), [(namespace, key)]).get((namespace, key))

    def _text(self, value: Mapping[str, Any], index: Any) -> str | None:
        if index is False:
            return None
        if index is None:
            for name in TEXT_FIELDS:
                text = value.get(name)
                if isinstance(text, str) and text.strip():
                    return text
            return json.dumps(value, ensure_ascii=False)
        texts = [t for path in index for t in get_text_at_path(value, tokenize_path(path))]
        return "\n".join(t for t in texts if t.strip()) or None

    def _put(self, namespace: tuple[str, ...], key: str, value: Mapping[str, Any], index: Any) -> None:
        user_id = self._user(namespace)
        text_id, record_id = _source_id(TEXT, namespace, key), _source_id(RECORD, namespace, key)
        with self._lock:
            old = self._records(user_id, [(namespace, key)]).get((namespace, key))
            if old is not None:
                self._forget(user_id, namespace, key)
            now = utcnow()
            created = old.created_at if old is not None else now
            record = {"namespace": list(namespace), "key": key, "value": dict(value),
                      "created_at": created.isoformat(), "updated_at": now.isoformat()}
            messages: list[dict[str, Any]] = []
            text = self._text(value, index)
            if text is not None:
                messages.append({"role": "user", "content": text, "source_id": text_id})
            messages.append({"role": "tool", "content": json.dumps(record, ensure_ascii=False),
                             "source_id": record_id})
            self.writer.remember(messages, user_id=user_id, session_id=self._scope(namespace), at=now)

    def _forget(self, user_id: str, namespace: tuple[str, ...], key: str) -> None:
        ids = [_source_id(TEXT, namespace, key), _source_id(RECORD, namespace, key)]
        stored = [e.source_id for e in self.store.episodes_by_source(user_id, ids) if e.source_id]
        if stored:
            self.writer.forget(user_id=user_id, source_ids=stored)

    def _delete(self, namespace: tuple[str, ...], key: str) -> None:
        if len(namespace) > self.user_at:
            with self._lock:
                self._forget(self._user(namespace), namespace, key)

    def _wanted(self, op: SearchOp, item: Item) -> bool:
        prefix = tuple(op.namespace_prefix)
        return item.namespace[:len(prefix)] == prefix and all(
            _matches(item.value.get(name), wanted) for name, wanted in (op.filter or {}).items())

    def _search(self, op: SearchOp) -> list[SearchItem]:
        if op.query:
            found = self._recalled(op)
        else:
            found = [(None, item) for user_id in self._users(op.namespace_prefix)
                     for item in self._all_items(user_id) if self._wanted(op, item)]
        return [SearchItem(namespace=i.namespace, key=i.key, value=i.value, created_at=i.created_at,
                           updated_at=i.updated_at, score=score)
                for score, i in found[op.offset:op.offset + op.limit]]

    def _recalled(self, op: SearchOp) -> list[tuple[float | None, Item]]:
        """The prefix's items that recall finds for the query, best first (enough for offset+limit)."""
        assert op.query
        wanted = max(op.offset + op.limit, 1)
        found: list[tuple[float | None, Item]] = []
        for user_id in self._users(op.namespace_prefix):
            k = min(MAX_K, 4 * wanted + 20)
            while True:
                hits = self.writer.recall(op.query, user_id=user_id, k=k)
                scores: dict[Key, float] = {}
                for hit in hits:
                    for source in hit.sources:
                        named = _parse_source_id(source)
                        if named is not None and named[0][:len(op.namespace_prefix)] == op.namespace_prefix:
                            scores[named] = max(scores.get(named, hit.score), hit.score)
                items = self._records(user_id, list(scores))
                mine = [(scores[key], item) for key, item in items.items() if self._wanted(op, item)]
                if len(mine) >= wanted or len(hits) < k or k >= MAX_K:
                    break
                k = min(MAX_K, k * 4)
            found += mine
        found.sort(key=lambda pair: -(pair[0] or 0.0))
        return found

    def _list_namespaces(self, op: ListNamespacesOp) -> list[tuple[str, ...]]:
        conditions = op.match_conditions or ()
        prefixes = [tuple(c.path) for c in conditions if c.match_type == "prefix"]
        users = self._users(prefixes[0]) if prefixes else self.store.list_users()
        namespaces = {item.namespace for user_id in users for item in self._all_items(user_id)}
        kept = [ns for ns in namespaces if all(_namespace_matches(c, ns) for c in conditions)]
        if op.max_depth is not None:
            kept = list({ns[:op.max_depth] for ns in kept})
        return sorted(kept)[op.offset:op.offset + op.limit]
