"""The embedded store keeps the caches of a bounded number of users (the least recently used go),
and recall answers the same for a user whose caches were evicted."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from dualmem_core import Writer, open_store
from dualmem_core.errors import StoreConfigError
from dualmem_core.providers import HashingEmbedder
from dualmem_core.store.lru import ENV_CACHE_USERS, LeastRecent
from dualmem_core.store.sqlite.store import SQLiteStore

T0 = datetime(2025, 3, 1, tzinfo=UTC)


def _recalled(writer: Writer, user: str) -> list[str]:
    return [h.text for h in writer.recall("Where does my sister live?", user_id=user, k=3)]


def test_ten_users_through_a_bound_of_three(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv(ENV_CACHE_USERS, "3")
    store = open_store(f"sqlite:///{tmp_path / 's.db'}", dimension=64)
    assert isinstance(store, SQLiteStore) and store.cache_users == 3
    writer = Writer(store, embedder=HashingEmbedder(64))
    users = [f"u{i}" for i in range(10)]
    for i, user in enumerate(users):
        writer.remember(f"My sister lives in city{i}.", user_id=user, source_id="a", at=T0)
        writer.remember("I like tea.", user_id=user, source_id="b", at=T0)
    first = {user: _recalled(writer, user) for user in users}  # fills every cache, user by user
    for cache in (store._caches, store._texts, store._kept):
        assert 0 < len(cache) <= 3
        assert set(cache) <= set(users[-3:])  # the three used last
    for i, user in enumerate(users):  # evicted users are read again, and answer the same
        assert _recalled(writer, user) == first[user]
        assert any(f"city{i}" in text for text in first[user])
    assert max(len(c) for c in (store._caches, store._texts, store._kept)) <= 3
    store.close()


def test_a_bad_bound_is_refused(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv(ENV_CACHE_USERS, "many")
    with pytest.raises(StoreConfigError, match=ENV_CACHE_USERS):
        SQLiteStore(tmp_path / "s.db")
    with pytest.raises(StoreConfigError):
        SQLiteStore(tmp_path / "s.db", cache_users=0)


def test_least_recent_by_count_and_by_weight() -> None:
    by_count: LeastRecent[str, int] = LeastRecent(2)
    by_count["a"], by_count["b"] = 1, 2
    by_count.get("a")  # a use: "b" is now the oldest
    by_count["c"] = 3
    assert list(by_count) == ["a", "c"]
    by_weight: LeastRecent[str, list] = LeastRecent(max_weight=4, weigh=len)
    by_weight["a"], by_weight["b"] = [1, 2], [1, 2]
    by_weight["c"] = [1] * 9  # too heavy alone, yet the one just used stays
    assert list(by_weight) == ["c"]


def test_the_neo4j_vector_cache_evicts_by_rows_through_the_same_helper() -> None:
    from dualmem_core.store.neo4j.vectors import VectorCache

    cache = VectorCache(4, max_rows=5)
    for user in ("a", "b", "c"):
        entry = cache.entry(user)
        entry.apply([(f"{user}{i}", f"m{user}{i}", True, [1.0, 0, 0, 0]) for i in range(2)])
    cache.entry("a")  # a use; b and c hold 4 rows, a 2: b, the oldest, goes
    assert list(cache._users) == ["c", "a"]


def test_the_bound_is_a_setting_servers_pass_on(tmp_path) -> None:
    from dualmem_core.settings import provider_environ, resolve_settings

    config = tmp_path / "c.toml"
    config.write_text("store_cache_users = 5\n")
    settings = resolve_settings(config_path=config, environ={})
    assert settings.store_cache_users == 5
    assert provider_environ(settings)[ENV_CACHE_USERS] == "5"  # what serve puts in its environment
    assert ENV_CACHE_USERS not in provider_environ(resolve_settings(environ={}))  # unset: the default
    config.write_text("store_cache_users = 0\n")
    with pytest.raises(StoreConfigError, match="store_cache_users"):
        resolve_settings(config_path=config, environ={})
