"""A tenant's recall does not depend on the other tenants of the store (issues 36 and 37): the
same texts, in the same order, with the same scores to the last bit, before and after a
thousand other users with the same words are written (and, some of them, deleted again)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from builders import Builder

from dualmem_core import Writer
from dualmem_core.providers import HashingEmbedder
from dualmem_core.store import SearchFilter

T0 = datetime(2026, 3, 1, tzinfo=UTC)
MINE = [
    "I live in Portland with my dog Rex.",
    "My sister Lena lives in Seattle.",
    "I work as a nurse at the city hospital.",
    "I love hiking in the mountains on weekends.",
    "My dog Rex loves the park near our house.",
    "I moved to Portland from Denver last year.",
    "Lena works at a bakery in Seattle.",
    "I am allergic to peanuts.",
    "We adopted Rex from a shelter in Denver.",
    "The hospital moved me to night shifts.",
]
QUERIES = ["Where does the user live?", "dog", "Who works in Seattle?", "hiking mountains weekends",
           "hospital nurse shifts", "Denver shelter"]
# The other users' words overlap the first user's (so the index's statistics would move) and
# their vectors are close to the queries' (so they would crowd a shared vector index).
THEIRS = ["I live in Portland too.", "My dog loves Seattle parks.", "I work at a hospital in Denver.",
          "Hiking in the mountains is what I do.", "I live near the hospital with my dog."]


def _recall(writer: Writer, user: str) -> list[list[tuple[str, float, bool]]]:
    return [[(h.text, h.score, h.current) for h in writer.recall(q, user_id=user, k=5, record_access=False)]
            for q in QUERIES]


def _searches(store, embedder, user: str) -> list:
    flt = SearchFilter(user)
    out = []
    for q in QUERIES:
        vector = embedder.embed([q])[0]
        out.append([(h.version.text, h.score) for h in store.text_search(q, flt, k=5)])
        out.append([(h.version.text, h.score) for h in store.vector_search(vector, flt, k=5)])
    return out


def test_a_users_results_do_not_depend_on_other_users(store, user, backend):
    embedder = HashingEmbedder(store.dimension)
    writer = Writer(store, embedder=embedder, sync=True)
    for i, text in enumerate(MINE):
        writer.remember(text, user_id=user, session_id="s1", at=T0 + timedelta(hours=i), source_id=f"m{i}")
    before, searched = _recall(writer, user), _searches(store, embedder, user)
    assert all(before) and all(searched[0::2]) and all(searched[1::2])

    others = [f"{user}-other-{n}" for n in range(1000)]
    texts = sorted({t for t in THEIRS + MINE})
    vectors = embedder.embed(texts)
    by_text = dict(zip(texts, vectors, strict=True))
    for n, other in enumerate(others):  # one batch (transaction) per user: the store's unit
        b = Builder(other)
        for j in range(3):
            text = THEIRS[(n + j) % len(THEIRS)] if j < 2 else MINE[n % len(MINE)]
            b.memory(text, by_text[text])
        store.write(b.batch)
    if backend == "neo4j":  # deleted documents stay in Lucene's statistics until merges run
        for other in others[::3]:
            store.delete_user(other)

    assert _recall(writer, user) == before
    assert _searches(store, embedder, user) == searched
