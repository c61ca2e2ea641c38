"""Bad input and unusable stores raise dualmem's own errors with a clear message, writing nothing."""

from __future__ import annotations

import math
from datetime import datetime

import numpy as np
import pytest
from builders import Builder
from conftest import DIM, vec

from dualmem_core import (
    ConflictError,
    DimensionMismatch,
    InvalidInput,
    NotFound,
    StoreConfigError,
    StoreUnavailable,
    TenantViolation,
    open_store,
)
from dualmem_core.store import EdgeType, SearchFilter, WriteBatch


@pytest.mark.parametrize("text", ["", "   \n\t", None, 42, "bad \ud800 surrogate", "x" * 2_000_001])
def test_bad_text_is_refused(store, user, text):
    b = Builder(user)
    b.memory("a fine memory", vec(1))
    b.batch.episodes.append(b.episode("placeholder"))
    b.batch.episodes[-1].text = text
    with pytest.raises(InvalidInput):
        store.write(b.batch)
    assert store.counts(user)["memories"] == 0


@pytest.mark.parametrize("vector, error", [
    (np.ones(DIM + 1), DimensionMismatch), (np.ones(3), DimensionMismatch),
    (np.full(DIM, math.nan), InvalidInput), (np.zeros(DIM), InvalidInput),
    (np.ones((2, DIM)), InvalidInput), ("not a vector", InvalidInput)])
def test_bad_vectors_are_refused(store, user, vector, error):
    b = Builder(user)
    b.memory("x", vector)
    with pytest.raises(error):
        store.write(b.batch)
    with pytest.raises(error):
        store.vector_search(vector, SearchFilter(user), 5)
    assert store.counts(user)["versions"] == 0


def test_naive_and_wrong_typed_datetimes_are_refused(store, user):
    b = Builder(user)
    b.memory("x", vec(1), valid_from=datetime(2026, 1, 1))
    with pytest.raises(InvalidInput, match="no timezone"):
        store.write(b.batch)
    with pytest.raises(InvalidInput, match="no timezone"):
        store.vector_search(vec(1), SearchFilter(user, valid_at=datetime(2026, 1, 1)), 5)
    with pytest.raises(InvalidInput, match="must be a datetime"):
        store.text_search("x", SearchFilter(user, known_at="2026-01-01"), 5)


def test_empty_interval_and_bad_scores_are_refused(store, user):
    from builders import at

    for kw in ({"valid_from": at(3), "valid_to": at(3)}, {"confidence": 1.5},
               {"salience": float("nan")}):
        b = Builder(user)
        b.memory("x", vec(1), **kw)
        with pytest.raises(InvalidInput):
            store.write(b.batch)


def test_batches_must_hold_one_user(store, user, other_user):
    b = Builder(user)
    b.memory("mine", vec(1))
    Builder(other_user, b.batch).memory("theirs", vec(1))
    with pytest.raises(InvalidInput, match="exactly one user"):
        store.write(b.batch)


def test_links_to_missing_or_foreign_records_are_refused(store, user, other_user):
    theirs = Builder(other_user)
    their_mem, _ = theirs.memory("theirs", vec(1))
    store.write(theirs.batch)
    b = Builder(user)
    mine, _ = b.memory("mine", vec(1))
    b.edge(EdgeType.SIMILAR_TO, mine.id, their_mem.id)
    with pytest.raises(TenantViolation):
        store.write(b.batch)
    b.batch.edges[0].dst_id = "mem_does_not_exist"
    with pytest.raises(NotFound):
        store.write(b.batch)
    b.batch.edges[0].type = "LIKES"
    with pytest.raises(InvalidInput, match="unknown edge type"):
        store.write(b.batch)
    assert store.counts(user)["memories"] == 0


def test_reused_ids_conflict(store, user):
    b = Builder(user)
    b.memory("first", vec(1))
    store.write(b.batch)
    with pytest.raises(ConflictError, match="already exists"):
        store.write(b.batch)
    assert store.counts(user)["memories"] == 1


@pytest.mark.parametrize("bad", ["", "  ", None, 7, "u" * 600])
def test_bad_user_ids_are_refused(store, bad):
    with pytest.raises(InvalidInput):
        store.vector_search(vec(1), SearchFilter(bad), 5)
    with pytest.raises(InvalidInput):
        store.counts(bad)


@pytest.mark.parametrize("bad", [" u1", "u1 ", "u1\n", "u\n1", "u\t1", "u\x001", "a/b", "a...b", "..",
                                 "u\u200b1"])
def test_user_ids_a_frontend_cannot_carry_are_refused_not_stripped(store, bad):
    from dualmem_core import Writer
    from dualmem_pipeline.users import usable_partition_key

    for call in (lambda: Writer(store).remember("I live in Lisbon.", user_id=bad),
                 lambda: store.vector_search(vec(1), SearchFilter(bad), 5)):
        with pytest.raises(InvalidInput, match="is not allowed: a user id is 1-512 printable"):
            call()
    assert not usable_partition_key(bad)
    assert bad not in store.list_users()
    ok = "Ann Lee <ann@x.org> #1 ümlaut 名前"
    Writer(store).remember("I live in Lisbon.", user_id=ok)
    assert ok in store.list_users() and usable_partition_key(ok)


@pytest.mark.parametrize("k", [0, -1, 10_001, 2.5, True])
def test_bad_k_is_refused(store, user, k):
    with pytest.raises(InvalidInput, match="k must be"):
        store.text_search("x", SearchFilter(user), k)


def test_store_dimension_is_fixed_at_creation(store_url):
    first = open_store(store_url, dimension=DIM)
    with pytest.raises(StoreConfigError, match="dimensional"):
        open_store(store_url, dimension=DIM + 1)
    first.close()


@pytest.mark.parametrize("url, error", [
    ("mysql://localhost/x", StoreConfigError), ("no-scheme", StoreConfigError),
    ("sqlite://", StoreConfigError), ("bolt://127.0.0.1:1", StoreUnavailable),
    ("bolt://", StoreUnavailable), ("bolt://127.0.0.1:notaport", StoreConfigError)])
def test_bad_urls_and_unreachable_servers(url, error):
    with pytest.raises(error) as info:
        open_store(url)
    assert str(info.value)


def test_not_a_database_file(tmp_path):
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(StoreUnavailable, match="not a usable dualmem SQLite store"):
        open_store(f"sqlite:///{junk}")


def test_default_store_follows_environment(tmp_path, monkeypatch):
    from dualmem_core.store import default_store_url

    monkeypatch.setenv("DUALMEM_STORE", f"sqlite:///{tmp_path / 'env.db'}")
    assert default_store_url().endswith("env.db")
    with open_store() as store:
        assert store.url.endswith("env.db")
    monkeypatch.delenv("DUALMEM_STORE")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert default_store_url().startswith("sqlite:///") and "dualmem" in default_store_url()


def test_relative_and_absolute_sqlite_urls(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with open_store("sqlite:///rel.db") as s:
        assert s.path.resolve() == (tmp_path / "rel.db").resolve()
    with open_store(f"sqlite:///{tmp_path / 'abs.db'}") as s:
        assert s.path == tmp_path / "abs.db"


def test_a_read_never_creates_a_store(tmp_path, monkeypatch):
    from dualmem_core import StoreNotFound, Writer
    from dualmem_pipeline.defs.store.resources import StoreResource

    monkeypatch.chdir(tmp_path)
    for url, where in (("sqlite:///tmp/x.db", tmp_path / "tmp" / "x.db"),
                       (f"sqlite:///{tmp_path}/no/dir/m.db", tmp_path / "no" / "dir" / "m.db")):
        with pytest.raises(StoreNotFound, match=f"no store at {where}.*dualmem remember"):
            open_store(url, create=False)
        with pytest.raises(StoreNotFound):
            StoreResource(url=url, dimension=DIM).setup_for_execution(None)
    assert list(tmp_path.iterdir()) == []  # neither the file nor its folders
    # The library's default still creates, so open_store then remember just works, and says so.
    with open_store("sqlite:///tmp/x.db", dimension=DIM) as s:
        assert s.created
        Writer(s).remember("I live in Lisbon.", user_id="u1")
    with open_store("sqlite:///tmp/x.db", create=False) as s:
        assert not s.created and s.counts("u1")["episodes"] == 1


def test_empty_write_batch_needs_no_user(store):
    store.write(WriteBatch())
