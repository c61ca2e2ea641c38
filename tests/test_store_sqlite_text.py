"""The embedded store's in-process full-text index ranks as FTS5's bm25() does for one tenant, and
no other tenant moves a user's ranking."""

from __future__ import annotations

import random
from datetime import timedelta
from pathlib import Path

from builders import T0, Builder

from dualmem_core.store import SearchFilter
from dualmem_core.store.base import query_terms
from dualmem_core.store.sqlite.store import SQLiteStore

WORDS = ("live lives lived living Portland portland Lena café cafe naïve sushi ramen work works worked "
         "Acme sister brother dog dogs 2019 3d x_y the a of allergic peanuts moved move Berlin über "
         "running runs ran hike hiking").split()


def _texts(rng: random.Random, n: int) -> list[str]:
    return [" ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 9))) for _ in range(n)]


def _write(store: SQLiteStore, user: str, texts: list[str], rng: random.Random) -> None:
    b = Builder(user)
    for text in texts:
        when = T0 - timedelta(days=rng.randint(0, 900))
        b.memory(text, valid_from=when, kind=rng.choice(("fact", "observation")))
    store.write(b.batch)


def _same(store: SQLiteStore, rng: random.Random, user: str) -> None:
    conn = store._conn()
    queries = [" ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 4))) for _ in range(60)]
    queries += ["x_y lives", "3d dog", "über cafe", "zzz", "live live"]
    filters = [SearchFilter(user), SearchFilter(user, valid_at=T0 - timedelta(days=300)),
               SearchFilter(user, kinds=("fact",)), SearchFilter(user, statuses=("active",))]
    for query in queries:
        terms = query_terms(query)
        for flt in filters:
            for k in (1, 3, 50):
                fast = [(h.version.id, h.score) for h in store._text_search(terms, flt, k)]
                by_fts5 = store._hits(user, store._fts_top(conn, terms, flt, k))
                fts = [(h.version.id, h.score) for h in by_fts5]
                assert fast == fts, (query, flt, k)


def test_in_process_ranking_equals_fts5_for_one_tenant(tmp_path: Path) -> None:
    """Same rows, same scores to the last bit, same order of ties, before and after writes."""
    rng = random.Random(1)
    store = SQLiteStore(tmp_path / "text.db", dimension=8)
    try:
        _write(store, "u-text", _texts(rng, 300), rng)
        _same(store, rng, "u-text")
        assert "u-text" in store._texts
        _write(store, "u-text", _texts(rng, 40), rng)  # tokenized lazily, by the next search
        assert store._texts["u-text"].pending
        _same(store, rng, "u-text")
        store.delete_user("u-text")
        assert "u-text" not in store._texts
        _write(store, "u-text", _texts(rng, 50), rng)
        _same(store, rng, "u-text")
    finally:
        store.close()


def test_another_tenants_memories_do_not_move_a_users_text_ranking(tmp_path: Path) -> None:
    """BM25's counts are the user's own: the same user's scores in a store alone and beside another."""
    rng = random.Random(2)
    texts = _texts(rng, 300)
    queries = [" ".join(rng.sample(WORDS, 2)) for _ in range(30)]
    scores = []
    for name, others in (("alone", 0), ("shared", 400)):
        store = SQLiteStore(tmp_path / f"{name}.db", dimension=8)
        try:
            _write(store, "u-text", texts, random.Random(3))
            if others:
                _write(store, "u-other", _texts(rng, others), rng)
            flt = SearchFilter("u-text")
            scores.append([[(h.version.text, round(h.score, 9)) for h in store.text_search(q, flt, 10)]
                           for q in queries])
        finally:
            store.close()
    assert scores[0] == scores[1]
    assert any(scores[0])


def test_a_word_fts5_reads_as_a_phrase_goes_to_fts5(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "text.db", dimension=8)
    try:
        _write(store, "u", ["x y together", "y then x", "x_y joined"], random.Random(0))
        assert store._text_ranked(store._conn(), ["x_y"], "u") is None  # two tokens: a phrase
        hits = store.text_search("x_y", SearchFilter("u"), k=5)
        assert sorted(h.version.text for h in hits) == ["x y together", "x_y joined"]
    finally:
        store.close()
