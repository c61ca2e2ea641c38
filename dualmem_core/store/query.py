"""How a search reads its query: the words it looks for, and how neighbours through entities rank.

Both backends search with these, so a query means the same on either.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import replace

from .models import Neighbour, SearchFilter

MAX_QUERY_TERMS = 64  # a pasted document as a query should not become a 10,000-term OR

# Function words match nearly every memory: they add nothing to BM25's ranking but make the
# index walk every row, so a query drops them (unless it has nothing else).
STOPWORDS = frozenset("""
a an the and or but if then so of to in on at by for with from about as into over after before
is am are was were be been being do does did doing have has had having will would shall should
can could may might must i me my mine we us our you your he him his she her it its they them
their this that these those what which who whom whose when where why how there here not no
just very too also any some all each than such only own same s t don isn
""".split())


def observations(flt: SearchFilter) -> SearchFilter:
    """The filter, narrowed to observations (the messages themselves)."""
    return replace(flt, kinds=("observation",))


def query_terms(query: str) -> list[str]:
    """Words of a search query, lower-cased, deduplicated, function words dropped.

    Both backends quote each word in their own query syntax, so text that looks like FTS5 or
    Lucene syntax (quotes, AND, wildcards, field:value) is only ever searched as plain words.
    """
    words = list(dict.fromkeys(re.findall(r"\w+", query.casefold())))
    content = [w for w in words if w not in STOPWORDS]
    return (content or words)[:MAX_QUERY_TERMS]


def rank_neighbours(rows: list[tuple[str, str]], seeds_of: dict[str, tuple[str, ...]],
                    limit: int) -> list[Neighbour]:
    """Group (memory, entity) pairs into neighbours; most shared entities first, then by id."""
    via: dict[str, set[str]] = defaultdict(set)
    for memory_id, entity_id in rows:
        via[memory_id].add(entity_id)
    ranked = sorted(via.items(), key=lambda item: (-len(item[1]), item[0]))[:limit]
    return [Neighbour(m, tuple(sorted(ents)),
                      tuple(sorted({s for e in ents for s in seeds_of.get(e, ())})))
            for m, ents in ranked]
