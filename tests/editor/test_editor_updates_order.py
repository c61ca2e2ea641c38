"""An age only grows: one told out of order (dated too early by the Writer) ends nothing, and
the age before it is ended by the next age in order. Hand-made graphs on both stores."""

from __future__ import annotations

import uuid

from builders import Builder, at, write_built

from dualmem_core import Editor
from dualmem_core.providers import HashingEmbedder
from dualmem_core.store import EdgeType
from dualmem_core.timeutil import FAR_FUTURE

EMBED = HashingEmbedder(384)


def _ages(store, user: str, subject: str, told: list[tuple[str, int, int]]) -> list[str]:
    """``told``: (age, month it began, month it was said), one message each."""
    ids: list[str] = []

    def build(b: Builder) -> None:
        for value, begins, said in told:
            ep = b.episode(f"{subject} is {value}", at(said), session_id=f"s{said}")
            mem, _ = b.memory(f"{subject} is {value} years old", valid_from=at(begins), episode=ep,
                              subject=subject, predicate="age", object=value)
            ids.append(mem.id)

    write_built(store, user, build, EMBED)
    return ids


def _state(store, user: str, ids: list[str]) -> tuple[list[str], set[tuple[str, str]]]:
    statuses = [store.get_versions(user, [m])[0].status for m in ids]
    edges = {(e.src_id, e.dst_id) for e in store.get_edges(user, types=[EdgeType.SUPERSEDES])
             if e.tx_to == FAR_FUTURE}
    return statuses, edges


def test_an_age_dated_too_early_ends_nothing(store):
    user = f"ages-{uuid.uuid4().hex[:10]}"
    # 54 in February; 56 "in August", told in November but read as since August; 55 since
    # mid-August. The 54 ends where 55 begins, not at the misdated 56.
    y54, y56, y55 = _ages(store, user, "user", [("54", 2, 2), ("56", 8, 11), ("55", 9, 9)])
    Editor(store).run(user)
    statuses, edges = _state(store, user, [y54, y56, y55])
    assert statuses == ["superseded", "superseded", "active"]
    assert edges == {(y55, y54), (y55, y56)}
    assert Editor(store).run(user).operations == 0  # a fixpoint


def test_ages_in_order_chain_as_before(store):
    user = f"ages-{uuid.uuid4().hex[:10]}"
    a, b, c = _ages(store, user, "Mia", [("6", 1, 1), ("7", 4, 4), ("8", 10, 10)])
    Editor(store).run(user)
    statuses, edges = _state(store, user, [a, b, c])
    assert statuses == ["superseded", "superseded", "active"]
    assert edges == {(b, a), (c, b)}
