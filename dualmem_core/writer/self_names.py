"""The user's own names, so a question that names the user finds facts about "user".

The extractors store what the speaker says about themselves with the subject "user" ("user
lives in Minneapolis"), while people ask about the user by name ("Where does Priya live?").
Recall reads the names the user gave (``name`` and ``nickname`` facts about "user") and asks
about "the user" where the question says one of them, for the vector and the text search.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from ..store import SearchFilter, Store

SELF_PREDICATES = ("name", "nickname")


def self_names(store: Store, user_id: str) -> list[str]:
    """Names the user gave themselves, longest first (so "Priya Raman" wins over "Priya")."""
    hits = store.list_facts(
        SearchFilter(user_id, statuses=("active", "superseded")), predicates=list(SELF_PREDICATES), limit=50
    )
    names = {
        h.version.object.strip()
        for h in hits
        if (h.version.subject or "").casefold() == "user" and not h.version.negated and h.version.object
    }
    return longest_first(names)


def longest_first(names: Iterable[str]) -> list[str]:
    """The order ``about_user`` needs: "Priya Raman" is replaced before "Priya"."""
    return sorted((n for n in names if n), key=lambda n: (-len(n), n))


def about_user(query: str, names: Iterable[str], *, as_: str = "the user") -> str:
    """``query`` with each of the user's names read as "the user" ("Priya's" as "the user's").

    ``as_=""`` drops the names (and their "'s") instead, for the text search: every fact is
    stored about "user", so that word matches them all alike and drowns the words that matter."""
    possessive = "" if as_ else r"(?:'s)?"
    for name in names:
        query = re.sub(rf"(?<![\w]){re.escape(name)}{possessive}(?![\w])", as_, query, flags=re.IGNORECASE)
    return query
