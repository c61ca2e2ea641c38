"""An in-process copy of one user's full-text postings, scored exactly as FTS5's ``bm25()``.

FTS5 ranks every row that matches a query, and its ``bm25()`` first counts the rows of every
phrase, the tenant's own ``user_key`` phrase included: at 100k memories a query for a common
word took tens of milliseconds. This index holds, per user, each token's rows and counts and
each row's length, tokenized by FTS5 itself (a private in-memory table with the same
tokenizer), and scores with FTS5's formula, constants and operation order, so scores and ties
(equal scores in rowid order) come out as FTS5's would:

    idf   = log((N - n + 0.5) / (n + 0.5)), at least 1e-6       (N rows, n rows with the token)
    score = sum over phrases of idf * f * (k1 + 1) / (f + k1 * (1 - b + b * D / avgdl))

with N, avgdl and n over the user's own rows (FTS5 counts them over the whole table, every
tenant: another user's memories would move this one's ranking); f counts the token in the text
column, D is the row's length in tokens over both columns. For one tenant the scores are FTS5's
to the last bit. A query word FTS5 reads as a phrase still goes to FTS5 itself, with its
table-wide counts.
"""

from __future__ import annotations

import math
import sqlite3
import threading
from collections import defaultdict
from typing import cast

import numpy as np

TOKENIZER = "porter unicode61 remove_diacritics 2"  # versions_fts's, in schema.sql
K1, B = 1.2, 0.75  # FTS5's bm25 constants
_MAX_WORDS = 100_000  # query words whose token is remembered
_MAX_TERMS = 2_000  # tokens whose score terms are kept per user (8 bytes a posting)


class Tokenizer:
    """FTS5's tokenizer, run on a private in-memory FTS5 table; safe to share between threads."""

    def __init__(self) -> None:
        self._conn = sqlite3.connect(":memory:", check_same_thread=False, isolation_level=None)
        self._conn.execute(f"CREATE VIRTUAL TABLE t USING fts5 (text, tokenize = '{TOKENIZER}')")
        self._conn.execute("CREATE VIRTUAL TABLE v USING fts5vocab (t, 'instance')")
        self._lock = threading.Lock()
        self._tokens: dict[str, str | None] = {}  # word -> its one token, None if not exactly one

    def counts(self, rows: list[tuple[int, str]]) -> tuple[list[tuple[str, int, int]], dict[int, int]]:
        """(token, row id, count) of every token in each (row id, text), and each row's length."""
        if not rows:
            return [], {}
        with self._lock:
            conn = self._conn
            conn.execute("BEGIN")
            try:
                conn.executemany("INSERT INTO t (rowid, text) VALUES (?, ?)", rows)
                counts = conn.execute("SELECT term, doc, count(*) FROM v GROUP BY term, doc").fetchall()
                lengths = dict(conn.execute("SELECT doc, count(*) FROM v GROUP BY doc").fetchall())
            finally:
                conn.execute("ROLLBACK")  # the table stays empty for the next call
        return counts, lengths

    def phrases(self, words: list[str]) -> list[str] | None:
        """The one token each quoted query word becomes, or None if any becomes zero or several
        (a phrase, which only FTS5 itself matches)."""
        unknown = [w for w in dict.fromkeys(words) if w not in self._tokens]
        if unknown:  # queries repeat words: each is tokenized once (three statements saved)
            counts, lengths = self.counts([(i + 1, w) for i, w in enumerate(unknown)])
            token = {doc: term for term, doc, _ in counts}
            if len(self._tokens) + len(unknown) > _MAX_WORDS:
                self._tokens.clear()
            for i, word in enumerate(unknown):
                self._tokens[word] = token[i + 1] if lengths.get(i + 1) == 1 else None
        tokens = [self._tokens.get(w) for w in words]
        return None if any(t is None for t in tokens) else cast(list[str], tokens)

    def close(self) -> None:
        self._conn.close()


class UserText:
    """Postings of one user's versions (current and closed): what FTS5 holds for that tenant."""

    def __init__(self, generation: int, key_tokens: int):
        self.generation = generation
        self.key_tokens = key_tokens  # tokens of the row's user_key column, part of its length
        self.rids: list[int] = []
        self.lengths: list[float] = []
        self._rids = np.zeros(0, dtype=np.int64)
        self._lengths = np.zeros(0, dtype=np.float64)
        self._total_length = 0.0
        self._norms = np.zeros(0, dtype=np.float64)
        self._postings: dict[str, list[tuple[np.ndarray, np.ndarray]]] = defaultdict(list)
        self.pending: list[tuple[int, str]] = []  # (rid, text) written since, not yet tokenized
        # token -> its term of the score of each row of its postings: the same until the rows
        # change, and queries repeat words ("live", "work"), some in a fifth of the rows.
        self._terms: dict[str, np.ndarray] = {}

    def add(self, tokenizer: Tokenizer, rows: list[tuple[int, str]]) -> None:
        """Tokenize and index rows (rid, text)."""
        counts, lengths = tokenizer.counts(rows)
        first = len(self.rids)
        position = {rid: first + i for i, (rid, _) in enumerate(rows)}
        self.rids += [rid for rid, _ in rows]
        self.lengths += [float(lengths.get(rid, 0) + self.key_tokens) for rid, _ in rows]
        by_term: dict[str, tuple[list[int], list[float]]] = {}
        for term, rid, count in counts:
            rows_of, tfs = by_term.setdefault(term, ([], []))
            rows_of.append(position[rid])
            tfs.append(float(count))
        for term, (rows_of, tfs) in by_term.items():
            self._postings[term].append((np.asarray(rows_of, dtype=np.int64),
                                         np.asarray(tfs, dtype=np.float64)))

    def settle(self, tokenizer: Tokenizer) -> None:
        """Index what was written since the last search."""
        if self.pending:
            rows, self.pending = self.pending, []
            self.add(tokenizer, rows)
        if len(self._rids) != len(self.rids):
            self._rids = np.asarray(self.rids, dtype=np.int64)
            self._lengths = np.asarray(self.lengths, dtype=np.float64)
            self._total_length = float(self._lengths.sum())
            # Each row's k1 * (1 - b + b * D / avgdl), once per change of rows rather than per
            # token of every query: the same operations on the same values, the same bits.
            avgdl = self._total_length / float(self._rids.size)
            self._norms = K1 * ((1 - B) + B * self._lengths / avgdl)
            self._terms.clear()

    def postings(self, token: str) -> tuple[np.ndarray, np.ndarray]:
        chunks = self._postings.get(token)
        if not chunks:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float64)
        if len(chunks) > 1:
            chunks[:] = [(np.concatenate([c[0] for c in chunks]), np.concatenate([c[1] for c in chunks]))]
        return chunks[0]

    def ranked(self, tokens: list[str]) -> tuple[np.ndarray, np.ndarray]:
        """(rids, scores) of every row holding a token, in row order; ``best`` orders them.

        N, avgdl and each token's row count are this user's: the scores are FTS5's for a table
        holding only this user's rows."""
        if not self._rids.size:
            return np.zeros(0, dtype=np.int64), np.zeros(0)
        found = [(rows, self._term(token, rows, tfs)) for token in tokens  # in phrase order, as
                 for rows, tfs in [self.postings(token)] if rows.size]  # FTS5 sums them (+0.0 if none)
        if len(found) == 1:  # 0.0 + the one term is the term: no row-sized arrays (``best`` orders)
            return self._rids[found[0][0]], found[0][1]
        score = np.zeros(len(self._rids), dtype=np.float64)
        matched = np.zeros(len(self._rids), dtype=bool)
        for rows, term in found:
            score[rows] += term
            matched[rows] = True
        at = np.flatnonzero(matched)
        return self._rids[at], score[at]

    def _term(self, token: str, rows: np.ndarray, tfs: np.ndarray) -> np.ndarray:
        """The token's term of the score of each row of its postings (read-only: shared)."""
        term = self._terms.get(token)
        if term is None:
            hits = rows.size
            idf = math.log((int(self._rids.size) - hits + 0.5) / (hits + 0.5))
            idf = idf if idf > 0.0 else 1e-6
            term = idf * ((tfs * (K1 + 1.0)) / (tfs + self._norms[rows]))
            if len(self._terms) >= _MAX_TERMS:  # a bound on memory, not an eviction policy
                self._terms.clear()
            self._terms[token] = term
        return term


def best(rids: np.ndarray, scores: np.ndarray, n: int) -> list[tuple[int, float]]:
    """The first n (rid, score) by score, best first, equal scores by rid: FTS5's order."""
    if n < rids.size:  # only rows scoring at least the n-th best can be among them
        keep = np.flatnonzero(scores >= np.partition(scores, rids.size - n)[rids.size - n])
        rids, scores = rids[keep], scores[keep]
    order = np.lexsort((rids, -scores))[:n]
    return list(zip(rids[order].tolist(), scores[order].tolist(), strict=True))
