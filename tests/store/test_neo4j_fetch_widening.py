"""Neo4j's cached searches send a few candidates a wanted hit first (``CACHE_FETCH``) and widen
by the pass rate they saw: whatever the first fetch, the answers are those of sending every
candidate at once, and a filter that rejects most candidates costs one or two more tries."""

from __future__ import annotations

import numpy as np
import pytest
from builders import Builder, at
from conftest import vec

from dualmem_core.store import SearchFilter
from dualmem_core.store.neo4j import search as search_module
from dualmem_core.store.neo4j import store as neo4j_module
from dualmem_core.store.neo4j.search import CACHE_WIDEN, _wider

WORDS = ["apple", "river", "stone", "cloud", "lamp"]


def _crowd(user: str) -> Builder:
    """60 memories over three sessions, two kinds and two validity periods, with words and
    vectors that leave many equal text scores (ties at the cut)."""
    b = Builder(user)
    rng = np.random.default_rng(7)
    for i in range(60):
        words = " ".join(WORDS[j] for j in range(5) if (i >> j) & 1 or j == i % 5)
        b.memory(words, vec(1.0, float(rng.uniform(0, 2))), valid_from=at(1 + i % 2),
                 kind="observation" if i % 3 == 0 else "fact", mem_kw={"session_id": "abc"[i % 3]})
    return b


def _answers(store, user: str) -> list:
    filters = [SearchFilter(user), SearchFilter(user, session_id="c"),
               SearchFilter(user, kinds=("observation",)),
               SearchFilter(user, valid_at=at(1, 15), session_id="b")]
    out = []
    for flt in filters:
        for k in (1, 4, 10):
            lists = store.hybrid_search(vec(1, 0.3), "apple river", flt, k, cues="stone lamp")
            out.append([[(h.version.id, round(h.score, 9)) for h in hits] for hits in lists])
    return out


@pytest.mark.neo4j
def test_the_first_fetch_size_never_changes_the_answers(neo4j_store, user, monkeypatch):
    neo4j_store.write(_crowd(user).batch)
    small = _answers(neo4j_store, user)
    monkeypatch.setattr(search_module, "CACHE_FETCH", 10_000)  # every candidate in the first try
    assert _answers(neo4j_store, user) == small
    assert any(len(lists[0]) == 10 for lists in small)  # the filters left k to find


@pytest.mark.neo4j
def test_a_filter_rejecting_most_candidates_widens_to_k_in_few_tries(neo4j_store, user, monkeypatch):
    b = Builder(user)
    for i in range(200):  # one in ten passes the session filter, and none of the best 20
        session = "rare" if i % 10 == 9 and i > 20 else "x"
        b.memory(f"note {i}", vec(1.0, 0.01 * i), mem_kw={"session_id": session})
    neo4j_store.write(b.batch)
    tries = []
    run = neo4j_module.Neo4jStore._searches

    def counting(self, heads, params, clock=False):
        tries.append(len(heads))
        return run(self, heads, params, clock)

    monkeypatch.setattr(neo4j_module.Neo4jStore, "_searches", counting)
    hits = neo4j_store.vector_search(vec(1, 0), SearchFilter(user, session_id="rare"), k=10)
    assert [h.version.text for h in hits] == [
        f"note {i}" for i in range(29, 129, 10)]
    assert len(tries) <= 3


def test_widening_follows_the_pass_rate_within_bounds():
    assert _wider(40, 10, 20) == 160  # a quarter passed: twice the 80 that rate needs
    assert _wider(40, 19, 20) == 84  # nearly enough: still more than doubled
    assert _wider(40, 0, 20) == 40 * CACHE_WIDEN  # nothing passed: the widest step
    assert _wider(40, 1, 20) == 40 * CACHE_WIDEN
