"""A client-side copy of each user's full-text postings: recall's text ranking with the user's
own BM25 statistics (issues 36 and 37).

Lucene's fulltext index scores with statistics over the whole index: a word's rarity (IDF) and
the mean document length count every tenant's versions, and deleted documents count until
segment merges run. The tenant clause narrows the matches to one user but not the statistics,
so another user's memories moved this user's scores and order. Recomputing BM25 in Python over
Lucene's candidates would still need the user's own counts (rows, mean length, rows holding
each word), which means reading all of the user's versions anyway; so this module keeps them,
as the embedded store does (``store/sqlite/text_index.py``, whose ``UserText`` and FTS5
tokenizer it reuses): each user's versions (current and closed, as the index holds them),
tokenized once, scored with FTS5's ``bm25()`` over the user's rows only. A user's text scores
are then the same on both stores, and depend on nothing but the user's own versions.

Kept in step with other writers by the user's clock, as the vector cache is (``vectors.py``):
a higher seq adds the versions stamped since (a version's search text never changes but when
``forget`` resets it, which deletes versions and so gives the clock a new epoch); another
epoch reloads the user. Query words the tokenizer makes into a phrase still go to Lucene.
"""

from __future__ import annotations

import threading

import neo4j
import numpy as np

from ..lru import LeastRecent
from ..sqlite.text_index import Tokenizer, UserText
from .rows import WRITTEN_ORDER, user_clock

MAX_ROWS = 400_000  # versions held over all users (the vector cache's bound); the user in use stays


class UserTexts:
    """One user's postings (``UserText``, rows numbered from 0) and the version id of each row."""

    def __init__(self, epoch: str | None, seq: int, key_tokens: int):
        self.epoch, self.seq = epoch, seq
        self.text = UserText(0, key_tokens)
        self.ids: list[str] = []
        self.row_of: dict[str, int] = {}
        self.lock = threading.Lock()

    @property
    def rows(self) -> int:
        return len(self.ids)

    def add(self, rows: list[tuple[str, str]]) -> None:
        """Queue (version id, search text) rows not held yet; ``ranked`` tokenizes them."""
        for version_id, text in rows:
            if version_id not in self.row_of:
                self.row_of[version_id] = len(self.ids)
                self.text.pending.append((len(self.ids), text))
                self.ids.append(version_id)

    def ranked(self, tokenizer: Tokenizer, tokens: list[str], n: int) -> tuple[list[tuple[str, float]], bool]:
        """The n versions of best BM25 score for ``tokens`` as (version id, score), best first
        (equal scores by id), plus every version tied with the n-th; and whether that is all
        the versions matching a token."""
        self.text.settle(tokenizer)
        rows, scores = self.text.ranked(tokens)
        if rows.size > n:
            bar = -np.partition(-scores, n - 1)[n - 1]
            keep = scores >= bar
            picked, picked_scores = rows[keep], scores[keep]
        else:
            picked, picked_scores = rows, scores
        ids = self.ids
        ranked = sorted(((ids[row], score) for row, score in
                         zip(picked.tolist(), picked_scores.tolist(), strict=True)),
                        key=lambda item: (-item[1], item[0]))
        return ranked, picked.size == rows.size


class TextCache:
    """The ``UserTexts`` of the most recently used users, refreshed from the clock."""

    def __init__(self, max_rows: int = MAX_ROWS):
        self.tokenizer = Tokenizer()
        self._users: LeastRecent[str, UserTexts] = LeastRecent(max_weight=max_rows, weigh=_rows)
        self._lock = threading.Lock()

    def entry(self, user_id: str) -> UserTexts:
        with self._lock:
            entry = self._users.get(user_id)
            if entry is None:
                entry = self._users[user_id] = UserTexts(None, -1, self._key_tokens(user_id))
            self._users.trim()
            return entry

    def _key_tokens(self, user_id: str) -> int:
        # The embedded store counts its rows' tenant column in their length (the key is one
        # token): counted the same way here, so both stores give a user the same scores.
        _, lengths = self.tokenizer.counts([(1, f"u{user_id.encode().hex()}")])
        return lengths.get(1, 0)

    def tokens(self, words: list[str]) -> list[str] | None:
        """The one token of each query word, or None if a word is a phrase to the tokenizer."""
        return self.tokenizer.phrases(words)

    def refresh(self, tx: neo4j.ManagedTransaction, user_id: str, entry: UserTexts) -> None:
        """Bring ``entry`` (its lock held) up to date with the store: one query if nothing changed."""
        seq, epoch = user_clock(tx, user_id)
        if epoch == entry.epoch and seq == entry.seq:
            return
        if entry.seq < 0 or epoch != entry.epoch:  # first read, or deletions: the whole user
            fresh = UserTexts(epoch, seq, entry.text.key_tokens)
            entry.text, entry.ids, entry.row_of = fresh.text, fresh.ids, fresh.row_of
            query = "MATCH (v:MemoryVersion) WHERE v.user_id = $user "
        else:  # versions stamped since (new, closed or reopened: only new ones are added)
            query = "MATCH (v:MemoryVersion) WHERE v.user_id = $user AND v.seq > $since "
        entry.add([(r["id"], r["search"]) for r in tx.run(
            query + "RETURN v.id AS id, coalesce(v.search, v.text) AS search "
            f"ORDER BY {WRITTEN_ORDER}",
            user=user_id, since=entry.seq)])
        entry.epoch, entry.seq = epoch, seq

    def close(self) -> None:
        self.tokenizer.close()


def _rows(entry: UserTexts) -> int:
    return entry.rows
