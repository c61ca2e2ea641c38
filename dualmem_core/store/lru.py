"""A dict that forgets its least recently used keys: the per-user caches of a long-lived process
(``serve``, ``mcp --http``) would otherwise hold every user it ever saw until restarted."""

from __future__ import annotations

import os
from collections import OrderedDict
from collections.abc import Callable
from typing import TypeVar

from ..errors import StoreConfigError

K = TypeVar("K")
V = TypeVar("V")

ENV_CACHE_USERS = "DUALMEM_STORE_CACHE_USERS"
DEFAULT_CACHE_USERS = 64  # users whose caches a process keeps; one is reloaded from the store on its next use


def cache_users(explicit: int | None = None) -> int:
    """The bound on cached users: ``explicit``, else ``DUALMEM_STORE_CACHE_USERS``, else the default."""
    if explicit is None:
        raw = os.environ.get(ENV_CACHE_USERS, "").strip()
        return parse_cache_users(raw) if raw else DEFAULT_CACHE_USERS
    if explicit < 1:
        raise StoreConfigError(f"the store's cache must hold at least 1 user, not {explicit}")
    return explicit


def parse_cache_users(raw: str) -> int:
    """``DUALMEM_STORE_CACHE_USERS`` as written: a whole number of users, at least 1."""
    if not (raw.isdigit() and int(raw) >= 1):
        raise StoreConfigError(f"{ENV_CACHE_USERS}={raw!r} should be a whole number of users, at least 1")
    return int(raw)


class LeastRecent(OrderedDict[K, V]):
    """At most ``max_items`` keys and, with ``weigh``, about ``max_weight`` in all; ``get`` and
    setting count as a use. Weights may grow in place, so they are summed again at each trim.
    The key used last always stays, however heavy: evicting it would only reload it at once.
    Not thread-safe by itself: callers hold their own lock, as for a plain dict."""

    def __init__(self, max_items: int | None = None, max_weight: float | None = None,
                 weigh: Callable[[V], float] | None = None):
        super().__init__()
        self.max_items, self.max_weight, self.weigh = max_items, max_weight, weigh

    def get(self, key: K, default: V | None = None) -> V | None:  # type: ignore[override]
        if key not in self:
            return default
        self.move_to_end(key)
        return self[key]

    def __setitem__(self, key: K, value: V) -> None:
        super().__setitem__(key, value)
        self.move_to_end(key)
        self.trim()

    def trim(self) -> None:
        while len(self) > 1 and self.max_items is not None and len(self) > self.max_items:
            self.popitem(last=False)
        if self.max_weight is None or self.weigh is None:
            return
        total = sum(self.weigh(v) for v in self.values())
        while len(self) > 1 and total > self.max_weight:
            _, evicted = self.popitem(last=False)
            total -= self.weigh(evicted)
