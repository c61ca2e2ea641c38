"""A name said to be someone's name or nickname becomes one more name of their entity.

Through the real Writer (rule extractor, deterministic embedder) and the real Editor, on both
stores: "my friend Robert, everyone calls him Bob" makes Bob a name of Robert, so a later message
saying only "Bob" reaches Robert's entity; the user's own names are one entity too.
"""

from __future__ import annotations

from datetime import UTC, datetime

from dualmem_core import Editor, Writer
from dualmem_core.providers import HashingEmbedder
from dualmem_core.store import EdgeType


def _day(n: int) -> datetime:
    return datetime(2026, 3, n, 12, tzinfo=UTC)


def _canonical(store, user: str) -> dict[str, str]:
    """entity name -> the name of the entity it was merged into (itself when not merged)."""
    graph = store.export_graph(user)
    names = {e.id: e.name for e in graph.entities}
    into = {
        e.src_id: e.dst_id for e in graph.edges if e.type == EdgeType.MERGED_INTO and e.tx_to.year == 9999
    }
    return {names[i]: names[into.get(i, i)] for i in names}


def _mentioned_by(store, user: str, source_id: str) -> set[str]:
    graph = store.export_graph(user)
    names = {e.id: e.name for e in graph.entities}
    episodes = {e.id for e in graph.episodes if e.source_id == source_id}
    memories = {e.src_id for e in graph.edges if e.type == EdgeType.FROM and e.dst_id in episodes}
    return {
        names[e.dst_id]
        for e in graph.edges
        if e.type == EdgeType.MENTIONS and e.src_id in memories and e.tx_to.year == 9999
    }


def test_a_nickname_joins_its_person_and_later_mentions_reach_them(store, user):
    writer = Writer(store, embedder=HashingEmbedder(384))
    writer.remember("my friend Robert, everyone calls him Bob, is visiting in April",
                    user_id=user, session_id="s1", at=_day(1), source_id="m1")
    writer.remember("Bob beat me 4 games to 1 at chess last night",
                    user_id=user, session_id="s2", at=_day(9), source_id="m2")
    Editor(store).run(user)
    canonical = _canonical(store, user)
    assert canonical["Bob"] == canonical["Robert"]  # one entity (the older of the two is kept)
    said_bob = _mentioned_by(store, user, "m2")  # the message that said only "Bob"
    assert {"Bob", canonical["Robert"]} <= said_bob  # the entity named so, and the one it is
    assert Editor(store).run(user).operations == 0  # a fixpoint


def _editor_after(store, user: str, text: str) -> dict[str, str]:
    Writer(store, embedder=HashingEmbedder(384)).remember(text, user_id=user, session_id="s1", at=_day(1))
    Editor(store).run(user)
    return _canonical(store, user)


def test_the_users_own_names_are_one_person(store, user):
    canonical = _editor_after(store, user, "Hi. Jonathan here, but call me Jon. I teach chemistry.")
    assert canonical["Jon"] == canonical["Jonathan"]


def test_two_people_named_in_one_message_stay_two(store, user):
    canonical = _editor_after(store, user, "my friend Robert and my brother Bob are coming to dinner")
    assert canonical["Bob"] != canonical["Robert"]
