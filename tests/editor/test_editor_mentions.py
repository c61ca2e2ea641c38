"""Stage 3 links raw messages to the entities they name, and only when the name is unambiguous.

Graphs are hand-made and written into a real embedded store (see ``test_editor_stages``); the
whole Editor runs, so the links are published and a rerun is checked to add nothing.
"""

from __future__ import annotations

import pytest
from builders import Builder, at, write_built

from dualmem_core import Editor, open_store
from dualmem_core.providers import HashingEmbedder
from dualmem_core.store import EdgeType

U = "mention-user"
EMBED = HashingEmbedder(384)


@pytest.fixture
def sqlite(tmp_path):
    with open_store(f"sqlite:///{tmp_path / 'mentions.db'}") as store:
        yield store


def write(store, build) -> Builder:
    return write_built(store, U, build, EMBED)


def person(b: Builder, name: str, text: str, session: str, predicate: str | None = None, **kw) -> str:
    """A fact naming ``name`` (a relationship to the user when ``predicate`` is given)."""
    entity = b.entity(name, kw.pop("type_", "person"))
    ep = b.episode(text, at(1), session_id=session)
    mem, _ = b.memory(
        text, valid_from=at(1), episode=ep, subject="user", predicate=predicate or "event", object=name
    )
    b.edge(EdgeType.MENTIONS, mem.id, entity.id)
    return entity.id


def message(b: Builder, text: str, session: str, month: int = 2, role: str = "user") -> str:
    ep = b.episode(text, at(month), session_id=session, role=role)
    mem, _ = b.memory(text, valid_from=at(month), kind="observation", episode=ep)
    return mem.id


def linked(store, memory_id: str) -> set[str]:
    return {e.dst_id for e in store.get_edges(U, node_ids=[memory_id], types=[EdgeType.MENTIONS])}


def test_a_message_naming_a_known_person_is_linked_and_a_rerun_adds_nothing(sqlite):
    ids = {}

    def build(b):
        ids["ana"] = person(b, "Ana", "my sister Ana lives in Lisbon", "s1", "sibling")
        ids["acme"] = person(b, "Acme Robotics", "I work at Acme Robotics", "s1", type_="organization")
        ids["later"] = message(b, "dinner at Ana's place, then drinks with the Acme Robotics crowd", "s2")
        ids["echo"] = message(b, "How is Ana doing?", "s2", role="assistant")

    write(sqlite, build)
    run = Editor(sqlite).run(U)
    assert run.counts["entities"].get("named") == 2
    assert linked(sqlite, ids["later"]) == {ids["ana"], ids["acme"]}
    assert linked(sqlite, ids["echo"]) == set()  # an assistant's reply only echoes the name
    again = Editor(sqlite).run(U)
    assert again.counts.get("entities", {}).get("named") is None and again.applied_at is None


def test_a_message_older_than_the_entity_is_linked_when_the_entity_appears(sqlite):
    early = {}
    write(
        sqlite, lambda b: early.setdefault("id", message(b, "thinking about an offer from Globex Corp", "s1"))
    )
    Editor(sqlite).run(U)
    ids = {}
    write(
        sqlite,
        lambda b: ids.setdefault(
            "globex", person(b, "Globex Corp", "I joined Globex Corp", "s2", type_="organization")
        ),
    )
    Editor(sqlite).run(U)
    assert linked(sqlite, early["id"]) == {ids["globex"]}


@pytest.mark.parametrize(
    "text",
    [
        "lunch with Sarah Jones from accounting",  # part of a longer name: maybe another Sarah
        "my cousin Sarah is visiting",  # known as the user's sister, called a cousin here
        "sarah said hi",  # lower case: could be anything
        "we moved to Sarah last year",  # a person's name where a place goes
    ],
)
def test_a_name_that_may_mean_someone_else_is_not_linked(sqlite, text):
    ids = {}

    def build(b):
        ids["sarah"] = person(b, "Sarah", "my sister Sarah is a nurse", "s1", "sibling")
        ids["msg"] = message(b, text, "s2")
        ids["control"] = message(b, "Sarah says hi from Lisbon", "s3")

    write(sqlite, build)
    Editor(sqlite).run(U)
    assert linked(sqlite, ids["msg"]) == set()
    assert linked(sqlite, ids["control"]) == {ids["sarah"]}


def test_a_name_two_entities_answer_to_is_not_linked(sqlite):
    ids = {}

    def build(b):
        person(b, "Sam", "my brother Sam", "s1", "sibling")
        person(b, "Sam Ortiz", "Sam Ortiz is my manager", "s1", "colleague")
        ids["msg"] = message(b, "Sam called about the weekend", "s2")
        ids["full"] = message(b, "Sam Ortiz moved my review to Friday", "s2")

    write(sqlite, build)
    Editor(sqlite).run(U)
    assert linked(sqlite, ids["msg"]) == set()
    names = {e.id: e.name for e in sqlite.export_graph(U).entities}
    assert {names[e] for e in linked(sqlite, ids["full"])} == {"Sam Ortiz"}


def test_a_bare_first_name_is_linked_in_its_own_session_only(sqlite):
    ids = {}

    def build(b):
        ids["jo"] = person(b, "Jo", "Jo recommended the book", "s1")  # no relationship to the user
        ids["same"] = message(b, "Jo also said it has a sequel", "s1")
        ids["other"] = message(b, "Jo from the climbing gym waved", "s2")

    write(sqlite, build)
    Editor(sqlite).run(U)
    assert linked(sqlite, ids["same"]) == {ids["jo"]}
    assert linked(sqlite, ids["other"]) == set()


def test_a_rollback_takes_the_links_back(sqlite):
    ids = {}

    def build(b):
        ids["ana"] = person(b, "Ana", "my sister Ana", "s1", "sibling")
        ids["msg"] = message(b, "Ana got the job!", "s2")

    write(sqlite, build)
    editor = Editor(sqlite)
    run = editor.run(U)
    assert linked(sqlite, ids["msg"]) == {ids["ana"]}
    editor.rollback(run.run_id, user_id=U)
    assert linked(sqlite, ids["msg"]) == set()
