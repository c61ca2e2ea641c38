"""Each Editor stage's rules on small hand-made graphs, traps included.

Graphs are written into a real embedded store and exported, so a stage sees exactly what a
snapshot holds (transaction times set by the store, closed versions, open edges).
"""

from __future__ import annotations

import pytest
from builders import Builder, at, write_built

from dualmem_core import Editor, open_store
from dualmem_core.editor import EditorConfig, GraphView, Judge, run_all
from dualmem_core.editor.dedupe import deduplicate
from dualmem_core.editor.entities import resolve_entities
from dualmem_core.editor.supersede import supersede
from dualmem_core.providers import HashingEmbedder
from dualmem_core.providers.llm import LLMReply
from dualmem_core.store import EdgeType
from dualmem_core.timeutil import EARLIEST, FAR_FUTURE

U = "stage-user"
EMBED = HashingEmbedder(384)


@pytest.fixture
def sqlite(tmp_path):
    with open_store(f"sqlite:///{tmp_path / 'stages.db'}") as store:
        yield store


def write(store, build) -> Builder:
    return write_built(store, U, build, EMBED)


def view_of(store) -> GraphView:
    return GraphView(store.export_graph(U))


def fact(b: Builder, text, subject, predicate, obj, when, **kw):
    ep = b.episode(text, when, session_id=kw.pop("session", None))
    mem, ver = b.memory(
        text, valid_from=when, episode=ep, subject=subject, predicate=predicate, object=obj, **kw
    )
    return mem


def observation(b: Builder, text, when=None, session=None):
    when = when or at(1)
    ep = b.episode(text, when, session_id=session)
    mem, _ = b.memory(text, valid_from=when, kind="observation", episode=ep)
    return mem


# -- deduplicate --------------------------------------------------------------------------------


def test_copies_point_at_the_oldest_and_bring_their_sources(sqlite):
    first = write(sqlite, lambda b: observation(b, "I adopted a cat named Milo last spring", at(1), "s1"))
    second = write(sqlite, lambda b: observation(b, "I adopted a cat named Milo last spring!", at(2), "s2"))
    canonical, copy = first.batch.memories[0].id, second.batch.memories[0].id
    result = deduplicate(view_of(sqlite), EditorConfig())
    [decision] = [d for d in result.decisions if d.action == "duplicate"]
    assert (decision.subject, decision.target, decision.reason) == (copy, canonical, "near-exact text")
    Editor(sqlite).run(U)
    assert [v.status for v in sqlite.get_versions(U, [copy])] == ["duplicate"]
    [dup] = sqlite.get_edges(U, types=[EdgeType.DUPLICATE_OF])
    assert (dup.src_id, dup.dst_id) == (copy, canonical)
    provenance = {e.dst_id for e in sqlite.get_edges(U, node_ids=[canonical], types=[EdgeType.FROM])}
    assert provenance == {first.batch.episodes[0].id, second.batch.episodes[0].id}


@pytest.mark.parametrize(
    ("older", "newer", "why"),
    [
        ("We have 3 kids and a dog", "We have 4 kids and a dog", "different numbers"),
        ("I like jazz on rainy evenings", "I don't like jazz on rainy evenings", "opposite polarity"),
        ("Lunch with Sarah on Friday at noon", "Lunch with Maria on Friday at noon", "different names"),
    ],
)
def test_near_is_not_equal(sqlite, older, newer, why):
    write(sqlite, lambda b: observation(b, older, at(1)))
    write(sqlite, lambda b: observation(b, newer, at(2)))
    result = deduplicate(view_of(sqlite), EditorConfig(candidate_cosine=0.3, near_cosine=0.3))
    assert [d.action for d in result.decisions] == ["kept_apart"]
    assert result.decisions[0].reason == why


def test_an_implied_fact_is_not_a_duplicate(sqlite):
    write(sqlite, lambda b: observation(b, "I accepted an offer at Acme", at(1)))
    write(sqlite, lambda b: observation(b, "I work at Acme", at(2)))
    result = deduplicate(view_of(sqlite), EditorConfig(candidate_cosine=0.0))
    assert not [d for d in result.decisions if d.action == "duplicate"]


def test_facts_are_the_same_when_their_triples_are(sqlite):
    write(sqlite, lambda b: fact(b, "user lives in Portland", "user", "lives_in", "Portland", at(1)))
    write(sqlite, lambda b: fact(b, "The user lives in Portland.", "user", "lives_in", "portland", at(2)))
    write(
        sqlite,
        lambda b: fact(b, "user lives in Portland, Maine", "user", "lives_in", "Portland, Maine", at(3)),
    )
    result = deduplicate(view_of(sqlite), EditorConfig(candidate_cosine=0.0))
    assert sorted(d.reason for d in result.decisions if d.action == "duplicate") == ["same triple"]


def _told(sqlite, text, predicate, obj, when, **kw):
    return write(sqlite, lambda b: fact(b, text, "user", predicate, obj, when, **kw)).batch.memories[0].id


def _version(sqlite, memory_id):
    [v] = sqlite.get_versions(U, [memory_id])
    return v


def test_a_repeat_that_knows_the_end_is_the_same_fact_and_ends_it(sqlite):
    works = _told(sqlite, "user works at Brightline", "works_at", "Brightline", at(1))
    # "my last day at Brightline was June 27", said in July: no start, an end
    left = _told(sqlite, "user used to work at Brightline", "works_at", "Brightline", EARLIEST,
                 valid_to=at(6, 27))
    target = _told(sqlite, "user works at Target", "works_at", "Target", at(7, 7))
    result = deduplicate(view_of(sqlite), EditorConfig())
    [decision] = [d for d in result.decisions if d.action == "duplicate"]
    assert (decision.subject, decision.target, decision.reason) == (left, works, "same triple")
    Editor(sqlite).run(U)
    kept = _version(sqlite, works)
    assert (kept.status, kept.valid_from, kept.valid_to) == ("superseded", at(1), at(6, 27))
    assert _version(sqlite, left).status == "duplicate"
    assert _version(sqlite, target).status == "active"
    assert Editor(sqlite).run(U).operations == 0  # a fixpoint


def test_the_same_home_before_and_after_another_is_two_stints(sqlite):
    first, seattle, again = _moves(sqlite, ("Portland", 1), ("Seattle", 3), ("Portland", 6))
    result = deduplicate(view_of(sqlite), EditorConfig(candidate_cosine=0.0))
    assert not [d for d in result.decisions if d.action == "duplicate"]
    assert ("kept_apart", "same triple, another stint") in {(d.action, d.reason) for d in result.decisions}
    Editor(sqlite).run(U)
    assert _state(sqlite, [first, seattle, again]) == [("superseded", 3), ("superseded", 6), ("active", None)]


def test_a_taste_told_again_after_it_ended_is_a_new_stint(sqlite):
    ended = _told(sqlite, "user used to like tennis", "likes", "tennis", at(1), valid_to=at(2))
    back = _told(sqlite, "user likes tennis", "likes", "tennis", at(5))
    still = _told(sqlite, "user likes tennis", "likes", "tennis", at(8, 2))  # written apart by hand
    result = deduplicate(view_of(sqlite), EditorConfig(candidate_cosine=0.0))
    assert [(d.subject, d.target) for d in result.decisions if d.action == "duplicate"] == [(still, back)]
    assert ended not in {d.subject for d in result.decisions if d.action == "duplicate"}


def test_a_later_repeat_redates_a_reviewed_fact(sqlite):
    lives = _told(sqlite, "user lives in Reno", "lives_in", "Reno", at(3))
    Editor(sqlite).run(U)
    # later: "we lived in Reno from January until May"; the first telling knew neither date
    told = _told(sqlite, "user used to live in Reno", "lives_in", "Reno", at(1), valid_to=at(5))
    run = Editor(sqlite).run(U)
    assert _version(sqlite, told).status == "duplicate"
    kept = _version(sqlite, lives)
    assert (kept.status, kept.valid_from, kept.valid_to) == ("active", at(1), at(5))
    assert run.counts["supersede"].get("redate") == 1


def test_grey_band_asks_the_llm_in_one_batch(sqlite):
    write(sqlite, lambda b: observation(b, "My grandmother taught me to bake bread", at(1)))
    write(sqlite, lambda b: observation(b, "Grandma is the one who showed me how to bake bread", at(2)))
    config = EditorConfig(candidate_cosine=0.0, near_cosine=0.99, grey_cosine=0.0)
    without = deduplicate(view_of(sqlite), config)
    assert [(d.action, d.reason) for d in without.decisions] == [("kept_apart", "grey band, no model")]
    llm = HandWrittenLLM([{"verdicts": [{"index": 0, "same": True}]}])
    judge = Judge(llm)
    with_model = deduplicate(view_of(sqlite), config, judge)
    assert [(d.action, d.reason) for d in with_model.decisions] == [("duplicate", "llm: same")]
    assert len(llm.prompts) == 1 and judge.usage["dedupe"].calls == 1


def test_a_garbled_llm_reply_keeps_pairs_apart_and_is_counted(sqlite):
    write(sqlite, lambda b: observation(b, "My grandmother taught me to bake bread", at(1)))
    write(sqlite, lambda b: observation(b, "Grandma is the one who showed me how to bake bread", at(2)))
    config = EditorConfig(candidate_cosine=0.0, near_cosine=0.99, grey_cosine=0.0)
    judge = Judge(HandWrittenLLM([{"verdicts": "not a list"}]))
    result = deduplicate(view_of(sqlite), config, judge)
    assert [(d.action, d.reason) for d in result.decisions] == [("kept_apart", "llm: different")]
    assert judge.failures == 1


# -- supersede ------------------------------------------------------------------------------------


def _moves(sqlite, *moves):
    ids = []
    for city, month in moves:
        b = write(
            sqlite, lambda b, c=city, m=month: fact(b, f"user lives in {c}", "user", "lives_in", c, at(m))
        )
        ids.append(b.batch.memories[0].id)
    return ids


def _state(sqlite, memory_ids):
    out = []
    for m in memory_ids:
        [v] = sqlite.get_versions(U, [m])
        out.append((v.status, v.valid_to.month if v.valid_to != FAR_FUTURE else None))
    return out


def test_a_chain_of_moves_ends_each_home_where_the_next_begins(sqlite):
    ids = _moves(sqlite, ("Seattle", 1), ("Portland", 3), ("Denver", 6))
    Editor(sqlite).run(U)
    assert _state(sqlite, ids) == [("superseded", 3), ("superseded", 6), ("active", None)]
    edges = {(e.src_id, e.dst_id) for e in sqlite.get_edges(U, types=[EdgeType.SUPERSEDES])}
    assert edges == {(ids[1], ids[0]), (ids[2], ids[1])}
    assert Editor(sqlite).run(U).operations == 0  # a fixpoint


def test_a_fact_told_late_slots_into_the_past_without_superseding_the_present(sqlite):
    seattle, denver = _moves(sqlite, ("Seattle", 1), ("Denver", 6))
    Editor(sqlite).run(U)
    [portland] = _moves(sqlite, ("Portland", 3))  # said after Denver, about March
    Editor(sqlite).run(U)
    assert _state(sqlite, [seattle, portland, denver]) == [
        ("superseded", 3),
        ("superseded", 6),
        ("active", None),
    ]
    edges = {(e.src_id, e.dst_id) for e in sqlite.get_edges(U, types=[EdgeType.SUPERSEDES])}
    assert edges == {(portland, seattle), (denver, portland)}


def test_multi_valued_facts_never_supersede_and_a_negation_ends_its_fact(sqlite):
    coffee = write(sqlite, lambda b: fact(b, "user likes coffee", "user", "likes", "coffee", at(1)))
    tea = write(sqlite, lambda b: fact(b, "user likes tea", "user", "likes", "tea", at(2)))
    quit_ = write(
        sqlite,
        lambda b: fact(
            b, "user does not like coffee anymore", "user", "likes", "coffee", at(5), negated=True
        ),
    )
    result = supersede(view_of(sqlite))
    assert [(d.subject, d.target, d.evidence["valid_to"]) for d in result.decisions] == [
        (coffee.batch.memories[0].id, quit_.batch.memories[0].id, "2026-05-01")
    ]
    assert tea.batch.memories[0].id not in {d.subject for d in result.decisions}


def test_a_value_said_after_its_negation_ends_the_negation(sqlite):
    """"I don't eat pork", later "I guess I eat pork now": the negation ends where the value is said."""
    never = write(sqlite, lambda b: fact(b, "user does not eat pork", "user", "eats", "pork", at(1),
                                         negated=True))
    pork = write(sqlite, lambda b: fact(b, "user eats pork", "user", "eats", "pork", at(4)))
    fish = write(sqlite, lambda b: fact(b, "user eats fish", "user", "eats", "fish", at(6)))
    result = supersede(view_of(sqlite))
    assert [(d.subject, d.target, d.evidence["valid_to"]) for d in result.decisions] == [
        (never.batch.memories[0].id, pork.batch.memories[0].id, "2026-04-01")
    ]
    assert fish.batch.memories[0].id not in {d.subject for d in result.decisions}


def test_an_acronym_for_the_employer_is_no_change_of_job(sqlite):
    long = _told(sqlite, "user works at Woods Hole Oceanographic Institution", "works_at",
                 "Woods Hole Oceanographic Institution", at(1))
    short = _told(sqlite, "user works at WHOI", "works_at", "WHOI", at(3))
    other = _told(sqlite, "user works at MBL", "works_at", "MBL", at(6))  # no value has those initials
    Editor(sqlite).run(U)
    assert _version(sqlite, short).status == "duplicate"  # one employer, told twice
    assert (_version(sqlite, long).status, _version(sqlite, long).valid_to) == ("superseded", at(6))
    assert _version(sqlite, other).status == "active"


def test_an_acronym_entity_merges_with_the_one_name_it_abbreviates(sqlite):
    def build(b):
        for name in ("Woods Hole Oceanographic Institution", "WHOI", "MBL", "JD", "John Doe"):
            entity = b.entity(name, "person" if name in ("JD", "John Doe") else "organization")
            mem, _ = b.memory(f"user mentioned {name}")
            b.edge(EdgeType.MENTIONS, mem.id, entity.id)

    b = write(sqlite, build)
    names = {e.id: e.name for e in b.batch.entities}
    result = resolve_entities(view_of(sqlite))
    merges = {(frozenset((names[d.subject], names[d.target])), d.reason) for d in result.decisions
              if d.action == "merge"}
    assert merges == {(frozenset(("WHOI", "Woods Hole Oceanographic Institution")), "initials")}


def test_breaking_up_ends_the_partner_who_held_then_and_no_other(sqlite):
    nadia = _told(sqlite, "Nadia is user's girlfriend", "partner", "Nadia", at(1))
    marriage = _told(sqlite, "user was married to Sam", "spouse", "Sam", EARLIEST, valid_to=at(1))
    single = _told(sqlite, "user is single", "relationship_status", "single", at(5))
    jess = _told(sqlite, "Jess is user's girlfriend", "partner", "Jess", at(9))
    Editor(sqlite).run(U)
    assert (_version(sqlite, nadia).status, _version(sqlite, nadia).valid_to) == ("superseded", at(5))
    assert _version(sqlite, marriage).valid_to == at(1)  # ended before: not touched
    assert _version(sqlite, jess).status == "active"  # began after the break-up
    ended_by = {(e.src_id, e.dst_id) for e in sqlite.get_edges(U, types=[EdgeType.SUPERSEDES])}
    assert (single, nadia) in ended_by


def test_a_status_told_later_ends_a_reviewed_partner(sqlite):
    nadia = _told(sqlite, "Nadia is user's girlfriend", "partner", "Nadia", at(1))
    Editor(sqlite).run(U)
    _told(sqlite, "user is single", "relationship_status", "single", at(5))
    Editor(sqlite).run(U)
    assert (_version(sqlite, nadia).status, _version(sqlite, nadia).valid_to) == ("superseded", at(5))


def test_a_nickname_or_first_name_told_as_a_name_ends_no_name(sqlite):
    full = _told(sqlite, "user's name is Beatriz Carvalho", "name", "Beatriz Carvalho", at(1))
    _told(sqlite, "user goes by Bia", "nickname", "Bia", at(1))
    short = _told(sqlite, "user's name is Bia", "name", "Bia", at(3))
    first = _told(sqlite, "user's name is Beatriz", "name", "Beatriz", at(4))
    Editor(sqlite).run(U)
    assert [_version(sqlite, m).status for m in (full, short, first)] == ["active"] * 3
    married = _told(sqlite, "user's name is Beatriz Souza", "name", "Beatriz Souza", at(6))
    Editor(sqlite).run(U)  # a new surname is a change of name
    assert (_version(sqlite, full).status, _version(sqlite, married).status) == ("superseded", "active")


def test_the_users_own_name_counts_as_the_user(sqlite):
    write(sqlite, lambda b: fact(b, "user is named Maya", "user", "name", "Maya", at(1)))
    old = write(sqlite, lambda b: fact(b, "Maya works at Acme", "Maya", "works_at", "Acme", at(2)))
    write(sqlite, lambda b: fact(b, "user works at Globex", "user", "works_at", "Globex", at(4)))
    result = supersede(view_of(sqlite))
    assert [d.subject for d in result.decisions] == [old.batch.memories[0].id]


# -- entities ---------------------------------------------------------------------------------------


def test_same_names_and_stated_aliases_merge_and_co_mentions_never_do(sqlite):
    def build(b):
        acme, acme2 = b.entity("Acme Corp", "organization"), b.entity("acme corp", "thing")
        bob, robert = b.entity("Bob"), b.entity("Robert Smith")
        sarah, sarah_chen = b.entity("Sarah"), b.entity("Sarah Chen")
        for text, ents, triple in [
            ("user works at Acme Corp", [acme], ("user", "works_at", "Acme Corp")),
            ("acme corp opened an office", [acme2], None),
            ("Bob's name is Robert Smith", [bob, robert], ("Bob", "name", "Robert Smith")),
            ("Sarah met Sarah Chen at the gym", [sarah, sarah_chen], None),
        ]:
            kw = dict(zip(("subject", "predicate", "object"), triple, strict=True)) if triple else {}
            mem, _ = b.memory(text, **kw)
            for e in ents:
                b.edge(EdgeType.MENTIONS, mem.id, e.id)

    b = write(sqlite, build)
    names = {e.id: e.name for e in b.batch.entities}
    result = resolve_entities(view_of(sqlite))
    merges = {
        (frozenset((names[d.subject], names[d.target])), d.reason)
        for d in result.decisions
        if d.action == "merge"
    }
    assert merges == {
        (frozenset(("acme corp", "Acme Corp")), "same name"),
        (frozenset(("Robert Smith", "Bob")), "named as"),
    }


def test_two_people_with_one_first_name_stay_apart_without_proof(sqlite):
    def build(b):
        for name, text in [("Sarah", "my sister Sarah called"), ("Sarah Chen", "Sarah Chen is my manager")]:
            e = b.entity(name)
            mem, _ = b.memory(text)
            b.edge(EdgeType.MENTIONS, mem.id, e.id)

    write(sqlite, build)
    result = resolve_entities(view_of(sqlite))
    assert [(d.action, d.reason) for d in result.decisions] == [("kept_apart", "grey band, no model")]
    llm = HandWrittenLLM([{"verdicts": [{"index": 0, "same": False}]}])
    decided = resolve_entities(view_of(sqlite), judge=Judge(llm))
    assert [d.action for d in decided.decisions] == ["distinct"]  # remembered as DISTINCT_FROM


# -- relations and the whole run ------------------------------------------------------------------


def test_relations_follow_the_facts_and_their_end(sqlite):
    def build(b, city, month):
        sarah, place = b.entity("Sarah"), b.entity(city, "place")
        mem = fact(b, f"Sarah lives in {city}", "Sarah", "lives_in", city, at(month))
        b.edge(EdgeType.MENTIONS, mem.id, sarah.id)
        b.edge(EdgeType.MENTIONS, mem.id, place.id)

    write(sqlite, lambda b: build(b, "Boston", 1))
    Editor(sqlite).run(U)
    [edge] = sqlite.get_edges(U, types=[EdgeType.RELATED])
    assert (edge.props["relation"], edge.props["valid_to"]) == ("lives_in", None)
    write(sqlite, lambda b: build(b, "Chicago", 4))
    run = Editor(sqlite).run(U)
    assert run.counts["entities"] == {"merge": 1}  # the second "Sarah" is the first
    related = {
        (e.props["relation"], e.props["valid_to"]) for e in sqlite.get_edges(U, types=[EdgeType.RELATED])
    }
    assert related == {("lives_in", "2026-04-01T00:00:00+00:00"), ("lives_in", None)}


def test_a_fact_told_in_two_sessions_gains_confidence(sqlite):
    first = write(
        sqlite,
        lambda b: fact(
            b,
            "user is allergic to peanuts",
            "user",
            "allergy",
            "peanuts",
            at(1),
            session="s1",
            confidence=0.7,
        ),
    )
    write(
        sqlite,
        lambda b: fact(
            b,
            "user is allergic to peanuts.",
            "user",
            "allergy",
            "peanuts",
            at(2),
            session="s2",
            confidence=0.7,
        ),
    )
    results = run_all(view_of(sqlite), EditorConfig(), Judge(None))
    [rescored] = [d for d in results[-1].decisions if d.subject == first.batch.memories[0].id]
    assert rescored.evidence["sessions"] == 2 and rescored.ops[0].fields["confidence"] == pytest.approx(0.82)


def test_a_message_that_said_something_core_is_as_salient_as_its_fact(sqlite):
    def core_message(b):
        ep = b.episode("we got a corgi called Biscuit, the kids are obsessed", at(1))
        b.memory(ep.text, valid_from=at(1), kind="observation", episode=ep)
        b.memory("user has a corgi named Biscuit", valid_from=at(1), episode=ep, subject="user",
                 predicate="pet", object="Biscuit")

    write(sqlite, core_message)
    chatter = write(sqlite, lambda b: observation(b, "the kids are obsessed with that cartoon", at(2)))
    results = run_all(view_of(sqlite), EditorConfig(), Judge(None))
    salience = {
        d.subject: d.ops[0].fields.get("salience") for d in results[-1].decisions if d.action == "rescore"
    }
    [said_core] = [m for m in salience if sqlite.get_versions(U, [m])[0].text.startswith("we got a corgi")]
    assert salience[said_core] == pytest.approx(0.7)  # the pet fact's salience, not an observation's 0.5
    assert chatter.batch.memories[0].id not in salience  # nothing core said: stays at the Writer's 0.5


class HandWrittenLLM:
    """Hand-written replies, not a model's output: they test the protocol, parsing and fallbacks."""

    name = "hand-written"

    def __init__(self, replies: list[dict]):
        self.replies, self.prompts = list(replies), []

    def complete_json(self, messages, schema, *, name, temperature=0, sources=()):
        self.prompts.append(messages)
        return LLMReply(parsed=self.replies.pop(0), text="", model=self.name, tokens_in=100, tokens_out=10)


def test_new_memories_naming_a_merged_entity_mention_its_canonical_one(sqlite):
    def build(b):
        for name, type_ in (("Acme Corp", "organization"), ("acme corp", "thing")):
            e = b.entity(name, type_)
            mem, _ = b.memory(f"{name} hired me")
            b.edge(EdgeType.MENTIONS, mem.id, e.id)

    b = write(sqlite, build)
    Editor(sqlite).run(U)
    [merge] = sqlite.get_edges(U, types=[EdgeType.MERGED_INTO])
    late = write(
        sqlite, lambda nb: nb.edge(EdgeType.MENTIONS, nb.memory("They gave me a raise")[0].id, merge.src_id)
    )
    run = Editor(sqlite).run(U)
    assert run.counts["entities"] == {"mention": 1}
    mentioned = {
        e.dst_id for e in sqlite.get_edges(U, node_ids=[late.batch.memories[0].id], types=[EdgeType.MENTIONS])
    }
    assert mentioned == {merge.src_id, merge.dst_id} and {e.id for e in b.batch.entities} == mentioned
