"""Ranking rules of recall that are about who said what, on both stores."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from dualmem_core import Writer
from dualmem_core.writer.search_text import speaker_of
from dualmem_core.writer.writer import WriterConfig

T = datetime(2026, 3, 1, 12, tzinfo=UTC)


def test_a_question_naming_the_user_finds_what_the_user_said_not_replies_greeting_them(store):
    user = f"ranking-{id(store)}-{T.timestamp()}"
    w = Writer(store)
    w.remember("hi! I'm Lou.", user_id=user, session_id="s1", at=T - timedelta(days=1))
    w.remember("I started a new job as a welder at Globex", user_id=user, session_id="s1", at=T)
    replies = [
        "Hi Lou! How can I help?",
        "Congratulations, Lou!",
        "Sleep well, Lou.",
        "Lou, great news about work",
    ]
    for i, reply in enumerate(replies):
        w.remember(reply, user_id=user, session_id="s1", at=T + timedelta(minutes=i + 1), role="assistant")
    texts = [h.text for h in w.recall("Where does Lou work?", user_id=user, k=5)]
    assert "I started a new job as a welder at Globex" in texts, texts
    assert not {"Hi Lou! How can I help?", "Congratulations, Lou!", "Sleep well, Lou."} & set(texts), texts


def test_an_assistant_reply_is_stored_whole_with_less_confidence_than_the_users_words(store):
    user = f"ranking-conf-{id(store)}-{T.timestamp()}"
    w = Writer(store)
    said = w.remember("I adopted a greyhound called Biscuit", user_id=user, at=T)
    replied = w.remember(
        "Biscuit is a lovely name!", user_id=user, at=T + timedelta(minutes=1), role="assistant"
    )
    config = WriterConfig()
    found = {h.text for h in w.recall("Biscuit", user_id=user, k=10) if h.kind == "observation"}
    assert found == {"I adopted a greyhound called Biscuit", "Biscuit is a lovely name!"}  # both recallable
    versions = {
        v.text: v.confidence for v in store.get_versions(user, [*said.memory_ids, *replied.memory_ids])
    }
    assert versions["Biscuit is a lovely name!"] == config.assistant_observation_confidence
    assert versions["I adopted a greyhound called Biscuit"] == config.observation_confidence


CHATTER = [
    "Work was brutal today, three meetings back to back.",
    "I made a huge pot of chilli for the week.",
    "The cat knocked my coffee all over the desk again.",
    "My sister is visiting in May.",
    "I need new running shoes, any tips?",
    "We watched a documentary about octopuses last night.",
]


def test_a_question_about_the_present_finds_the_message_in_the_words_its_facts_are_stated_in(store):
    user = f"ranking-cues-{id(store)}-{datetime.now().timestamp()}"
    w = Writer(store)
    for i, text in enumerate(CHATTER):
        w.remember(text, user_id=user, session_id="s1", at=T + timedelta(hours=i))
    first = w.recall("What pets do I have?", user_id=user, k=3)[0]  # "pets" is in no message
    assert first.text == "The cat knocked my coffee all over the desk again."
    assert first.why["cue"] > 0
    # About the past or as of a date the cue list is not searched: it lifted old tellings.
    for hits in (w.recall("What pets did I have before?", user_id=user, k=3),
                 w.recall("What pets do I have?", user_id=user, k=3, as_of=T + timedelta(days=1))):
        assert not any("cue" in h.why for h in hits)


def test_statement_words_come_from_the_extractors_lexicon():
    from dualmem_core.vocab.statement_words import statement_words

    pets, kids = statement_words(["pet"]).split(), statement_words(["child"]).split()
    assert {"cat", "dog", "puppy", "adopted"} <= set(pets) and len(pets) == len(set(pets))
    assert {"son", "daughter", "kid"} <= set(kids)
    assert statement_words(["no_such_predicate"]) == ""
    # "my favourite whisky": the cue word and the category it is a favourite of
    assert {"favourite", "favorite", "whisky"} <= set(statement_words(["favourite_whisky"]).split())


def test_a_question_naming_a_speaker_prefers_what_that_speaker_said(store):
    """In a chat of several people, "what did Ana say ..." asks mostly for Ana's own messages:
    her reply outranks Cleo's message, which has more of the question's words."""
    user = f"ranking-spoken-{id(store)}-{T.timestamp()}"
    w = Writer(store)
    turns = [("Ben", "I keep thinking about getting a bike for the commute, a proper bike"),
             ("Ana", "honestly I'd never ride one in this traffic"),
             ("Cleo", "my bike got stolen last spring, so it's the bus now"),
             ("Ana", "anyway who is coming to the quiz on friday?"),
             ("Ben", "count me in, Ana, I'll bring snacks"),
             ("Cleo", "can't, my sister is visiting from Porto"),
             ("Ana", "the new bakery on the corner does great sourdough"),
             ("Ben", "their croissants are better than the sourdough"),
             ("Cleo", "Ana you should try the cinnamon buns there")]
    w.remember([{"role": "user", "speaker": who, "content": text, "source_id": f"t{i}"}
                for i, (who, text) in enumerate(turns)], user_id=user, session_id="s1", at=T)
    texts = [h.text for h in w.recall("What did Ana say about getting a bike for the commute?",
                                      user_id=user, k=5)]
    assert texts.index(turns[1][1]) < texts.index(turns[2][1]), texts


def test_the_speaker_is_read_back_from_the_head_of_the_search_text():
    said = "Ben: Lisbon, finally! (1 March 2026) Ben: Lisbon, finally!"
    assert speaker_of("Lisbon, finally!", said) == "Ben"
    assert speaker_of("hi", "hi (1 March 2026) hi") is None  # a role is no name: nothing to read
    assert speaker_of("hi", None) is None


def test_asked_about_the_present_the_latest_telling_comes_first_without_any_fact(store):
    """Neither message is read as a fact, and no Editor linked them: of
    the user's messages telling where they live, the latest comes first; asked as of before
    the move, the earlier one is still found."""
    user = f"ranking-newest-{id(store)}-{T.timestamp()}"
    w = Writer(store)
    said = [(0, "hiya. living w my cousin in galway atm, tiny room but cheap"),
            (3, "job hunting is brutal tbh"),
            (50, "got the keys!! own flat in limerick, 2 bed, garden for the dog"),
            (52, "dog loves the garden already")]
    for day, text in said:
        w.remember(text, user_id=user, session_id=f"s{day}", at=T + timedelta(days=day))
    texts = [h.text for h in w.recall("Where does the user live?", user_id=user, k=5)
             if h.kind == "observation"]
    assert texts.index(said[2][1]) < texts.index(said[0][1]), texts
    before = [h.text for h in w.recall("Where does the user live?", user_id=user, k=5,
                                       as_of=T + timedelta(days=10))]
    assert said[0][1] in before and said[2][1] not in before, before


def test_asked_about_the_present_a_message_telling_only_the_past_comes_after_the_present(store):
    """The newer message tells of an earlier job ("used to work at"): its one fact has ended,
    so it is not the latest telling of where the user works, and it keeps half its score."""
    user = f"ranking-past-telling-{id(store)}-{T.timestamp()}"
    w = Writer(store)
    said = [(0, "started at Rossi's Deli downtown last month, I work the counter"),
            (20, "funny, before the deli I used to work at the Blue Harbor Aquarium, cleaning the tanks")]
    for day, text in said:
        w.remember(text, user_id=user, session_id=f"s{day}", at=T + timedelta(days=day))
    hits = w.recall("Where does the user work?", user_id=user, k=5, record_access=False)
    texts = [h.text for h in hits]
    assert texts[0] == said[0][1], texts
    assert texts.index("user works at Rossi's Deli") < texts.index(said[1][1]), texts
    past = w.recall("Where did the user work before the deli?", user_id=user, k=5, record_access=False)
    assert "user used to work at Blue Harbor Aquarium" in [h.text for h in past[:2]]
    assert said[1][1] in [h.text for h in past]  # asked about the past, not set back


def test_before_a_value_only_a_message_names_asks_for_the_value_held_when_it_was_told(store):
    """No fact holds Conroe ("closed on a house up in Conroe" reads as none): the message naming
    it says when it began, and the home held just before then comes first, not the oldest one."""
    user = f"ranking-before-told-{id(store)}-{T.timestamp()}"
    w = Writer(store)
    said = [(0, "I live in Houston with my wife and the dog"),
            (5, "back in 2003 I lived in Killeen, when I was in the army"),
            (40, "we closed on a house up in Conroe!! moving day is next month")]
    for day, text in said:
        w.remember(text, user_id=user, session_id=f"s{day}", at=T + timedelta(days=day))
    hits = w.recall("Where did the user live before the move to Conroe?", user_id=user, k=5,
                    record_access=False)
    assert hits[0].text == "user lives in Houston", [h.text for h in hits]
    assert "user used to live in Killeen" in [h.text for h in hits]  # the older home, still found
