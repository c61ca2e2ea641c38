"""The supersede stage reads the slot reader (``editor/told_anew.py``): a later message read as
telling a single-valued slot of the speaker anew ends the older fact of that slot, with no
triple, through the real Writer and Editor on both stores; rollback undoes it.

The conversation is hand-written for this test (not fixture text); the reader's chances quoted
are the shipped model's."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from dualmem_core import Editor, Writer
from dualmem_core.editor.config import EditorConfig
from dualmem_core.editor.told_anew import _told
from dualmem_core.slots import Telling
from dualmem_core.store import EdgeType

T = datetime(2025, 3, 1, 20, tzinfo=UTC)
# Ro, texting. (day, message)
BEFORE = [
    (0, "hey its ro. i live in glasgow with my flatmate"),  # m0: lives_in Glasgow (a triple)
    (2, "got a wee dog called bran"),  # m1: a pet, multi-valued
    (20, "moved flat but still in glasgow"),  # m2: lives_in at .96, the same value told again
]
MOVE = (40, "we moved house to leith last weekend")  # m3: lives_in at .92, no lives_in triple


def _remember(w: Writer, user: str, life: list[tuple[int, str]], first: int = 0) -> None:
    for i, (n, text) in enumerate(life, first):
        w.remember(text, user_id=user, session_id=f"s{i}", at=T + timedelta(days=n), source_id=f"m{i}")


def _fact(w: Writer, user: str, predicate: str, obj: str) -> str:
    graph = w.store.export_graph(user)
    (memory_id,) = {v.memory_id for v in graph.versions if v.predicate == predicate and v.object == obj}
    return memory_id


def _status(w: Writer, user: str, memory_id: str) -> str:
    (version,) = w.store.get_versions(user, [memory_id])
    return version.status


def _by_reader(run) -> list:
    return [d for s in run.stages for d in s.decisions if d.reason.startswith("slot reader")]


def test_a_move_told_with_no_triple_ends_the_older_home_and_rollback_undoes_it(store):
    user = f"ro-{id(store)}-{datetime.now().timestamp()}"
    w = Writer(store)
    editor = Editor(store)
    _remember(w, user, BEFORE)
    first = editor.run(user)
    glasgow = _fact(w, user, "lives_in", "Glasgow")
    assert _status(w, user, glasgow) == "active"
    assert not _by_reader(first)  # "still in glasgow" restates the value: nothing ends
    _remember(w, user, [MOVE], first=len(BEFORE))
    assert not {v.object for v in w.store.export_graph(user).versions
                if v.predicate == "lives_in"} - {"Glasgow"}  # no triple told the move
    second = editor.run(user)  # incremental: only the move is new
    (decision,) = _by_reader(second)
    assert decision.subject == glasgow and decision.action == "supersede"
    # The chance is the shipped reader's (it moves when the reader is retrained), at or over the cut.
    told, chance = decision.reason.rsplit(" at ", 1)
    assert told == "slot reader: lives_in told anew" and float(chance) >= EditorConfig().reader_chance
    assert _status(w, user, glasgow) == "superseded"
    history = w.history(glasgow, user_id=user)
    assert history.superseded_by == [decision.target]
    assert history.versions[-1].valid_to == T + timedelta(days=MOVE[0])
    edges = w.store.get_edges(user, node_ids=[glasgow], types=[EdgeType.SUPERSEDES])
    assert [e.props["rule"] for e in edges] == ["slot reader"]
    assert _status(w, user, _fact(w, user, "pet", "Bran")) == "active"  # multi-valued: never
    assert not _by_reader(editor.run(user))  # a rerun changes nothing: the chain keeps it
    assert _status(w, user, glasgow) == "superseded"
    editor.rollback(second.run_id, user_id=user)
    assert _status(w, user, glasgow) == "active"
    assert not w.store.get_edges(user, node_ids=[glasgow], types=[EdgeType.SUPERSEDES])


def test_off_by_config_the_older_home_stays(store):
    user = f"ro-off-{id(store)}-{datetime.now().timestamp()}"
    w = Writer(store)
    _remember(w, user, [*BEFORE, MOVE])
    run = Editor(store, config=EditorConfig(reader_supersede=False)).run(user)
    assert not _by_reader(run)
    assert _status(w, user, _fact(w, user, "lives_in", "Glasgow")) == "active"


def _reading(**chances: float) -> Telling:
    return Telling(chances=chances)


def test_a_partner_ends_only_when_the_reader_reads_an_ending():
    # "she's my girlfriend now": the partner slot told with no ending ends nothing
    assert _told(_reading(partner=0.92, **{"+starts": 0.9}), 0.8) == []
    # "we broke up": the partner slot, the likeliest, read as ending
    assert _told(_reading(partner=0.85, **{"+ends": 0.9}), 0.8) == [("partner", "partner", 0.85, True)]
    # "keto is done, the missus let me off": the ending is the diet's, the likelier slot
    assert _told(_reading(diet=0.94, spouse=0.85, **{"+ends": 0.9}), 0.8) == [("diet", "diet", 0.94, False)]
    # "me n dan split up": an ending of no slot; only a partner the message names ends
    assert {h for *_, h in _told(_reading(**{"+ends": 0.96}), 0.8)} == {None}
    # "her job ended": an ending of someone else's slot is not the user's break-up
    assert _told(_reading(**{"works_at@other": 0.9, "+ends": 0.9}), 0.8) == []
    # multi-valued slots and who the speaker is never end this way
    assert _told(_reading(pet=0.99, birthday=0.95), 0.8) == []
