"""Bad input to ``Writer.remember``, ``Writer.recall`` and the store API: each call works or raises
one of our errors (a ``DualmemError`` with a message), and a refused call writes nothing.

Property-based (hypothesis) on the embedded store; text that looks like Cypher, Lucene, FTS5 or
SQL, control characters and bad vectors also on Neo4j, with fixed examples.
"""

from __future__ import annotations

import math
import uuid
from datetime import UTC, datetime, timedelta, timezone

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from dualmem_core import Writer, open_store
from dualmem_core.errors import DimensionMismatch, DualmemError, InvalidInput
from dualmem_core.store import DEFAULT_DIMENSION, Episode, Memory, MemoryVersion, SearchFilter, WriteBatch
from dualmem_core.store.query import query_terms
from dualmem_core.store.validate import MAX_TEXT_CHARS

PROPERTY = settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
T = datetime(2025, 6, 1, 12, tzinfo=UTC)
SPECIAL = [
    "\"'); MATCH (n) DETACH DELETE n //",
    "' OR 1=1 }) MATCH (n) SET n.user_id = 'x' RETURN n //",
    'AND OR NOT * ? : ~ ^ ( ) [ ] { } " \\',
    'title:boston~2 AND "I live"^4 OR lives* -in +Boston [a TO z] {0 TO 9} /re.ex/ &&||!',
    'NEAR(boston portland, 2) "unterminated * ^ col:umn - OR AND NOT',
    "'; DROP TABLE episodes; -- I live in Boston",
    "I live in Boston\x00 with\x07 my\x1b[31m cat\x7f \u200b\ufeff\u2028 ok",
    "$user {user} $$ %s %(x)s {{0}} ${jndi:ldap://x}",
]
RELATIVE = [
    "I moved to Boston last week.",
    "I will visit Paris next year.",
    "I am moving to Oslo tomorrow.",
    "Since March I work at Acme.",
    "I was born in 1990.",
]


@pytest.fixture(scope="module")
def sqlite_store(tmp_path_factory):
    """One embedded store for the property tests; each example uses a fresh user."""
    store = open_store(
        f"sqlite:///{tmp_path_factory.mktemp('input') / 'memory.db'}", dimension=DEFAULT_DIMENSION
    )
    yield store
    store.close()


def fresh_user() -> str:
    return f"in-{uuid.uuid4().hex[:10]}"


def works_or_refuses(store, user: str, call):
    """Run ``call``; on an error, it must be ours, say something, and leave the user's counts alone.

    Returns the call's result, or the error it raised.
    """
    before = store.counts(user)
    try:
        return call()
    except DualmemError as exc:
        assert str(exc).strip(), f"{type(exc).__name__} without a message"
        assert store.counts(user) == before, "a refused call wrote part of its records"
        return exc


def stored_exactly(store, user: str, source_id: str, text: str) -> None:
    [episode] = store.episodes_by_source(user, [source_id])
    assert episode.text == text


def has_surrogate(text: str) -> bool:
    return any(0xD800 <= ord(c) <= 0xDFFF for c in text)


lone_surrogate = st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF, exclude_categories=())
texts = st.one_of(
    st.text(st.characters(codec=None, exclude_categories=()), max_size=300),  # control characters too
    st.text(" \t\n\r\x0b\x0c\u00a0\u2003\u3000", max_size=20),  # only whitespace
    st.sampled_from(SPECIAL),
    st.builds(lambda a, b: a + b, st.sampled_from(SPECIAL + RELATIVE), st.text(max_size=50)),
    st.builds(lambda a, s, b: a + s + b, st.text(max_size=30), lone_surrogate, st.text(max_size=30)),
)


# -- remember ---------------------------------------------------------------------------------


@PROPERTY
@given(text=texts)
@example(text="")
@example(text="   \n\t ")
@example(text="I live in \ud800 Boston")
@example(text="\udfff")
def test_remember_stores_any_text_exactly_or_refuses_it(sqlite_store, text):
    user, writer = fresh_user(), Writer(sqlite_store)
    outcome = works_or_refuses(
        sqlite_store, user, lambda: writer.remember(text, user_id=user, at=T, source_id="m1")
    )
    if not text.strip() or has_surrogate(text):
        assert isinstance(outcome, InvalidInput), f"{text!r} should be refused, got {outcome!r}"
        assert ("empty" in str(outcome)) or ("not valid Unicode" in str(outcome))
    else:
        assert not isinstance(outcome, Exception), outcome
        stored_exactly(sqlite_store, user, "m1", text)


@PROPERTY
@given(
    text=st.sampled_from(RELATIVE + ["hello there"]),
    at=st.datetimes(
        min_value=datetime(1900, 1, 1),
        max_value=datetime(2200, 1, 1),
        timezones=st.one_of(
            st.none(),
            st.just(UTC),
            st.builds(lambda h: timezone(timedelta(minutes=h)), st.integers(-14 * 60, 14 * 60)),
        ),
    ),
)
def test_remember_at_any_plausible_time_works_and_a_naive_one_is_refused(sqlite_store, text, at):
    user, writer = fresh_user(), Writer(sqlite_store)
    outcome = works_or_refuses(
        sqlite_store, user, lambda: writer.remember(text, user_id=user, at=at, source_id="m1")
    )
    if at.tzinfo is None:
        assert isinstance(outcome, InvalidInput) and "no timezone" in str(outcome)
    else:
        assert not isinstance(outcome, Exception), outcome
        [episode] = sqlite_store.episodes_by_source(user, ["m1"])
        assert episode.observed_at == at




@pytest.mark.parametrize(
    ("text", "at"),
    [
        ("hello", datetime(1, 1, 1, 1, tzinfo=UTC)),
        ("I was born in 1990.", datetime(1, 1, 1, 1, tzinfo=UTC)),
        ("I moved to Boston last week.", datetime(9999, 12, 30, tzinfo=UTC)),
        ("hello", datetime(9999, 12, 31, 23, tzinfo=UTC)),  # after the far-future sentinel: refused
        ("I moved to Boston last week.", datetime(1, 1, 1, 1, tzinfo=UTC)),
        ("I will visit Paris next year.", datetime(9999, 6, 1, tzinfo=UTC)),
        ("I am moving to Oslo tomorrow.", datetime(9999, 12, 30, 23, tzinfo=UTC)),
    ],
    ids=[
        "year1",
        "year1-absolute-date",
        "year9999-last-week",
        "past-sentinel",
        "year1-last-week",
        "year9999-next-year",
        "year9999-tomorrow",
    ],
)
def test_remember_at_the_ends_of_the_calendar_works_or_refuses(sqlite_store, text, at):
    user, writer = fresh_user(), Writer(sqlite_store)
    try:
        outcome = works_or_refuses(sqlite_store, user, lambda: writer.remember(text, user_id=user, at=at))
    except Exception as exc:  # noqa: BLE001 - the point of the test
        pytest.fail(f"{type(exc).__name__} is not one of ours: {exc}")
    if isinstance(outcome, Exception):
        assert isinstance(outcome, InvalidInput)


def test_a_message_of_a_megabyte_is_stored_and_one_past_the_limit_is_refused(sqlite_store):
    user, writer = fresh_user(), Writer(sqlite_store)
    words = "lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor".split()
    big = " ".join(words[i % len(words)] for i in range(170_000))  # ~1 MB, no sentence ends
    assert len(big.encode()) > 1_000_000
    writer.remember(big, user_id=user, at=T, source_id="big")
    stored_exactly(sqlite_store, user, "big", big)
    assert writer.recall(big, user_id=user, k=3)  # a megabyte query is cut to its first terms
    outcome = works_or_refuses(
        sqlite_store, user, lambda: writer.remember("x" * (MAX_TEXT_CHARS + 1), user_id=user, at=T)
    )
    assert isinstance(outcome, InvalidInput) and "limit" in str(outcome)


# -- recall -----------------------------------------------------------------------------------

moments = st.one_of(
    st.none(),
    st.datetimes(min_value=datetime(1, 1, 2), max_value=datetime(9999, 12, 30), timezones=st.just(UTC)),
    st.datetimes(min_value=datetime(1900, 1, 1), max_value=datetime(2100, 1, 1)),  # naive
)


@pytest.fixture(scope="module")
def known_user(sqlite_store) -> str:
    user = fresh_user()
    Writer(sqlite_store).remember(
        [{"content": t, "source_id": f"k{i}"} for i, t in enumerate(RELATIVE + SPECIAL)], user_id=user, at=T
    )
    return user


@PROPERTY
@given(query=texts, unknown=st.booleans(), as_of=moments, known_at=moments, k=st.integers(-1, 20))
@example(query='AND OR NOT * ? : ~ ^ ( ) [ ] { } " \\', unknown=False, as_of=None, known_at=None, k=5)
@example(query="where", unknown=True, as_of=datetime(1, 1, 2, tzinfo=UTC), known_at=None, k=5)
@example(query="where", unknown=False, as_of=datetime(9999, 12, 30, tzinfo=UTC), known_at=None, k=5)
def test_recall_answers_or_refuses_any_query_user_and_time(
    sqlite_store, known_user, query, unknown, as_of, known_at, k
):
    user = fresh_user() if unknown else known_user
    writer = Writer(sqlite_store)
    outcome = works_or_refuses(
        sqlite_store,
        known_user,
        lambda: writer.recall(query, user_id=user, k=k, as_of=as_of, known_at=known_at),
    )
    naive = any(t is not None and t.tzinfo is None for t in (as_of, known_at))
    if not query.strip() or has_surrogate(query) or naive or not 1 <= k:
        assert isinstance(outcome, InvalidInput), f"should be refused, got {outcome!r}"
    else:
        assert isinstance(outcome, list), outcome
        assert not unknown or outcome == []


# -- special text on both stores ---------------------------------------------------------------


def test_text_that_looks_like_a_query_language_is_stored_and_searched_as_text(store, user, other_user):
    writer = Writer(store)
    writer.remember("I live in Boston.", user_id=other_user, at=T, source_id="o1")
    bystander = store.counts(other_user)
    for i, text in enumerate(SPECIAL):
        writer.remember(text, user_id=user, at=T + timedelta(minutes=i), source_id=f"s{i}")
    for i, text in enumerate(SPECIAL):
        stored_exactly(store, user, f"s{i}", text)
        hits = writer.recall(text, user_id=user, k=5)
        assert any(h.text == text for h in hits), f"{text!r} did not find itself"
        # Another user's recall and the raw text search take it as plain text too: no error, no
        # leak across users, and the text search finds the message by its own words.
        assert all(h.text != text for h in writer.recall(text, user_id=other_user, k=5))
        found = store.text_search(text, SearchFilter(user), 50)
        assert all(h.memory.user_id == user for h in found)
        assert not query_terms(text) or any(h.version.text == text for h in found), text
    assert store.counts(other_user) == bystander  # nothing was deleted or rewritten elsewhere
    assert store.counts(user)["episodes"] == len(SPECIAL)
    assert [h.text for h in writer.recall("Where does the user live?", user_id=other_user, k=5)]


# -- vectors through the store API -------------------------------------------------------------


def bad_vectors():
    nan = np.ones(DEFAULT_DIMENSION, dtype=np.float32)
    nan[7] = math.nan
    inf = np.ones(DEFAULT_DIMENSION, dtype=np.float32)
    inf[0] = math.inf
    return {
        "short": (np.ones(DEFAULT_DIMENSION - 1), DimensionMismatch),
        "long": (np.ones(DEFAULT_DIMENSION + 1), DimensionMismatch),
        "empty": (np.ones(0), DimensionMismatch),
        "nan": (nan, InvalidInput),
        "inf": (inf, InvalidInput),
        "zeros": (np.zeros(DEFAULT_DIMENSION), InvalidInput),
        "matrix": (np.ones((2, DEFAULT_DIMENSION)), InvalidInput),
        "strings": (["a"] * DEFAULT_DIMENSION, InvalidInput),
    }


def test_bad_embeddings_are_refused_whole_by_the_store(store, user):
    Writer(store).remember("I live in Boston.", user_id=user, at=T, source_id="ok")
    for name, (vector, error) in bad_vectors().items():
        batch = WriteBatch()
        batch.episodes.append(Episode(user_id=user, text=f"episode {name}", observed_at=T))
        good, bad = (Memory(user_id=user, kind="fact") for _ in range(2))
        batch.memories += [good, bad]
        batch.versions += [
            MemoryVersion(good.id, user, "a fine memory", T, embedding=np.ones(DEFAULT_DIMENSION)),
            MemoryVersion(bad.id, user, f"a memory with a {name} vector", T, embedding=vector),
        ]
        outcome = works_or_refuses(store, user, lambda b=batch: store.write(b))
        assert isinstance(outcome, error), f"{name}: {outcome!r}"
        outcome = works_or_refuses(
            store, user, lambda v=vector: store.vector_search(v, SearchFilter(user), 5)
        )
        assert isinstance(outcome, error), f"{name} query: {outcome!r}"


class NaNEmbedder:
    name, dimension = "nan", DEFAULT_DIMENSION

    def embed(self, texts):
        return np.full((len(texts), self.dimension), math.nan, dtype=np.float32)


def test_an_embedder_that_returns_nan_makes_remember_refuse_whole(store, user):
    Writer(store).remember("I live in Boston.", user_id=user, at=T, source_id="ok")
    writer = Writer(store, embedder=NaNEmbedder())
    outcome = works_or_refuses(store, user, lambda: writer.remember("I moved to Denver.", user_id=user, at=T))
    assert isinstance(outcome, InvalidInput) and "NaN" in str(outcome)
