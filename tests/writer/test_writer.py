"""The Writer on both stores: remember, recall, history, profile and forget, end to end.

Facts here come from a scripted extractor (hand-written facts keyed by message text) so each
test states exactly what extraction returned; the rule extractor has its own tests.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from dualmem_core import InvalidInput, NotFound
from dualmem_core.store import EdgeType, SearchFilter
from dualmem_core.store import changes as ch
from dualmem_core.store.models import MemoryVersion
from dualmem_core.writer.extractors.base import Extraction, Extractor
from dualmem_core.writer.facts import Fact, Message
from dualmem_core.writer.writer import Writer

T = datetime(2026, 3, 2, 18, 0, tzinfo=UTC)


class ScriptedExtractor(Extractor):
    """Returns the hand-written facts listed for a message's exact text, else none."""

    def __init__(self, script: dict[str, list[Fact]]):
        self.script = script

    def extract_batch(self, messages: list[Message], context=None) -> Extraction:
        return Extraction([list(self.script.get(m.text, [])) for m in messages])


MOVE = "I moved to Portland last week."
JOB = "I started at Acme Corp as a nurse."
SCRIPT = {
    MOVE: [Fact("user lives in Portland", "user", "lives_in", "Portland",
                valid_from=T - timedelta(days=7), confidence=0.9, entities=[("Portland", "place")])],
    JOB: [Fact("user works at Acme Corp", "user", "works_at", "Acme Corp", confidence=0.85,
               entities=[("Acme Corp", "organization")])],
    "I don't eat meat.": [Fact("user does not eat meat", "user", "diet", "meat", negated=True)],
}


@pytest.fixture
def writer(store):
    return Writer(store, extractor=ScriptedExtractor(SCRIPT))


def test_remember_then_recall_with_provenance(writer, user):
    result = writer.remember(MOVE, user_id=user, session_id="s1", at=T, source_id="msg-17")
    assert len(result.episode_ids) == 1 and len(result.memory_ids) == 2 and len(result.fact_ids) == 1
    hits = writer.recall("Portland", user_id=user, k=5)
    assert {h.text for h in hits} == {MOVE, "user lives in Portland"}
    fact = next(h for h in hits if h.kind == "fact")
    assert (fact.subject, fact.predicate, fact.object) == ("user", "lives_in", "Portland")
    assert fact.sources == ["msg-17"] and fact.current
    assert fact.valid_from == T - timedelta(days=7)
    assert set(fact.why) == {"vector", "text", "graph", "rank_fusion"} and fact.score > 0
    assert writer.store.get_memories(user, [fact.memory_id])[0].access_count == 1


def test_messages_list_and_scopes(writer, user):
    writer.remember([{"role": "user", "content": MOVE, "source_id": "m1", "at": T.isoformat()},
                     {"role": "assistant", "content": "Congratulations on Portland!", "source_id": "m2"}],
                    user_id=user, session_id="s1", agent_id="a1")
    writer.remember(JOB, user_id=user, session_id="s2", at=T)
    in_s2 = writer.recall("Portland Acme", user_id=user, k=10, session_id="s2")
    assert {h.text for h in in_s2} == {JOB, "user works at Acme Corp"}
    from_agent = writer.recall("Portland", user_id=user, k=10, agent_id="a1")
    assert "Congratulations on Portland!" in {h.text for h in from_agent}
    assert all(h.kind == "observation" or h.sources == ["m1"] for h in from_agent)


def test_exact_duplicates_add_provenance_instead_of_copies(writer, user):
    first = writer.remember(MOVE, user_id=user, at=T, source_id="a")
    again = writer.remember("  i MOVED to portland   last week. ", user_id=user, at=T, source_id="b")
    assert sorted(again.skipped_duplicates) == sorted(first.memory_ids[:1])
    counts = writer.store.counts(user)
    assert counts["episodes"] == 2 and counts["memories"] == 2  # one observation, one fact
    [hit] = [h for h in writer.recall("moved Portland", user_id=user, k=5) if h.kind == "observation"]
    assert hit.sources == ["a", "b"]


def test_a_source_id_names_one_message(writer, user):
    first = writer.remember(MOVE, user_id=user, at=T, source_id="s-1")
    counts = writer.store.counts(user)
    again = writer.remember(MOVE, user_id=user, at=T, source_id="s-1")  # a retry: a no-op, said so
    assert again.already_stored == ["s-1"] and not again.episode_ids and not again.memory_ids
    assert writer.store.counts(user) == counts
    assert all(h.sources == ["s-1"] for h in writer.recall("Portland", user_id=user))
    with pytest.raises(InvalidInput, match="source_id 's-1' already names a different message"):
        writer.remember(JOB, user_id=user, source_id="s-1")
    with pytest.raises(InvalidInput, match="'s-2' already names"):  # within one list, nothing written
        writer.remember([{"content": JOB, "source_id": "s-2"}, {"content": MOVE, "source_id": "s-2"}],
                        user_id=user)
    assert writer.store.counts(user) == counts
    mixed = writer.remember([{"content": MOVE, "source_id": "s-1"}, {"content": JOB, "source_id": "s-3"}],
                            user_id=user)
    assert mixed.already_stored == ["s-1"] and len(mixed.episode_ids) == 1
    assert writer.remember(MOVE, user_id=user + "-other", source_id="s-1").episode_ids  # per user
    assert first.episode_ids


def test_point_in_time_recall(writer, user):
    writer.remember(MOVE, user_id=user, at=T, source_id="m")
    [fact] = [h for h in writer.recall("Portland", user_id=user) if h.kind == "fact"]
    before = writer.recall("Portland", user_id=user, as_of=T - timedelta(days=30))
    assert before == []
    assert writer.recall("Portland", user_id=user, known_at=datetime(2020, 1, 1, tzinfo=UTC)) == []
    assert fact.memory_id in {h.memory_id for h in writer.recall("Portland", user_id=user, as_of=T)}


def test_entities_are_shared_and_expand_recall(writer, user):
    writer.remember(MOVE, user_id=user, at=T)
    writer.remember("Portland has great parks.", user_id=user, at=T)
    writer.remember("We love living in Portland now", user_id=user, at=T,
                    speaker="user")
    [portland] = writer.store.find_entities(user, ["portland"])
    mentions = writer.store.get_edges(user, node_ids=[portland.id], types=[EdgeType.MENTIONS])
    assert len(mentions) == 2  # the fact and its message; the others extracted no facts


def test_negated_facts_keep_their_polarity(writer, user):
    writer.remember("I don't eat meat.", user_id=user, at=T)
    [fact] = [h for h in writer.recall("meat", user_id=user) if h.kind == "fact"]
    [version] = writer.store.get_versions(user, [fact.memory_id])
    assert version.negated and fact.current


def test_profile_history_and_supersession(writer, user, store):
    writer.remember("I live in Seattle.", user_id=user, at=T - timedelta(days=300))
    old = writer.remember(MOVE, user_id=user, at=T)
    writer.remember(JOB, user_id=user, at=T)
    profile = writer.profile(user)
    assert {p: e.value for p, e in profile.items()} == {"lives_in": "Portland", "works_at": "Acme Corp"}
    fact_id = old.fact_ids[0]
    [version] = store.get_versions(user, [fact_id])
    ended = MemoryVersion(memory_id=fact_id, user_id=user, text=version.text, valid_from=version.valid_from,
                          valid_to=T + timedelta(days=30), status="superseded", created_by="run-x")
    store.apply_changes(ch.ChangeSet(user, "run-x", [ch.CloseVersion(version.id), ch.AddVersion(ended)]))
    history = writer.history(fact_id)
    assert [v.status for v in history.versions] == ["active", "superseded"]
    assert history.user_id == user and history.versions[0].tx_to == history.versions[1].tx_from
    with pytest.raises(NotFound):
        writer.history("mem_unknown")


def test_forget_by_source_and_everything(writer, user):
    writer.remember(MOVE, user_id=user, at=T, source_id="secret")
    writer.remember(JOB, user_id=user, at=T, source_id="kept")
    receipt = writer.forget(user_id=user, source_ids=["secret"])
    assert len(receipt.memory_ids) == 2
    assert all("Portland" not in h.text for h in writer.recall("Portland Acme", user_id=user, k=10))
    writer.forget(user_id=user, everything=True)
    assert writer.store.counts(user)["memories"] == 0
    with pytest.raises(InvalidInput):
        writer.forget(user_id=user)


@pytest.mark.parametrize("content", ["", "   ", [], [{"role": "user"}], [{"role": "robot", "content": "x"}],
                                     [{"content": "x", "colour": "red"}], 42, {"content": "x"}])
def test_bad_remember_input_writes_nothing(writer, user, content):
    with pytest.raises(InvalidInput):
        writer.remember(content, user_id=user)
    assert writer.store.counts(user)["episodes"] == 0


def test_bad_times_and_queries(writer, user):
    with pytest.raises(InvalidInput, match="timezone"):
        writer.remember("hello", user_id=user, at=datetime(2026, 1, 1))
    with pytest.raises(InvalidInput):
        writer.remember([{"content": "x", "at": "not a date"}], user_id=user)
    for bad in ({"query": ""}, {"query": "x", "k": 0}, {"query": 3}):
        with pytest.raises(InvalidInput):
            writer.recall(user_id=user, **bad)
    with pytest.raises(InvalidInput):
        writer.remember("hello", user_id="")
    assert writer.store.counts(user)["episodes"] == 0


def test_similar_memories_are_linked(writer, user):
    writer.remember("My favourite tea is a smoky lapsang souchong.", user_id=user, at=T)
    result = writer.remember("My favourite tea is a smoky lapsang souchong!!", user_id=user, at=T)
    [similar] = writer.store.get_edges(user, node_ids=result.memory_ids, types=[EdgeType.SIMILAR_TO])
    assert similar.props["score"] >= 0.75


def test_a_superseded_fact_ranks_below_its_successor(store, user):
    from dualmem_core.store import Edge, Memory

    old_mem, new_mem = Memory(user_id=user), Memory(user_id=user)
    old = MemoryVersion(memory_id=old_mem.id, user_id=user, text="user lives in Seattle lives lives",
                        valid_from=T - timedelta(days=400), confidence=1.0, salience=1.0)
    new = MemoryVersion(memory_id=new_mem.id, user_id=user, text="user lives in Portland",
                        valid_from=T, confidence=0.2, salience=0.0)
    writer = Writer(store, extractor=ScriptedExtractor({}))
    for v in (old, new):
        v.embedding = writer.embedder.embed([v.text])[0]
    from dualmem_core.store import WriteBatch

    store.write(WriteBatch(memories=[old_mem, new_mem], versions=[old, new]))
    ended = MemoryVersion(memory_id=old_mem.id, user_id=user, text=old.text, embedding=old.embedding,
                          valid_from=old.valid_from, valid_to=T, status="superseded", confidence=1.0,
                          salience=1.0, created_by="run-s")
    store.apply_changes(ch.ChangeSet(user, "run-s", [
        ch.CloseVersion(old.id), ch.AddVersion(ended),
        ch.AddEdge(Edge(user_id=user, type=EdgeType.SUPERSEDES, src_id=new_mem.id, dst_id=old_mem.id))]))
    hits = writer.recall("where does the user live", user_id=user, k=2)
    assert [h.memory_id for h in hits] == [new_mem.id, old_mem.id]
    assert hits[0].current and not hits[1].current


def test_forget_purges_the_provider_cache(store, user, tmp_path):
    from dualmem_core.providers import HashingEmbedder
    from dualmem_core.providers.cache import ProviderCache
    from dualmem_core.providers.embedding import CachedEmbedder

    cache = ProviderCache(tmp_path / "cache.sqlite")
    writer = Writer(store, extractor=ScriptedExtractor(SCRIPT),
                    embedder=CachedEmbedder(HashingEmbedder(store.dimension), cache))
    writer.remember(MOVE, user_id=user, at=T, source_id="secret")
    writer.remember("I like green tea.", user_id=user, at=T, source_id="kept")
    assert cache.keys_matching("Portland") and cache.keys_matching("green tea")
    writer.forget(user_id=user, source_ids=["secret"])
    assert cache.keys_matching("Portland") == [] and cache.keys_matching("green tea")
    cache.close()


def test_a_message_is_searched_with_its_speaker_date_and_earlier_turns(writer, user):
    """"Lisbon, finally!" alone says nothing of a trip; after "Where did you go on holiday?" it
    answers it. The shown text stays the message; a later turn changes no earlier one."""
    writer.remember([
        {"role": "user", "speaker": "Ana", "content": "Where did you go on holiday?", "source_id": "t1"},
        {"role": "user", "speaker": "Ben", "content": "Lisbon, finally!", "source_id": "t2"},
    ], user_id=user, session_id="s1", at=T)
    writer.remember("Then we ate far too many pastries.", user_id=user, session_id="s1", at=T,
                    source_id="t3", speaker="Ben")
    texts = {h.version.text: h.version.search_text
             for h in writer.store.text_search("holiday", SearchFilter(user), 10)}
    assert "Lisbon, finally!" in texts  # found by the turn before it
    assert texts["Lisbon, finally!"].startswith("Ben: Lisbon, finally! (2 March 2026)")
    assert "Then we ate far too many pastries." in texts  # two turns back, across two calls
    hits = writer.recall("What did Ben say about his holiday?", user_id=user, k=5)
    assert "Lisbon, finally!" in [h.text for h in hits[:3]]
    assert all("(2 March 2026)" not in h.text for h in hits)
    first = writer.store.text_search("finally", SearchFilter(user), 10)
    lisbon = [h.version.search_text for h in first if h.version.text == "Lisbon, finally!"]
    assert len(lisbon) == 1 and "pastries" not in lisbon[0]


def test_a_role_is_no_speaker_name_in_the_search_text(writer, user):
    writer.remember("I adopted a greyhound.", user_id=user, at=T, source_id="g1")
    found = writer.store.text_search("greyhound", SearchFilter(user), 10)
    [hit] = [h for h in found if h.memory.kind == "observation"]
    assert hit.version.search_text.startswith("I adopted a greyhound. (2 March 2026)")


def test_forgetting_a_message_takes_it_out_of_the_next_messages_search_text(writer, user, tmp_path,
                                                                           monkeypatch):
    from dualmem_core.editor import Editor

    monkeypatch.setenv("DUALMEM_SNAPSHOT_DIR", str(tmp_path))
    writer.remember([
        {"role": "user", "content": "My PIN is QUOKKA4412.", "source_id": "p1"},
        {"role": "user", "content": "Also I booked the dentist.", "source_id": "p2"},
    ], user_id=user, session_id="s1", at=T)
    Editor(writer.store, snapshot_dir=tmp_path).run(user)  # a snapshot that holds both
    writer.forget(user_id=user, source_ids=["p1"])
    assert writer.store.text_search("QUOKKA4412", SearchFilter(user), 10) == []
    [dentist] = [h for h in writer.store.text_search("dentist", SearchFilter(user), 10)
                 if h.memory.kind == "observation"]
    assert dentist.version.search_text is None  # searched by its own words again
    assert not [p for p in tmp_path.rglob("*.parquet") if b"QUOKKA4412" in p.read_bytes()]
