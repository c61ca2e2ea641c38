"""The embedded store's in-process full-text index ranks as FTS5's bm25() does for one tenant, and
no other tenant moves a user's ranking."""

from __future__ import annotations

import random
from datetime import timedelta
from pathlib import Path

from builders import T0, Builder

from dualmem_core.store import SearchFilter
from dualmem_core.store.query import query_terms
from dualmem_core.store.sqlite.store import SQLiteStore

WORDS = ("live lives lived living Portland portland Lena café cafe naïve sushi ramen work works worked "
         "Acme sister brother dog dogs 2019 3d x_y the a of allergic peanuts moved move Berlin über "
         "running runs ran hike hiking").split()


def _texts(rng: random.Random, n: int) -> list[str]:
    return [" ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 9))) for _ in range(n)]


def _write(store: SQLiteStore, user: str, texts: list[str], rng: random.Random,
           context: bool = False) -> None:
    """With ``context``, every other version gets a search text (a speaker, its text and the
    text before it), as the Writer gives observations: FTS5 and the copy must index the same."""
    b = Builder(user)
    for i, text in enumerate(texts):
        when = T0 - timedelta(days=rng.randint(0, 900))
        search = f"Lena: {text}\n{texts[i - 1]}" if context and i % 2 else None
        b.memory(text, valid_from=when, kind=rng.choice(("fact", "observation")), search_text=search)
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
        _write(store, "u-text", _texts(rng, 300), rng, context=True)
        _same(store, rng, "u-text")
        assert "u-text" in store._texts
        _write(store, "u-text", _texts(rng, 40), rng, context=True)  # tokenized lazily, by the next search
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


def test_a_file_of_schema_3_gains_search_texts_in_place(tmp_path: Path) -> None:
    """A file written before search texts (no column, a trigger indexing text) opens, its rows
    untouched and still found by their text, and new rows are indexed by their search text."""
    import sqlite3

    path = tmp_path / "old.db"
    store = SQLiteStore(path, dimension=8)
    _write(store, "u", ["lives in Portland", "works at Acme"], random.Random(0))
    store.close()
    # Make it the file dualmem wrote at schema 3: the trigger and table as they were then.
    conn = sqlite3.connect(path)
    conn.executescript("""
        DROP TRIGGER versions_fts_insert;
        ALTER TABLE versions DROP COLUMN search_text;
        CREATE TRIGGER versions_fts_insert AFTER INSERT ON versions BEGIN
            INSERT INTO versions_fts (rowid, text, user_key)
            VALUES (new.rid, new.text, 'u' || hex(new.user_id));
        END;
        UPDATE meta SET value = '3' WHERE key = 'schema_version';
    """)
    conn.close()

    store = SQLiteStore(path, dimension=8)
    try:
        conn = store._conn()
        assert conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone() == ("4",)
        assert conn.execute("SELECT count(*) FROM versions WHERE search_text IS NULL").fetchone() == (2,)
        assert [h.version.text for h in store.text_search("Portland", SearchFilter("u"), 5)] == [
            "lives in Portland"]
        b = Builder("u")
        b.memory("sounds great", search_text="Lena: sounds great\nshall we hike on Sunday?")
        store.write(b.batch)
        hits = store.text_search("hike", SearchFilter("u"), 5)
        assert [(h.version.text, h.version.search_text) for h in hits] == [
            ("sounds great", "Lena: sounds great\nshall we hike on Sunday?")]
        _same(store, random.Random(4), "u")  # FTS5 (new trigger) and the copy still agree
    finally:
        store.close()
    SQLiteStore(path, dimension=8).close()  # opening again finds it migrated
