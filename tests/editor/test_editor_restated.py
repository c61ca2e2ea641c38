"""A later message that names the user's pet, or one of their people by a word for the relation,
becomes a source of that relation fact (``editor/restated.py``), through the real Writer and
Editor on both stores."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from dualmem_core import Editor, Writer

T = datetime(2026, 2, 1, 9, tzinfo=UTC)


def _load(store, texts: list[str]) -> tuple[Writer, str]:
    user = f"restated-{id(store)}-{datetime.now().timestamp()}"
    w = Writer(store)
    for i, text in enumerate(texts):
        w.remember(text, user_id=user, session_id=f"s{i}", at=T + timedelta(days=i), source_id=f"m{i}")
    return w, user


def _fact(w: Writer, user: str, predicate: str, obj: str, told_in: str = "m0") -> str:
    """The fact memory with this predicate and object first told in message ``told_in``."""
    graph = w.store.export_graph(user)
    ids = sorted({v.memory_id for v in graph.versions if v.predicate == predicate and v.object == obj})
    first = {m: s[0] for m, s in w.store.sources_of(user, ids).items() if s}
    (memory_id,) = [m for m in ids if first.get(m) == told_in]
    return memory_id


def _restated(run) -> int:
    return sum(d.action == "restated" and bool(d.ops) for stage in run.stages for d in stage.decisions)


def test_a_later_message_naming_the_pet_is_a_source_of_the_pet_fact(store):
    w, user = _load(
        store,
        [
            "I have a dog called Ruby.",
            "Ruby dug up the roses again this morning.",
            "The weather has been awful all week.",
        ],
    )
    pet = _fact(w, user, "pet", "Ruby")
    assert w.store.sources_of(user, [pet])[pet] == ["m0"]
    run = Editor(store).run(user)
    assert _restated(run) == 1
    assert w.store.sources_of(user, [pet])[pet] == ["m0", "m1"]
    again = Editor(store).run(user)  # a fixpoint: nothing new to link
    assert w.store.sources_of(user, [pet])[pet] == ["m0", "m1"]
    assert _restated(again) == 0
    Editor(store).rollback(run.run_id, user_id=user, cascade=True)
    assert w.store.sources_of(user, [pet])[pet] == ["m0"]


def test_naming_a_person_is_corroboration_and_only_the_relation_word_makes_it_a_source(store):
    w, user = _load(
        store,
        [
            "My brother Tom is a chef.",
            "Tom came round for dinner last night.",  # names him: not a telling of "brother"
            "Dinner with Tom last night, my brother always cooks too much.",
        ],
    )
    run = Editor(store).run(user)
    sibling = _fact(w, user, "sibling", "Tom")
    assert w.store.sources_of(user, [sibling])[sibling] == ["m0", "m2"]
    decisions = [d for s in run.stages for d in s.decisions]
    (rescore,) = [d for d in decisions if d.action == "rescore" and d.subject == sibling]
    assert rescore.evidence["sources"] == 3 and rescore.evidence["sessions"] == 3  # m1 corroborates


def test_a_message_saying_the_relation_ended_is_not_a_retelling(store):
    w, user = _load(
        store,
        [
            "My boyfriend Phil is a chef.",
            "Phil and I broke up last night.",
            "I have a dog called Ruby.",
            "Ruby died last night, we are gutted.",
        ],
    )
    Editor(store).run(user)
    partner, pet = _fact(w, user, "partner", "Phil"), _fact(w, user, "pet", "Ruby", told_in="m2")
    sources = w.store.sources_of(user, [partner, pet])
    assert sources[partner] == ["m0"] and sources[pet] == ["m2"]


def test_forgetting_the_retelling_leaves_the_fact_on_its_first_telling(store):
    w, user = _load(store, ["I have a dog called Ruby.", "Took Ruby to the beach, she loved it."])
    Editor(store).run(user)
    pet = _fact(w, user, "pet", "Ruby")
    assert w.store.sources_of(user, [pet])[pet] == ["m0", "m1"]
    w.forget(user_id=user, source_ids=["m1"])
    assert w.store.sources_of(user, [pet])[pet] == ["m0"]
