"""A bare first name is not tied to the person we know when the conversation names another
bearer, or places the person elsewhere; two values told in one message stay side by side.
Through the real Writer and Editor on both stores."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from dualmem_core import Editor, Writer
from dualmem_core.store import EdgeType

T = datetime(2026, 3, 1, 9, tzinfo=UTC)


def _told(store, sessions: list[list[str]]) -> tuple[Writer, str]:
    user = f"bearer-{id(store)}-{datetime.now().timestamp()}"
    w, n = Writer(store), 0
    for s, texts in enumerate(sessions):
        for text in texts:
            w.remember(text, user_id=user, session_id=f"s{s}", at=T + timedelta(hours=n), source_id=f"m{n}")
            n += 1
    return w, user


def _linked(store, user: str, source_id: str, name: str) -> bool:
    """Whether the observation of message ``source_id`` mentions an entity called ``name``."""
    graph = store.export_graph(user)
    episode = next(e.id for e in graph.episodes if e.source_id == source_id)
    observations = {e.src_id for e in graph.edges if e.type == EdgeType.FROM and e.dst_id == episode
                    and e.tx_to.year == 9999}
    observations &= {m.id for m in graph.memories if m.kind == "observation"}
    named = {e.id for e in graph.entities if e.name == name}
    return any(e.type == EdgeType.MENTIONS and e.src_id in observations and e.dst_id in named
               and e.tx_to.year == 9999 for e in graph.edges)


def test_another_bearer_in_the_conversation_leaves_the_bare_name_unlinked(store):
    w, user = _told(store, [
        ["My boyfriend Lucas lives in Porto."],
        ["For the group project I am with Lucas Martin, another Lucas, not my boyfriend.",
         "I will ask Lucas about the slides tomorrow."],
        ["Lucas called me from Porto last night."],
    ])
    Editor(store).run(user)
    assert not _linked(store, user, "m1", "Lucas") and not _linked(store, user, "m2", "Lucas")
    assert _linked(store, user, "m3", "Lucas")  # another conversation, where only he is meant


def test_a_name_placed_next_door_is_not_the_sister_of_that_name(store):
    w, user = _told(store, [["My sister Jean lives in Inverness."],
                            ["Jean from next door says the new people are nice."],
                            ["Jean phoned from Inverness, she is coming for Easter."]])
    Editor(store).run(user)
    assert not _linked(store, user, "m1", "Jean")
    assert _linked(store, user, "m2", "Jean")


def test_two_values_of_one_moment_in_one_message_do_not_supersede_each_other(store):
    w, user = _told(store, [["I work at Acme and I work at Globex."]])  # two jobs, or one misread
    Editor(store).run(user)
    graph = store.export_graph(user)
    live = [v for v in graph.versions if v.predicate == "works_at" and v.tx_to.year == 9999]
    assert {v.object for v in live} == {"Acme", "Globex"}, [(v.object, v.status) for v in live]
    assert {v.status for v in live} == {"active"}
