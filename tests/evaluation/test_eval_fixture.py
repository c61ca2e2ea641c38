"""The gold-labelled evaluation fixture (fixtures/eval/): it loads, it is big and varied enough, and the
loader refuses broken files with errors that say where and what."""

from __future__ import annotations

import json
import shutil
from collections import Counter, defaultdict
from pathlib import Path

import pytest

from dualmem_core.errors import InvalidInput
from dualmem_core.evaluation import load_fixture
from dualmem_core.evaluation.fixture import DEFAULT_FOLDER, Fixture
from dualmem_core.vocab import predicates

PARTS = ("tune", "dev", "heldout")


@pytest.fixture(scope="module")
def fx() -> Fixture:
    return load_fixture()


@pytest.fixture(scope="module", params=PARTS)
def part(request) -> Fixture:
    return load_fixture(part=request.param)


def test_loads_with_disjoint_parts(fx):
    parts = {name: load_fixture(part=name) for name in PARTS}
    users = [set(p.users()) for p in parts.values()]
    assert all(users)
    assert sum(len(u) for u in users) == len(set().union(*users)) == len(set(fx.users()))
    assert sum(len(p.facts) for p in parts.values()) == len(fx.facts)
    for name, p in parts.items():
        assert all(q.part == name for q in p.questions)
        assert all(m.part == name for m in p.messages)


def test_size_minimums(fx):
    for name in ("tune", "heldout"):
        assert len(fx.users(name)) >= 3, name
    assert len(fx.users("dev")) >= 2
    assert len(fx.sessions()) >= 60
    assert len(fx.facts) >= 150
    assert len(fx.questions) >= 80
    assert all(m.at.year in (2025, 2026) for m in fx.messages)
    assert all(q.asked_at.year in (2025, 2026) for q in fx.questions)


def test_the_measured_parts_are_big_enough_to_measure(fx):
    """Held-out and dev are never tuned on; each must still hold enough to say something."""
    for part, facts, questions in (("heldout", 100, 50), ("dev", 100, 30)):
        assert sum(fx.part_of(f.user_id) == part for f in fx.facts) >= facts, part
        assert sum(q.part == part for q in fx.questions) >= questions, part


def test_every_fact_is_said_by_the_user_and_names_its_object(fx):
    by_source = {m.source_id: m for m in fx.messages}
    for f in fx.facts:
        texts = [by_source[s].content.casefold() for s in f.sources]
        assert all(by_source[s].role == "user" for s in f.sources)
        assert any(f.object.casefold() in t for t in texts), f.id
        assert predicates.canonical(f.predicate) == f.predicate


def test_update_chains_of_three_or_more(part):
    assert any(len(u.chain) >= 3 for u in part.updates)
    for u in part.updates:
        links = [part.fact(i) for i in u.chain]
        assert [f.current for f in links[:-1]] == [False] * (len(links) - 1)


def test_facts_told_late_about_an_earlier_period(part):
    """An older value of a chain is first said after a newer value was already known."""
    at = {m.source_id: m.at for m in part.messages}
    late = []
    for u in part.updates:
        links = [part.fact(i) for i in u.chain]
        first_told = [min(at[s] for s in f.sources) for f in links]
        late += [links[i].id for i in range(len(links) - 1) if first_told[i] > min(first_told[i + 1 :])]
    assert late


def test_paraphrased_duplicates_across_sessions(part):
    session = {m.source_id: m.session_id for m in part.messages}
    assert part.duplicates
    assert any(len({session[s] for s in d.sources}) >= 2 for d in part.duplicates)
    assert any(len(d.sources) >= 3 for d in part.duplicates)


def test_aliases_and_same_first_name_entities(part):
    aliases = [e for e in part.entities if len(e.names) >= 2 and len({m.name for m in e.mentions}) >= 2]
    assert aliases
    first_names = defaultdict(set)
    for e in part.entities:
        if e.type == "person":
            for n in e.names:
                first_names[(e.user_id, n.split()[0])].add(e.id)
    assert any(len(ids) >= 2 for ids in first_names.values())


def test_multi_valued_facts_held_together(part):
    together = Counter(
        (f.user_id, f.subject, f.predicate)
        for f in part.facts
        if f.current and not predicates.is_single_valued(f.predicate)
    )
    kinds = {pred for (_, _, pred), n in together.items() if n >= 2}
    assert {"pet", "visited"} <= kinds or len(kinds) >= 3


def test_negation_and_number_near_duplicates(fx):
    negated = [f for f in fx.facts if f.negated]
    assert negated
    positive = {(f.predicate, f.object.casefold()) for f in fx.facts if not f.negated}
    assert any((f.predicate, f.object.casefold()) in positive for f in negated)
    ages = defaultdict(set)
    for f in fx.facts:
        if f.predicate == "age":
            ages[(f.user_id, f.subject)].add(f.object)
    assert any(len(values) >= 2 for values in ages.values())


def test_question_kinds(part):
    kinds = Counter(q.kind for q in part.questions)
    assert set(kinds) == {"present", "past", "as_of", "multi"}
    assert all(q.as_of is not None for q in part.questions if q.kind == "as_of")
    assert all(len(q.answers) >= 2 for q in part.questions if q.kind == "multi")
    assert any(q.stale for q in part.questions)
    for q in part.questions:
        if q.kind == "as_of":
            for fid in q.answers:
                f = part.fact(fid)
                assert f.valid_from is None or f.valid_from <= q.as_of, q.id
                assert f.valid_to is None or q.as_of < f.valid_to, q.id


# --- the validator refuses broken input ----------------------------------------------------------


def _copy(tmp_path: Path) -> tuple[list[dict], dict]:
    shutil.copy(DEFAULT_FOLDER / "conversations.jsonl", tmp_path / "conversations.jsonl")
    shutil.copy(DEFAULT_FOLDER / "gold.json", tmp_path / "gold.json")
    lines = (tmp_path / "conversations.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(x) for x in lines], json.loads((tmp_path / "gold.json").read_text(encoding="utf-8"))


def _write(tmp_path: Path, messages: list[dict], gold: dict) -> None:
    text = "".join(json.dumps(m, ensure_ascii=False) + "\n" for m in messages)
    (tmp_path / "conversations.jsonl").write_text(text, encoding="utf-8")
    (tmp_path / "gold.json").write_text(json.dumps(gold, ensure_ascii=False), encoding="utf-8")


def test_copy_loads(tmp_path):
    messages, gold = _copy(tmp_path)
    _write(tmp_path, messages, gold)
    assert len(load_fixture(tmp_path).facts) == len(gold["facts"])


def test_rejects_unknown_message_field(tmp_path):
    messages, gold = _copy(tmp_path)
    messages[4]["mood"] = "happy"
    _write(tmp_path, messages, gold)
    with pytest.raises(InvalidInput, match=r"conversations\.jsonl:5: unknown field\(s\) mood"):
        load_fixture(tmp_path)


def test_rejects_time_going_backwards(tmp_path):
    messages, gold = _copy(tmp_path)
    messages[3]["at"] = messages[1]["at"]
    _write(tmp_path, messages, gold)
    with pytest.raises(InvalidInput, match=r"conversations\.jsonl:4: .*times must increase"):
        load_fixture(tmp_path)


def test_rejects_a_user_in_both_parts(tmp_path):
    messages, gold = _copy(tmp_path)
    messages[-1]["part"] = "tune" if messages[-1]["part"] == "heldout" else "heldout"
    _write(tmp_path, messages, gold)
    with pytest.raises(InvalidInput, match=rf"conversations\.jsonl:{len(messages)}: .*one part only"):
        load_fixture(tmp_path)


def test_rejects_missing_source(tmp_path):
    messages, gold = _copy(tmp_path)
    gold["facts"][2]["sources"].append("nope-s99-m9")
    _write(tmp_path, messages, gold)
    fid = gold["facts"][2]["id"]
    with pytest.raises(InvalidInput, match=rf"fact '{fid}': source 'nope-s99-m9' is not a source_id"):
        load_fixture(tmp_path)


def test_rejects_object_not_in_sources(tmp_path):
    messages, gold = _copy(tmp_path)
    gold["facts"][0]["object"] = "Atlantis"
    _write(tmp_path, messages, gold)
    with pytest.raises(InvalidInput, match=r"object 'Atlantis' does not appear"):
        load_fixture(tmp_path)


def test_rejects_unknown_predicate_and_fields(tmp_path):
    messages, gold = _copy(tmp_path)
    gold["facts"][0]["predicate"] = "enjoys_greatly"
    _write(tmp_path, messages, gold)
    with pytest.raises(InvalidInput, match=r"predicate 'enjoys_greatly' is not a canonical name"):
        load_fixture(tmp_path)
    messages, gold = _copy(tmp_path)
    gold["questions"][0]["difficulty"] = "hard"
    _write(tmp_path, messages, gold)
    with pytest.raises(InvalidInput, match=r"question 'q001': unknown field\(s\) difficulty"):
        load_fixture(tmp_path)


def test_rejects_bad_references_in_questions_chains_and_entities(tmp_path):
    messages, gold = _copy(tmp_path)
    gold["questions"][0]["answers"] = ["f999"]
    _write(tmp_path, messages, gold)
    with pytest.raises(InvalidInput, match=r"answer 'f999' is not a fact id"):
        load_fixture(tmp_path)

    messages, gold = _copy(tmp_path)
    other_user = next(f["id"] for f in gold["facts"] if f["user_id"] != gold["questions"][0]["user_id"])
    gold["questions"][0]["stale"] = [other_user]
    _write(tmp_path, messages, gold)
    with pytest.raises(InvalidInput, match=r"is a fact of user"):
        load_fixture(tmp_path)

    messages, gold = _copy(tmp_path)
    gold["updates"][0]["chain"].reverse()
    _write(tmp_path, messages, gold)
    with pytest.raises(InvalidInput, match=r"updates\[0\]"):
        load_fixture(tmp_path)

    messages, gold = _copy(tmp_path)
    gold["entities"][0]["mentions"][0]["name"] = "Zebediah"
    _write(tmp_path, messages, gold)
    with pytest.raises(InvalidInput, match=r"entity 'e001' mentions\[0\]: name 'Zebediah' is not one of"):
        load_fixture(tmp_path)


def test_rejects_question_asked_before_the_conversation_ends(tmp_path):
    messages, gold = _copy(tmp_path)
    q = gold["questions"][0]
    q["asked_at"] = next(m["at"] for m in messages if m["user_id"] == q["user_id"])
    _write(tmp_path, messages, gold)
    with pytest.raises(InvalidInput, match=r"question 'q001': asked_at .* is not after the last message"):
        load_fixture(tmp_path)


def test_rejects_duplicates_out_of_step_with_facts(tmp_path):
    messages, gold = _copy(tmp_path)
    gold["duplicates"].pop()
    _write(tmp_path, messages, gold)
    with pytest.raises(InvalidInput, match=r"duplicates: no cluster for the sources"):
        load_fixture(tmp_path)


def test_rejects_bad_json_and_missing_files(tmp_path):
    messages, gold = _copy(tmp_path)
    _write(tmp_path, messages, gold)
    with (tmp_path / "conversations.jsonl").open("a", encoding="utf-8") as fh:
        fh.write("{not json\n")
    with pytest.raises(InvalidInput, match=rf"conversations\.jsonl:{len(messages) + 1}: not valid JSON"):
        load_fixture(tmp_path)
    (tmp_path / "gold.json").unlink()
    (tmp_path / "conversations.jsonl").write_text(json.dumps(messages[0]) + "\n", encoding="utf-8")
    with pytest.raises(InvalidInput, match=r"gold\.json: file not found"):
        load_fixture(tmp_path)
    with pytest.raises(InvalidInput, match=r"unknown part"):
        load_fixture(tmp_path, part="train")
