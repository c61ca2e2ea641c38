"""The embedded store's searches: vectors (the in-process cache), full text (the in-process
postings or FTS5), both."""

from __future__ import annotations

import json
import sqlite3
from collections import defaultdict

import numpy as np

from ..models import (
    Memory,
    MemoryVersion,
    Neighbour,
    SearchFilter,
    SearchHit,
)
from ..query import observations, rank_neighbours
from . import rows as R
from .queries import (
    _BY_DST,
    _BY_SRC,
    _HIT_SELECT,
    _filter_sql,
    _needs_memory,
)
from .state import SQLiteState
from .text_index import Tokenizer, UserText, best
from .vectors import FAR, UserVectors


class Search(SQLiteState):
    """Vector, text and hybrid search, and the Writer's neighbours (a mixin of ``SQLiteStore``)."""

    # -- search ---------------------------------------------------------------------------

    def _vector_search(self, unit_query: np.ndarray, flt: SearchFilter, k: int) -> list[SearchHit]:
        return self._hits(flt.user_id, self._vector_top(unit_query, flt, k))

    def _vector_top(self, unit_query: np.ndarray, flt: SearchFilter, k: int) -> list[tuple[int, float]]:
        cache = self._vectors(flt.user_id)
        with self._lock:
            return cache.top_k(unit_query, flt, k)

    def _hybrid_search(self, unit_query: np.ndarray, terms: list[str], flt: SearchFilter, k: int,
                       cues: list[str]) -> tuple[list[SearchHit], list[SearchHit], list[SearchHit]]:
        # The lists' rows in one read: they share many rows, and a read per list cost a tenth of recall.
        by_vector = self._vector_top(unit_query, flt, k)
        by_text = self._text_top(terms, flt, k) if terms else []
        by_cue = self._text_top(cues, observations(flt), k) if cues else []
        found = self._rows_by_rid(flt.user_id, [rid for rid, _ in by_vector + by_text + by_cue])
        vector, text, cue = (self._hits(flt.user_id, hits, found) for hits in (by_vector, by_text, by_cue))
        return vector, text, cue

    def _nearest_memories(self, user_id: str, unit: np.ndarray, k: int,
                          min_score: float) -> list[list[tuple[str, float]]]:
        cache = self._vectors(user_id)
        with self._lock:  # over-fetch: several versions of one memory may rank together
            tops = cache.top_k_many(unit, SearchFilter(user_id), 2 * k, min_score)
        rids = sorted({rid for top in tops for rid, _ in top})
        memory_of = dict(self._conn().execute(
            "SELECT rid, memory_id FROM versions WHERE rid IN (SELECT value FROM json_each(?))",
            (json.dumps(rids),)).fetchall()) if rids else {}
        out = []
        for top in tops:
            best: dict[str, float] = {}
            for rid, score in top:
                if rid in memory_of:
                    best.setdefault(memory_of[rid], score)
            out.append(list(best.items())[:k])
        return out

    def _vectors(self, user_id: str) -> UserVectors:
        """The user's vector cache, reloaded when another process or connection wrote."""
        with self._lock:
            cache = self._caches.get(user_id)
        if cache is None or cache.generation != self._generation(user_id):
            cache = self._load_vectors(user_id)
        return cache

    def _generation(self, user_id: str) -> int:
        memo = getattr(self._local, "generations", None)
        if memo is not None and user_id in memo:
            return memo[user_id]
        row = self._conn().execute("SELECT generation FROM user_generation WHERE user_id = ?",
                                   (user_id,)).fetchone()
        generation = 0 if row is None else row[0]
        if memo is not None:
            memo[user_id] = generation
        return generation

    def _load_vectors(self, user_id: str) -> UserVectors:
        with self._tx(write=False) as conn:
            generation = conn.execute("SELECT generation FROM user_generation WHERE user_id = ?",
                                      (user_id,)).fetchone()
            rows = conn.execute(
                "SELECT v.rid, v.embedding, v.valid_from, v.valid_to, v.tx_from, v.tx_to, m.kind, "
                "v.status, m.agent_id, m.session_id FROM versions v "
                "JOIN memories m ON m.id = v.memory_id "
                "WHERE v.user_id = ? AND v.embedding IS NOT NULL ORDER BY v.rid",
                (user_id,)).fetchall()
        cache = UserVectors(self.dimension, 0 if generation is None else generation[0])
        cache.append(rows)
        with self._lock:
            self._caches[user_id] = cache
        return cache

    def _hits(self, user_id: str, scored: list[tuple[int, float]],
              found: dict[int, tuple[MemoryVersion, Memory]] | None = None) -> list[SearchHit]:
        """Search hits of (rid, score) pairs, from rows already read (``found``) or read now."""
        if found is None:
            found = self._rows_by_rid(user_id, [rid for rid, _ in scored])
        return [SearchHit(found[rid][1], found[rid][0], score) for rid, score in scored
                if rid in found]

    def _rows_by_rid(self, user_id: str, rids: list[int]) -> dict[int, tuple[MemoryVersion, Memory]]:
        """The version and memory of each of the user's rids, through the kept rows (kept_reads.py)."""
        if not rids:
            return {}
        rids = list(dict.fromkeys(rids))
        generation = self._generation(user_id)
        with self._lock:
            kept = self._kept_at(user_id, generation)
            rows, lacking = kept.hit_rows(rids), kept.missing_rows(rids)
            inside = getattr(self._local, "generations", None) is not None  # in ``reading``'s snapshot
            counts_written = self._local.counts_at if inside else self._counts_written
        if lacking:
            width = len(R.VERSION_COLUMNS.split(","))
            with self._tx(write=False) as conn:  # the rows and their generation from one snapshot
                read_at = self._generation(user_id)
                read = conn.execute(_HIT_SELECT + " WHERE v.rid IN (SELECT value FROM json_each(?))",
                                    (json.dumps(lacking),)).fetchall()
            new = [(r[0], r[1:width + 1], r[width + 1:]) for r in read]
            with self._lock:
                # Counts committed since the snapshot began may or may not be in these rows:
                # then they are not kept (``_tx`` commits counts and adds them to kept rows at
                # once, under the lock).
                if kept.generation == read_at and self._counts_written == counts_written:
                    kept.keep_rows(new)
            rows += new
        memories = self._access.seen([R.to_memory(memory) for _, _, memory in rows])
        return {rid: (R.to_version(version), memory)
                for (rid, version, _), memory in zip(rows, memories, strict=True)}

    def _count_kept(self, taken: dict[tuple[str, str], list[int]]) -> None:
        """Counts just committed, added to the kept rows' memories (under ``self._lock``)."""
        self._counts_written += 1
        for (user_id, memory_id), (count, at) in taken.items():
            kept = self._kept.get(user_id)
            if kept is not None:
                kept.counted(memory_id, count, at)

    def _text_search(self, terms: list[str], flt: SearchFilter, k: int) -> list[SearchHit]:
        return self._hits(flt.user_id, self._text_top(terms, flt, k))

    def _text_top(self, terms: list[str], flt: SearchFilter, k: int) -> list[tuple[int, float]]:
        """(rid, bm25) of the best k rows the filter admits."""
        conn = self._conn()
        ranked = self._text_ranked(conn, terms, flt.user_id)
        if ranked is None:  # a word that is a phrase to FTS5: FTS5 itself ranks
            return self._fts_top(conn, terms, flt, k)
        # Best first, checked against the filters a page at a time until k pass: what ranking
        # every match in FTS5 and joining the filters would return, equal scores by rowid.
        rids, scores = ranked
        top: list[tuple[int, float]] = []
        start, page = 0, max(k * 10, 100)
        while len(top) < k and start < rids.size:
            chunk = best(rids, scores, start + page)[start:]
            admitted = self._admitted(conn, [rid for rid, _ in chunk], flt)
            top += [(rid, score) for rid, score in chunk if rid in admitted]
            start, page = start + page, 2 * page
        return top[:k]

    def _text_ranked(self, conn: sqlite3.Connection, terms: list[str],
                     user_id: str) -> tuple[np.ndarray, np.ndarray] | None:
        """(rids, bm25 scores) of the user's rows matching a term, from the in-process postings
        (``text_index.py``), with the user's own statistics; None when a term is not one token."""
        with self._lock:
            if self._tokenizer is None:
                self._tokenizer = Tokenizer()
            tokenizer = self._tokenizer
        tokens = tokenizer.phrases(terms)
        if tokens is None:
            return None
        index = self._user_text(user_id)
        with self._lock:
            index.settle(tokenizer)
            # BM25's statistics are the user's own (rows, their mean length, rows holding a
            # token): another tenant's memories never move this user's ranking.
            return index.ranked(tokens)

    def _user_text(self, user_id: str) -> UserText:
        """The user's full-text postings, rebuilt when another process or connection wrote."""
        with self._lock:
            index = self._texts.get(user_id)
        if index is not None and index.generation == self._generation(user_id):
            return index
        with self._tx(write=False) as conn:
            generation = conn.execute("SELECT generation FROM user_generation WHERE user_id = ?",
                                      (user_id,)).fetchone()
            # The string the FTS trigger indexed (schema.sql), so scores stay FTS5's own.
            rows = conn.execute("SELECT rid, coalesce(search_text, text) FROM versions "
                                "WHERE user_id = ? ORDER BY rid", (user_id,)).fetchall()
        with self._lock:
            tokenizer = self._tokenizer
        assert tokenizer is not None
        _, key_length = tokenizer.counts([(1, f"u{user_id.encode().hex()}")])
        index = UserText(0 if generation is None else generation[0], key_length.get(1, 0))
        index.add(tokenizer, rows)
        with self._lock:
            self._texts[user_id] = index
        return index

    def _fts_top(self, conn: sqlite3.Connection, terms: list[str], flt: SearchFilter,
                 k: int) -> list[tuple[int, float]]:
        words = " OR ".join(f'"{t}"' for t in terms)
        match = f'user_key:"u{flt.user_id.encode().hex()}" AND text:({words})'
        # First the index alone, over-fetched: ranking inside FTS5 is several times cheaper
        # than joining every match. Only if the filters then leave fewer than k, rank them all.
        fetch = max(k * 10, 100)
        ranked = conn.execute(
            "SELECT rowid, -bm25(versions_fts, 1.0, 0.0) FROM versions_fts WHERE versions_fts MATCH ? "
            "ORDER BY bm25(versions_fts, 1.0, 0.0) LIMIT ?", (match, fetch)).fetchall()
        admitted = self._admitted(conn, [rid for rid, _ in ranked], flt)
        top = [(rid, float(score)) for rid, score in ranked if rid in admitted][:k]
        if len(top) < k and len(ranked) == fetch:
            top = self._text_search_all(conn, match, flt, k)
        return top

    def _admitted(self, conn: sqlite3.Connection, rids: list[int], flt: SearchFilter) -> set[int]:
        """The rows among ``rids`` that the filter admits: from the vector cache's columns, and
        from the table for rows the cache lacks (versions without an embedding)."""
        if not rids:
            return set()
        cache = self._vectors(flt.user_id)
        wanted = np.asarray(rids, dtype=np.int64)
        with self._lock:
            held, admitted = cache.admits(wanted, flt)
        found = set(wanted[admitted].tolist())
        missing = wanted[~held].tolist()
        return found | self._admitted_by_table(conn, missing, flt) if missing else found

    @staticmethod
    def _admitted_by_table(conn: sqlite3.Connection, rids: list[int], flt: SearchFilter) -> set[int]:
        """The rows among ``rids`` that the filter admits, read from the table."""
        if not rids:
            return set()
        where, params = _filter_sql(flt)
        # "+v.user_id" keeps SQLite on the rowids: by the user's time index it scans the user.
        where = where.replace("v.user_id = ?", "+v.user_id = ?", 1)
        join = " JOIN memories m ON m.id = v.memory_id" if _needs_memory(flt) else ""
        rows = conn.execute(f"SELECT v.rid FROM versions v{join} WHERE v.rid IN "
                            f"(SELECT value FROM json_each(?)) AND {where}",
                            (json.dumps(rids), *params)).fetchall()
        return {rid for (rid,) in rows}

    @staticmethod
    def _text_search_all(conn: sqlite3.Connection, match: str, flt: SearchFilter,
                         k: int) -> list[tuple[int, float]]:
        where, params = _filter_sql(flt)
        # Join memories only when a filter needs their columns: every match pays for the join.
        join = " JOIN memories m ON m.id = v.memory_id" if _needs_memory(flt) else ""
        rows = conn.execute(
            f"SELECT f.rowid, -bm25(versions_fts, 1.0, 0.0) FROM versions_fts f "
            f"JOIN versions v ON v.rid = f.rowid{join} "
            f"WHERE versions_fts MATCH ? AND {where} ORDER BY bm25(versions_fts, 1.0, 0.0) LIMIT ?",
            (match, *params, k)).fetchall()
        return [(rid, float(score)) for rid, score in rows]

    def _entity_neighbours(self, user_id: str, memory_ids: list[str], max_entity_degree: int,
                           limit: int) -> list[Neighbour]:
        seeds = list(dict.fromkeys(memory_ids))
        mentions = "FROM edges WHERE user_id = ? AND type = 'MENTIONS' AND tx_to = ?"
        by_dst = mentions.replace("edges", _BY_DST)  # the planner, without statistics, may take another

        def pairs(name: str, sql: str, ids: list[str]) -> dict[str, list[str]]:
            """{id: its ends}: recall's seeds and their entities repeat."""
            return self._kept_pairs(user_id, name, ids, lambda conn, missing: conn.execute(
                sql, (user_id, FAR, json.dumps(missing))).fetchall())

        seeds_of: dict[str, list[str]] = defaultdict(list)
        for seed, entities in pairs("mentions", f"SELECT src_id, dst_id {mentions.replace('edges', _BY_SRC)} "
                                    "AND src_id IN (SELECT value FROM json_each(?))", seeds).items():
            for entity in entities:
                seeds_of[entity].append(seed)
        cap = max_entity_degree + 1

        def count(conn: sqlite3.Connection, missing: list[str]) -> list[tuple]:
            # Each entity's mentions counted only up to the hub limit: a hub's full count is not needed.
            return conn.execute(
                f"SELECT e.value, (SELECT count(*) FROM (SELECT 1 {by_dst} AND dst_id = e.value LIMIT ?)) "
                "FROM json_each(?) e", (user_id, FAR, cap, json.dumps(missing))).fetchall()

        degrees = self._through_kept(
            user_id, list(seeds_of), lambda k, ids: k.uncounted(ids, cap), count,
            lambda k, _, rows: k.keep_degrees(rows, cap), lambda k, ids: k.known_degrees(ids, cap))
        kept = [e for e, degree in degrees.items() if degree <= max_entity_degree]
        mentioned = pairs("mentioned_by", f"SELECT dst_id, src_id {by_dst} AND dst_id IN "
                          "(SELECT value FROM json_each(?))", kept)
        wanted = set(seeds)
        rows = [(src, e) for e in kept for src in mentioned[e] if src not in wanted]
        return rank_neighbours(rows, {e: tuple(sorted(s)) for e, s in seeds_of.items()}, limit)
