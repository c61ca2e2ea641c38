"""The rule-based fact extractor: many ordinary sentences, negatives, dates and a held-out score.

Cases are (sentence, expected triples). A triple is (subject, predicate, object) and may carry a
fourth element, ``True`` for a negated fact. Positive cases check that every expected triple is
extracted (extra facts are allowed there); negative cases check that nothing is extracted.
"""

from __future__ import annotations

import json
import random
from datetime import UTC, datetime
from pathlib import Path

import pytest

from dualmem_core.vocab import predicates
from dualmem_core.writer.extractors.base import Extractor
from dualmem_core.writer.extractors.rules.extractor import RuleExtractor
from dualmem_core.writer.facts import Fact, Message

NOW = datetime(2024, 6, 15, 14, 30, tzinfo=UTC)
EXTRACTOR = RuleExtractor()


def extract(text: str, speaker: str = "user", role: str = "user", at: datetime = NOW) -> list[Fact]:
    return EXTRACTOR.extract(Message(text=text, at=at, speaker=speaker, role=role))


def _key(subject: str, predicate: str, obj: str, negated: bool = False) -> tuple[str, str, str, bool]:
    return subject.lower(), predicate, obj.lower(), negated


def triples(facts: list[Fact]) -> set[tuple[str, str, str, bool]]:
    return {_key(f.subject, f.predicate, f.object, f.negated) for f in facts}


def find(facts: list[Fact], predicate: str, obj: str | None = None) -> Fact:
    for fact in facts:
        if fact.predicate == predicate and (obj is None or fact.object.lower() == obj.lower()):
            return fact
    raise AssertionError(f"no {predicate} {obj!r} in {[(f.subject, f.predicate, f.object) for f in facts]}")


POSITIVE: list[tuple[str, list[tuple]]] = [
    # where someone lives
    ("I live in Portland.", [("user", "lives_in", "Portland")]),
    ("I'm living in Leeds these days.", [("user", "lives_in", "Leeds")]),
    ("We relocated to Phoenix last spring.", [("user", "lives_in", "Phoenix")]),
    ("I moved to New York City for a new job at Acme Corp.", [("user", "lives_in", "New York City")]),
    ("I've been living in Kyoto since 2021.", [("user", "lives_in", "Kyoto")]),
    ("My home is in Vermont.", [("user", "lives_in", "Vermont")]),
    ("Minneapolis is where I live now.", [("user", "lives_in", "Minneapolis")]),
    ("We're based in Rotterdam.", [("user", "lives_in", "Rotterdam")]),
    ("I used to live in Glasgow.", [("user", "lives_in", "Glasgow")]),
    ("Honestly I reside in a small town near Tulsa.", [("user", "lives_in", "small town near Tulsa")]),
    (
        "Last year we moved from Houston to Raleigh.",
        [("user", "lives_in", "Raleigh"), ("user", "lives_in", "Houston")],
    ),
    ("My parents live in Porto.", [("user's parents", "lives_in", "Porto")]),
    (
        "My aunt Rosa lives just outside of Madrid.",
        [("user", "relative", "Rosa"), ("Rosa", "lives_in", "Madrid")],
    ),
    # where someone is from
    ("I'm from Kenya originally.", [("user", "from", "Kenya")]),
    ("I was born and raised in Cork.", [("user", "from", "Cork")]),
    ("I was born in Tbilisi in 1988.", [("user", "from", "Tbilisi"), ("user", "birth_year", "1988")]),
    ("I come from Manchester.", [("user", "from", "Manchester")]),
    ("My hometown is Savannah.", [("user", "from", "Savannah")]),
    # work
    ("I work at Spotify.", [("user", "works_at", "Spotify")]),
    ("I work for Johnson & Johnson.", [("user", "works_at", "Johnson & Johnson")]),
    (
        "I'm a nurse at Mercy General.",
        [("user", "job_title", "nurse"), ("user", "works_at", "Mercy General")],
    ),
    ("I got a job at Airbnb!", [("user", "works_at", "Airbnb")]),
    ("Big news: I started at Lyft on Monday.", [("user", "works_at", "Lyft")]),
    ("I joined Datadog in March.", [("user", "works_at", "Datadog")]),
    ("I'm an accountant.", [("user", "job_title", "accountant")]),
    (
        "I work as a senior data analyst at Target.",
        [("user", "job_title", "senior data analyst"), ("user", "works_at", "Target")],
    ),
    ("I quit Uber last year.", [("user", "works_at", "Uber")]),
    ("I retired from Boeing in 2019.", [("user", "works_at", "Boeing")]),
    ("I'm retired.", [("user", "job_title", "retired")]),
    ("My job is teaching high school chemistry.", [("user", "job_title", "teaching high school chemistry")]),
    ("Bob works at Acme.", [("Bob", "works_at", "Acme")]),
    ("Carlos is a plumber.", [("Carlos", "job_title", "plumber")]),
    ("I'm the CTO of Brightwave.", [("user", "job_title", "CTO"), ("user", "works_at", "Brightwave")]),
    # study
    ("I'm a junior at Boston University.", [("user", "studies_at", "Boston University")]),
    ("I study biology at McGill.", [("user", "studies", "biology"), ("user", "studies_at", "McGill")]),
    ("I graduated from Rice University in 2016.", [("user", "studies_at", "Rice University")]),
    ("My daughter goes to Lincoln High School.", [("user's daughter", "studies_at", "Lincoln High School")]),
    # identity
    ("My name is Farida.", [("user", "name", "Farida")]),
    ("Hello! I'm Teodor.", [("user", "name", "Teodor")]),
    ("Please call me Bex.", [("user", "nickname", "Bex")]),
    ("Everyone calls me Jojo.", [("user", "nickname", "Jojo")]),
    ("I go by Sam.", [("user", "nickname", "Sam")]),
    ("I'm 41.", [("user", "age", "41")]),
    ("I'm twenty-six years old.", [("user", "age", "26")]),
    ("I turned 50 yesterday!", [("user", "age", "50")]),
    ("My birthday is March 9th.", [("user", "birthday", "March 9")]),
    ("My birthday is on the 22nd of November.", [("user", "birthday", "November 22")]),
    # partners and family
    ("My wife Ingrid is a pilot.", [("user", "spouse", "Ingrid"), ("Ingrid", "job_title", "pilot")]),
    ("I'm married to Kwame.", [("user", "spouse", "Kwame")]),
    ("I married Lucia in 2012.", [("user", "spouse", "Lucia")]),
    ("My boyfriend Theo lives in Lyon.", [("user", "partner", "Theo"), ("Theo", "lives_in", "Lyon")]),
    ("I'm dating Priyanka.", [("user", "partner", "Priyanka")]),
    ("Nadia and I broke up.", [("user", "partner", "Nadia"), ("user", "relationship_status", "single")]),
    ("me and Sam split up last week", [("user", "partner", "Sam")]),
    ("first week at WHOI as a research technician!", [("user", "works_at", "WHOI"),
                                                     ("user", "job_title", "research technician")]),
    ("We got engaged last weekend!", [("user", "relationship_status", "engaged")]),
    ("I'm divorced.", [("user", "relationship_status", "divorced")]),
    ("My sister Lena lives in Seattle.", [("user", "sibling", "Lena"), ("Lena", "lives_in", "Seattle")]),
    ("Nadia is my younger sister.", [("user", "sibling", "Nadia")]),
    (
        "My older brother, Marco, works at Ferrari.",
        [("user", "sibling", "Marco"), ("Marco", "works_at", "Ferrari")],
    ),
    ("My mom is a librarian.", [("user's mom", "job_title", "librarian")]),
    ("My dad's name is Hiroshi.", [("user", "parent", "Hiroshi")]),
    ("Our son Kai just turned four.", [("user", "child", "Kai"), ("Kai", "age", "4")]),
    (
        "I have three daughters: Ada, Bea and Cleo.",
        [("user", "child", "Ada"), ("user", "child", "Bea"), ("user", "child", "Cleo")],
    ),
    ("My best friend Omar is from Cairo.", [("user", "friend", "Omar"), ("Omar", "from", "Cairo")]),
    (
        "Dana, my coworker, is obsessed with climbing.",
        [("user", "colleague", "Dana"), ("Dana", "likes", "climbing")],
    ),
    ("My neighbor Gus has a parrot.", [("user", "knows", "Gus"), ("Gus", "pet", "parrot")]),
    # pets
    ("My dog Pepper loves the beach.", [("user", "pet", "Pepper"), ("Pepper", "likes", "beach")]),
    ("I have a corgi named Waffle.", [("user", "pet", "Waffle")]),
    ("We adopted a kitten last month.", [("user", "pet", "kitten")]),
    ("We have two cats, Salt and Pepper.", [("user", "pet", "Salt"), ("user", "pet", "Pepper")]),
    ("Noodle is our hamster.", [("user", "pet", "Noodle")]),
    # preferences
    ("I love Korean food.", [("user", "likes", "Korean food")]),
    (
        "I really enjoy gardening and birdwatching.",
        [("user", "likes", "gardening"), ("user", "likes", "birdwatching")],
    ),
    ("I adore old Hitchcock films.", [("user", "likes", "old Hitchcock films")]),
    ("I like to swim.", [("user", "likes", "swimming")]),
    ("I'm really into board games.", [("user", "likes", "board games")]),
    ("I hate traffic.", [("user", "dislikes", "traffic")]),
    ("I can't stand reality TV.", [("user", "dislikes", "reality TV")]),
    ("I don't like mushrooms.", [("user", "dislikes", "mushrooms")]),
    ("My favourite band is Radiohead.", [("user", "favourite_band", "Radiohead")]),
    (
        "My favorite foods are ramen and tacos.",
        [("user", "favourite_food", "ramen"), ("user", "favourite_food", "tacos")],
    ),
    ("Blue is my favorite color.", [("user", "favourite_colour", "Blue")]),
    # food
    ("I'm vegan.", [("user", "diet", "vegan")]),
    ("I've been pescatarian for years.", [("user", "diet", "pescatarian")]),
    ("I went vegetarian in January.", [("user", "diet", "vegetarian")]),
    ("I don't eat pork.", [("user", "eats", "pork", True)]),
    (
        "I'm allergic to peanuts and tree nuts.",
        [("user", "allergy", "peanuts"), ("user", "allergy", "tree nuts")],
    ),
    ("I have a shellfish allergy.", [("user", "allergy", "shellfish")]),
    # possessions
    ("I own a Subaru Outback.", [("user", "owns", "Subaru Outback")]),
    ("I bought a piano last week.", [("user", "owns", "piano")]),
    ("We just bought a house in Tacoma.", [("user", "owns", "house")]),
    ("I sold my boat.", [("user", "owns", "boat")]),
    # plans
    ("I'm planning to learn Italian.", [("user", "plans", "learn Italian")]),
    ("I'm going to run a half marathon in October.", [("user", "plans", "run a half marathon")]),
    ("I will start my new job next Monday.", [("user", "plans", "start their new job")]),
    ("We're moving to Denver next month.", [("user", "plans", "move to Denver")]),
    ("I'm flying to Tokyo on Friday.", [("user", "plans", "fly to Tokyo")]),
    (
        "I hope to visit my grandparents in Manila this summer.",
        [("user", "plans", "visit their grandparents in Manila")],
    ),
    # travel
    ("I visited Peru last year.", [("user", "visited", "Peru")]),
    ("Last summer we went to Croatia.", [("user", "visited", "Croatia")]),
    ("I've been to Morocco twice.", [("user", "visited", "Morocco")]),
    ("I travelled to Vietnam in 2019.", [("user", "visited", "Vietnam")]),
    # hobbies and languages
    ("I play tennis every weekend.", [("user", "hobby", "tennis")]),
    ("I play the cello.", [("user", "hobby", "playing the cello")]),
    ("My hobby is woodworking.", [("user", "hobby", "woodworking")]),
    ("I do yoga most mornings.", [("user", "hobby", "yoga")]),
    ("I go fishing with my dad.", [("user", "hobby", "fishing")]),
    (
        "In my spare time I paint and write poetry.",
        [("user", "hobby", "painting"), ("user", "hobby", "writing poetry")],
    ),
    ("I'm an avid cyclist.", [("user", "hobby", "cycling")]),
    ("I speak German and Turkish.", [("user", "speaks", "German"), ("user", "speaks", "Turkish")]),
    ("I'm fluent in Mandarin.", [("user", "speaks", "Mandarin")]),
    ("Hindi is my first language.", [("user", "speaks", "Hindi")]),
    # several facts in one message
    (
        "Hi! I'm Marta, I'm 29 and I live in Valencia.",
        [("user", "name", "Marta"), ("user", "age", "29"), ("user", "lives_in", "Valencia")],
    ),
    (
        "I work at Pfizer and my husband works at Merck.",
        [("user", "works_at", "Pfizer"), ("user's husband", "works_at", "Merck")],
    ),
    (
        "My brother Ivan lives in Kyiv. He works at a bank.",
        [("user", "sibling", "Ivan"), ("Ivan", "lives_in", "Kyiv"), ("Ivan", "works_at", "bank")],
    ),
    ("Oh, and btw, I quit my job at Oracle.", [("user", "works_at", "Oracle")]),
    ("Did I tell you I got a job at Canva?", [("user", "works_at", "Canva")]),
    ("Meera told me she moved to Pune.", [("Meera", "lives_in", "Pune")]),
    (
        # One pet, named: the unnamed "puppy" is dropped once its name is known (see test_a_named_pet_...).
        "We got a puppy last week! Her name is Clementine.",
        [("user", "pet", "Clementine")],
    ),
    ("We're planning a trip to Norway in August.", [("user", "plans", "trip to Norway")]),
    ("Finally landed a job at Etsy!", [("user", "works_at", "Etsy")]),
    ("Just bought a new laptop.", [("user", "owns", "laptop")]),
    ("It's hard work but I love being a paramedic.", [("user", "job_title", "paramedic")]),
    (
        "Tina lives in Boise and her son Cal is a welder.",
        [("Tina", "lives_in", "Boise"), ("Tina", "child", "Cal"), ("Cal", "job_title", "welder")],
    ),
    ("My brother-in-law's name is Ravi.", [("user", "relative", "Ravi")]),
    ("When I was a teenager I lived in Perth.", [("user", "lives_in", "Perth")]),
    (
        "I've got three kids and we live in Dayton.",
        [("user", "child", "kids"), ("user", "lives_in", "Dayton")],
    ),
    # Apostrophes left out, and a named subject after a comma
    ("my girls are grown. Ruby whos 24 lives in Hull", [("Ruby", "age", "24"), ("Ruby", "lives_in", "Hull")]),
    ("Otto is my nephew. hes studyin law at Leiden", [("Otto", "studies", "law")]),
    ("long week at work, Marta loves knitting", [("Marta", "likes", "knitting")]),
    ("my oldest Jonas is 30", [("user", "child", "Jonas"), ("Jonas", "age", "30")]),
    # Someone else's pet; breeds
    ("Priya's dog Biscuit ate my sandwich.", [("Priya", "pet", "Biscuit")]),
    ("My brother's cat, Mochi, is sixteen.", [("user's brother", "pet", "Mochi")]),
    ("Otis is my great dane.", [("user", "pet", "Otis")]),
    # Favourites and pastimes said loosely
    ("Paella is my favourite dish hands down, nothing comes close", [("user", "favourite_dish", "Paella")]),
    ("Sailing has always been my escape.", [("user", "hobby", "Sailing")]),
    ("I love me some bluegrass", [("user", "likes", "bluegrass")]),
    ("My nephew just started water polo.", [("user's nephew", "hobby", "water polo")]),
    # A trade ends one possession and begins another; a partner named gives the status too
    ("Swapped my Corolla for a Mazda CX-5 last month.",
     [("user", "owns", "Corolla"), ("user", "owns", "Mazda CX-5")]),
    ("I married Imke in 2019.", [("user", "spouse", "Imke"), ("user", "relationship_status", "married")]),
    ("Laila's sister cooks a lamb tagine that is my favourite dish",
     [("user", "favourite_dish", "lamb tagine")]),
    ("me and my ex Jonas were married nine years", [("user", "spouse", "Jonas")]),
    ("hi there my name is Greta Lind", [("user", "name", "Greta Lind")]),
    ("allergic to latex, it turns out", [("user", "allergy", "latex")]),
    ("I've given up squash, my knees can't take it", [("user", "hobby", "squash")]),
    ("Pip came to the vet with us, she's a whippet", [("user", "pet", "Pip")]),
    ("We walked Mango, our spaniel, along the canal.", [("user", "pet", "Mango")]),
    ("my abuela Rosa still lives in Cusco", [("user", "relative", "Rosa"), ("Rosa", "lives_in", "Cusco")]),
    ("so I am Ingrid Solberg, but please call me Inka", [("user", "name", "Ingrid Solberg"),
                                                        ("user", "nickname", "Inka")]),
    ("my birthday was on Sunday, May 4, so I'm 41 now",
     [("user", "birthday", "May 4"), ("user", "age", "41")]),
    ("we finally got a car, a used Skoda Octavia", [("user", "owns", "Skoda Octavia")]),
    ("I speak Dutch and German more or less", [("user", "speaks", "German")]),
    # texting: a particle at a clause's end belongs to no fact
    ("omg hi, im nadia btw. living in leeds atm, sharing a flat w 2 mates",
     [("user", "name", "Nadia"), ("user", "lives_in", "Leeds")]),
    ("i work at tesco rn", [("user", "works_at", "Tesco")]),
]


@pytest.mark.parametrize(("text", "expected"), POSITIVE, ids=[c[0][:40] for c in POSITIVE])
def test_extracts_expected_triples(text: str, expected: list[tuple]) -> None:
    got = triples(extract(text))
    for triple in expected:
        assert _key(*triple) in got, f"{triple} missing from {sorted(got)}"


NEGATIVE = [
    "My first day at Disneyland was magical.",
    "Do you know where I live?",
    "Where should I move next year?",
    "Can you recommend a good restaurant in Lisbon?",
    "If I lived in Paris, I would eat croissants every day.",
    "I wish I had a dog.",
    "I might move to Berlin.",
    "I should probably quit my job.",
    "Maybe we'll get a cat someday.",
    "What's the capital of Australia?",
    "Tell me a joke about penguins.",
    "Thanks, that's really helpful!",
    "lol same",
    "Good morning!",
    "That sounds amazing.",
    "I'm not sure whether I want to move.",
    "I wonder if I should learn Spanish.",
    "Remind me to call my mom tomorrow.",
    "She lives in Rome.",
    "My friend thinks I should move to Austin.",
    "Is it going to rain today?",
    "I love you!",
    "I'm so tired today.",
    "It was a long day at work.",
    "Could you help me plan a trip to Japan?",
    "Unless I get the job, I'll stay in Ohio.",
    "Have you ever been to Portugal?",
    "I work hard.",
    "Chris Adjei is a terrible singer btw",  # a judgement, not a job
    "im tired btw",
]


@pytest.mark.parametrize("text", NEGATIVE)
def test_states_no_fact(text: str) -> None:
    assert extract(text) == [], [(f.subject, f.predicate, f.object) for f in extract(text)]


# ------------------------------------------------------------------------------ subjects


def test_speaker_name_is_the_subject_of_first_person_statements() -> None:
    facts = extract("I teach at Oakwood Elementary and I live in Tacoma.", speaker="Maya")
    assert ("maya", "lives_in", "tacoma", False) in triples(facts)
    assert ("maya", "works_at", "oakwood elementary", False) in triples(facts)


def test_reported_speech_is_about_the_reporter() -> None:
    facts = extract("Jonas said he works at Siemens now.")
    assert triples(facts) >= {("jonas", "works_at", "siemens", False)}
    assert all(f.subject != "user" for f in facts)


def test_third_person_statement_is_not_attributed_to_the_speaker() -> None:
    facts = extract("My cousin Ali is a dentist in Dubai.")
    assert ("ali", "job_title", "dentist", False) in triples(facts)
    assert not any(f.subject == "user" and f.predicate == "job_title" for f in facts)


def test_assistant_and_system_messages_yield_nothing() -> None:
    assert extract("I live in the cloud and I love helping.", speaker="assistant", role="assistant") == []
    assert extract("You are a helpful assistant.", speaker="system", role="system") == []


def test_a_named_person_in_the_assistant_role_still_counts() -> None:
    facts = extract("I moved to Lagos last year.", speaker="Caroline", role="assistant")
    assert ("caroline", "lives_in", "lagos", False) in triples(facts)


# ------------------------------------------------------------------------------ polarity and time


def test_no_longer_ends_the_fact_instead_of_negating_it() -> None:
    fact = find(extract("I don't live in Boston anymore."), "lives_in", "Boston")
    assert not fact.negated
    assert fact.valid_to == NOW


def test_used_to_ends_before_the_message() -> None:
    fact = find(extract("I used to work at Intel."), "works_at", "Intel")
    assert fact.valid_to is not None and fact.valid_to <= NOW
    assert "used to" in fact.text


def test_a_past_marriage_is_over_and_a_wedding_date_is_not() -> None:
    over = find(extract("Anders and I were married for twenty years."), "spouse", "Anders")
    assert over.valid_to is not None and over.valid_to <= NOW
    wedding = find(extract("We were married in May."), "relationship_status", "married")
    assert wedding.valid_to is None


def test_a_given_up_pastime_has_ended() -> None:
    fact = find(extract("I gave up rugby after my injury."), "hobby", "rugby")
    assert fact.valid_to is not None and fact.valid_to <= NOW


def test_plain_negation_is_kept_explicit() -> None:
    fact = find(extract("I don't eat meat."), "eats", "meat")
    assert fact.negated and fact.valid_to is None
    assert "does not" in fact.text


def test_never_is_a_negative_not_an_ending() -> None:
    fact = find(extract("I've never been to Brazil."), "visited", "Brazil")
    assert fact.negated and fact.valid_to is None


def test_move_dates_resolve_against_the_message_time() -> None:
    fact = find(extract("I moved to Austin last week."), "lives_in", "Austin")
    assert fact.valid_from == datetime(2024, 6, 3, tzinfo=UTC)  # Monday of the previous week
    assert fact.valid_to is None


def test_duration_sets_the_start() -> None:
    fact = find(extract("I've lived in Oslo for five years."), "lives_in", "Oslo")
    assert fact.valid_from == datetime(2019, 6, 15, tzinfo=UTC)


def test_since_month_is_the_most_recent_such_month() -> None:
    fact = find(extract("I've worked at Etsy since March."), "works_at", "Etsy")
    assert fact.valid_from == datetime(2024, 3, 1, tzinfo=UTC)


def test_range_gives_both_ends() -> None:
    fact = find(extract("I lived in Prague from 2015 to 2018."), "lives_in", "Prague")
    assert fact.valid_from == datetime(2015, 1, 1, tzinfo=UTC)
    assert fact.valid_to == datetime(2019, 1, 1, tzinfo=UTC)


def test_leaving_a_job_dates_the_end() -> None:
    fact = find(extract("I left Accenture in 2021."), "works_at", "Accenture")
    assert fact.valid_to == datetime(2021, 1, 1, tzinfo=UTC)


def test_a_plan_is_dated_in_the_future() -> None:
    fact = find(extract("I'm going to Lisbon in April."), "plans")
    assert fact.valid_from == datetime(2025, 4, 1, tzinfo=UTC)


def test_vague_time_leaves_the_date_unknown() -> None:
    fact = find(extract("I recently moved to Leeds."), "lives_in", "Leeds")
    assert fact.valid_from is None and fact.valid_to is None


# ------------------------------------------------------------------------------ entities, wording, confidence


def test_entities_are_typed() -> None:
    facts = extract("My sister Lena works at Microsoft in Redmond.")
    entities = {e for f in facts for e in f.entities}
    assert ("Lena", "person") in entities
    assert ("Microsoft", "organization") in entities


def test_pet_and_place_entities() -> None:
    facts = extract("My dog Rex and I moved to Boulder.")
    entities = {e for f in facts for e in f.entities}
    assert ("Rex", "pet") in entities and ("Boulder", "place") in entities


def test_texts_are_standalone_third_person_sentences() -> None:
    facts = extract("I live in Portland and my favourite food is pho.")
    assert find(facts, "lives_in").text == "user lives in Portland"
    assert find(facts, "favourite_food").text == "user's favourite food is pho"
    for fact in facts:
        assert " I " not in f" {fact.text} " and " my " not in f" {fact.text} "


def test_specific_patterns_are_more_confident_than_loose_ones() -> None:
    specific = find(extract("My name is Ruth."), "name").confidence
    loose = find(extract("I'm thinking about moving to Spain."), "plans").confidence
    assert specific > 0.8 > 0.6 > loose


def test_every_fact_uses_a_known_predicate_and_names_its_rule() -> None:
    for text, _ in POSITIVE:
        for fact in extract(text):
            assert predicates.is_known(fact.predicate), fact
            assert fact.rule, fact
            assert 0 < fact.confidence <= 1


def test_rule_extractor_satisfies_the_interface() -> None:
    extractor: Extractor = RuleExtractor()
    assert isinstance(extractor, Extractor)
    assert extractor.extract_batch([Message("I live in Oslo.", NOW)]).facts[0] != []


def test_objects_are_trimmed_of_time_and_filler() -> None:
    facts = extract("I moved to Denver last week for a new job at Palantir.")
    assert find(facts, "lives_in").object == "Denver"
    assert find(facts, "works_at").object == "Palantir"


# ------------------------------------------------------------------------------ predicate vocabulary


def test_single_valued_predicates_supersede() -> None:
    for name in ("lives_in", "works_at", "job_title", "spouse", "partner", "age", "birthday", "name", "diet"):
        assert predicates.is_single_valued(name), name
    for name in ("likes", "sibling", "child", "pet", "visited", "speaks", "allergy", "plans", "owns"):
        assert not predicates.is_single_valued(name), name
    assert not predicates.is_single_valued("not_a_predicate")  # unknown: never supersede


def test_favourite_family_is_normalized_and_single_valued() -> None:
    assert predicates.favourite_predicate("favorite TV shows") == "favourite_tv_show"
    assert predicates.favourite_predicate("colors") == "favourite_colour"
    assert predicates.canonical("favorite_movie") == "favourite_movie"
    assert predicates.is_single_valued("favourite_food")
    assert predicates.phrase("favourite_food") == "has as favourite food"


def test_aliases_and_phrases() -> None:
    assert predicates.canonical("goes_by") == "nickname"
    assert predicates.canonical("travelled_to") == "visited"
    assert predicates.canonical("has_pet") == "pet"
    assert predicates.phrase("lives_in") == "lives in"
    assert predicates.get("parent").inverse == "child"
    assert predicates.get("sibling").symmetric


def test_render_wording() -> None:
    assert predicates.render("user", "lives_in", "Portland") == "user lives in Portland"
    assert predicates.render("user", "lives_in", "Boston", ended=True) == "user used to live in Boston"
    assert predicates.render("user", "eats", "meat", negated=True) == "user does not eat meat"
    assert predicates.render("Maya", "job_title", "engineer") == "Maya is an engineer"
    assert predicates.render("user", "favourite_film", "Alien") == "user's favourite film is Alien"


# ------------------------------------------------------------------------------ held-out measurement

HELDOUT = Path(__file__).parents[2] / "data" / "extraction_heldout.jsonl"


def _normal(text: str) -> str:
    text = text.lower().strip().strip(".")
    for article in ("a ", "an ", "the "):
        if text.startswith(article):
            text = text[len(article) :]
    return text


def score_heldout(path: Path = HELDOUT) -> tuple[float, float, list[str]]:
    """Micro precision and recall of (subject, predicate, object, negated) over the held-out file."""
    found = correct = expected_total = 0
    misses: list[str] = []
    for line in path.read_text().splitlines():
        case = json.loads(line)
        facts = extract(case["text"], speaker=case.get("speaker", "user"))
        gold = []
        for item in case["facts"]:
            options = item["o"] if isinstance(item["o"], list) else [item["o"]]
            gold.append((item["s"].lower(), item["p"], {_normal(o) for o in options}, item.get("neg", False)))
        expected_total += len(gold)
        matched: set[int] = set()
        for fact in facts:
            found += 1
            hit = next(
                (
                    i
                    for i, (s, p, objects, neg) in enumerate(gold)
                    if i not in matched
                    and s == fact.subject.lower()
                    and p == fact.predicate
                    and _normal(fact.object) in objects
                    and neg == fact.negated
                ),
                None,
            )
            if hit is None:
                misses.append(f"extra: {case['text']!r} -> {(fact.subject, fact.predicate, fact.object)}")
            else:
                matched.add(hit)
                correct += 1
        for i, (s, p, objects, _) in enumerate(gold):
            if i not in matched:
                misses.append(f"missed: {case['text']!r} -> {(s, p, sorted(objects))}")
    precision = correct / found if found else 1.0
    recall = correct / expected_total if expected_total else 1.0
    return precision, recall, misses


# The held-out file was written before the rules and scored once, after they were finished, without
# tuning to it: precision 0.964 (54 of 56 facts right), recall 0.931 (54 of 58 gold facts found).
# The floors are those numbers minus a margin, so the test catches regressions, not noise.
PRECISION_FLOOR = 0.90
RECALL_FLOOR = 0.88


def test_heldout_precision_and_recall() -> None:
    """Held-out score stays near its one measurement: precision >= 0.90 (0.964), recall >= 0.88 (0.931)."""
    precision, recall, misses = score_heldout()
    assert precision >= PRECISION_FLOOR and recall >= RECALL_FLOOR, "\n".join(misses)


if __name__ == "__main__":
    p, r, missed = score_heldout()
    print(f"held-out precision={p:.3f} recall={r:.3f}")
    print("\n".join(missed))


def test_normalize_skips_only_replacements_that_cannot_apply() -> None:
    """The literal gates in normalize() change nothing: same text as running every replacement."""
    from dualmem_core.writer.extractors.rules import preprocess as T

    def every_replacement(s: str) -> str:
        s = s.replace("\u00a0", " ")
        for pattern, replacement in T._REPLACEMENTS:
            s = pattern.sub(replacement, s)
        s = T._NOUN_IS.sub(lambda m: m[0] if m[1].lower() in T._KEEP_POSSESSIVE else f"{m[1]} is ", s)
        return T._BLANKS.sub(" ", s).strip()

    rng = random.Random(9)
    words = ("I i im Im I'm i've ive I'll can't cant cannot CAN'T won't shan't ain't didn't DONT dont "
             "wasnt she's he's it's that's Tom's master's name's let's we're they've you'll I'd he'd "
             "gonna Wanna gotta kinda can not stand been lived moved just really the a in at ` ’ “ ” "
             "hello world there 's 'd 're").split()
    for _ in range(4000):
        s = " ".join(rng.choice(words) for _ in range(rng.randint(1, 8)))
        s = s.upper() if rng.random() < 0.1 else s
        assert T.normalize(s) == every_replacement(s), s


# ------------------------------------------------------------------ constructions beyond the tune fixture
# Each case is (sentence, expected (subject, predicate, object[, negated]) triples, ended objects): the
# triples must all be extracted, and the facts whose objects are listed last must have ended.
CARRY_OVER: list[tuple[str, list[tuple], list[str]]] = [
    # the same subject and copula across commas and "and"
    (
        "I'm 52, from Galway, and I love sea swimming",
        [("user", "age", "52"), ("user", "from", "Galway")],
        [],
    ),
    ("i'm a welder, married to Sian", [("user", "job_title", "welder"), ("user", "spouse", "Sian")], []),
    ("I'm vegan and allergic to sesame", [("user", "diet", "vegan"), ("user", "allergy", "sesame")], []),
    ("Raised in Cork, living in Leeds now", [("user", "from", "Cork"), ("user", "lives_in", "Leeds")], []),
    (
        "Left Perth in 2019, now in Darwin working for Santos",
        [("user", "lives_in", "Darwin"), ("user", "works_at", "Santos"), ("user", "lives_in", "Perth")],
        ["Perth"],
    ),
    # relation words of British, Irish and Australian English
    ("My best mate Baz is a sparky", [("user", "friend", "Baz"), ("Baz", "job_title", "sparky")], []),
    ("my nan's 88", [("user's nan", "age", "88")], []),
    ("me and the missus live in Tralee", [("user", "lives_in", "Tralee")], []),
    ("My other half is called Dee", [("user", "partner", "Dee")], []),
    (
        "My ex-wife Carol lives in Hull",
        [("user", "spouse", "Carol"), ("Carol", "lives_in", "Hull")],
        ["Carol"],
    ),
    ("My boss Nadia is from Quebec", [("user", "colleague", "Nadia"), ("Nadia", "from", "Quebec")], []),
    ("Our kids are Ada and Ben", [("user", "child", "Ada"), ("user", "child", "Ben")], []),
    ("I met Joe at uni. He's my husband now", [], []),
    # work
    ("I joined the Civil Service in 2015", [("user", "works_at", "Civil Service")], []),
    (
        "just joined Xero as a support analyst",
        [("user", "works_at", "Xero"), ("user", "job_title", "support analyst")],
        [],
    ),
    ("I've been at Atlassian for six years", [("user", "works_at", "Atlassian")], []),
    (
        "I used to work at Aldi but now I'm at Lidl",
        [("user", "works_at", "Lidl"), ("user", "works_at", "Aldi")],
        ["Aldi"],
    ),
    ("My flatmate Ade is a junior doctor", [("Ade", "job_title", "junior doctor")], []),
    ("I'm a bricklayer from Kent", [("user", "job_title", "bricklayer"), ("user", "from", "Kent")], []),
    ("yeah I'm a postie mate", [("user", "job_title", "postie")], []),
    ("I'm an Aussie living in Dublin", [("user", "lives_in", "Dublin")], []),
    ("I'm in my final year at Queen's", [("user", "studies_at", "Queen's")], []),
    ("I'm freelancing these days", [("user", "job_title", "freelancing")], []),
    # home
    ("We're out in Geelong these days", [("user", "lives_in", "Geelong")], []),
    (
        "we moved down from Leeds last year, we're in Bath now",
        [("user", "lives_in", "Bath"), ("user", "lives_in", "Leeds")],
        ["Leeds"],
    ),
    ("I'm in Regina, moved here in May", [("user", "lives_in", "Regina")], []),
    ("my brother's in Winnipeg", [("user's brother", "lives_in", "Winnipeg")], []),
    ("We've been in Hamilton about three years", [("user", "lives_in", "Hamilton")], []),
    # tastes, habits, diet
    ("I swim most mornings", [("user", "hobby", "swimming")], []),
    ("I support Hibs", [("user", "likes", "Hibs")], []),
    ("Massive fan of the Blue Jays", [("user", "likes", "Blue Jays")], []),
    ("I prefer cats to dogs", [("user", "likes", "cats")], []),
    ("I've taken up archery", [("user", "hobby", "archery")], []),
    ("I play padel with my sister on Fridays", [("user", "hobby", "padel")], []),
    ("I've got a shellfish allergy", [("user", "allergy", "shellfish")], []),
    ("I don't drink", [("user", "eats", "alcohol", True)], []),
    ("I gave up being vegan in March", [("user", "diet", "vegan")], ["vegan"]),
    ("been a veggie for years", [("user", "diet", "veggie")], []),
    ("she's obsessed with horses", [], []),
    # people and pets
    ("I'm a widow", [("user", "relationship_status", "widowed")], []),
    ("I'm married with three kids", [("user", "relationship_status", "married")], []),
    ("I've been with my boyfriend for two years", [("user", "relationship_status", "in a relationship")], []),
    ("I married my childhood sweetheart, Eoin", [("user", "spouse", "Eoin")], []),
    ("I'm a 38 year old dad", [("user", "age", "38")], []),
    ("My name's Ciarán but everyone calls me Kiki", [("user", "nickname", "Kiki")], []),
    ("my westie Hamish hates the rain", [("user", "pet", "Hamish")], []),
    ("Our cat Tilly died in January", [("user", "pet", "Tilly")], ["Tilly"]),
    ("We adopted a kitten yesterday. She's called Mabel", [("user", "pet", "Mabel")], []),
    ("My nephew Kai is 9 and obsessed with Lego", [("Kai", "age", "9"), ("Kai", "likes", "Lego")], []),
    ("my wife died in 2019", [("user", "relationship_status", "widowed")], []),
    # promotions, titles and workplaces
    ("I got promoted to team lead in March", [("user", "job_title", "team lead")], []),
    ("I've been made deputy head", [("user", "job_title", "deputy head")], []),
    ("I started a new role as head of sales", [("user", "job_title", "head of sales")], []),
    ("I'm head of IT at Arup", [("user", "job_title", "head of IT"), ("user", "works_at", "Arup")], []),
    ("Nuno Alves, our head chef, is from Braga", [("Nuno Alves", "job_title", "head chef")], []),
    ("I work for myself as a joiner", [("user", "job_title", "joiner")], []),
    ("I lecture at NUIG", [("user", "works_at", "NUIG"), ("user", "job_title", "lecturer")], []),
    ("I'm a stay at home dad", [("user", "job_title", "stay-at-home dad")], []),
    # food, moves, homes
    ("I eat chicken but not red meat", [("user", "eats", "chicken"), ("user", "eats", "red meat", True)], []),
    (
        "We moved to Ottawa in 2018 and then to Kingston in 2022",
        [("user", "lives_in", "Ottawa"), ("user", "lives_in", "Kingston")],
        [],
    ),
    ("we rent a flat in Partick", [("user", "lives_in", "Partick")], []),
    ("I live with my sister and her dog in Fife", [("user", "lives_in", "Fife")], []),
    ("I'm after moving to Sligo", [("user", "lives_in", "Sligo")], []),
    ("me mam is from Athlone", [("user's mam", "from", "Athlone")], []),
    ("I go trail running most weekends", [("user", "hobby", "trail running")], []),
    # introductions as lists
    (
        "I'm Inês, 31, nurse in Coimbra",
        [("user", "name", "Inês"), ("user", "age", "31"), ("user", "job_title", "nurse")],
        [],
    ),
    ("Dermot here, 45, originally from Cavan", [("user", "age", "45"), ("user", "from", "Cavan")], []),
    ("Bené and I have been together six years", [("user", "partner", "Bené")], []),
    ("We have a pub in Ennis called The Anvil", [("user", "owns", "Anvil")], []),
    # a statement with a question tacked on, and chat that drops "I am"
    ("I just moved to Halifax, any tips?", [("user", "lives_in", "Halifax")], []),
    ("My brother lives in Oslo, is it expensive there?", [("user's brother", "lives_in", "Oslo")], []),
    (
        "Got promoted at work. Still at Wise, still in Tallinn",
        [("user", "works_at", "Wise"), ("user", "lives_in", "Tallinn")],
        [],
    ),
    ("three weeks in at Ocado and loving it", [("user", "works_at", "Ocado")], []),
    ("I need to sell my Yamaha before the move", [("user", "owns", "Yamaha")], []),
    ("still very happily at Arup, work is busy", [("user", "works_at", "Arup")], []),
    ("I drive for Bolt", [("user", "works_at", "Bolt"), ("user", "job_title", "driver")], []),
    ("I'm doing an apprenticeship with Rolls-Royce", [("user", "works_at", "Rolls-Royce")], []),
    ("I'm a Canucks fan through and through", [("user", "likes", "Canucks")], []),
    ("my brother's a copper in Leeds", [("user's brother", "job_title", "copper")], []),
    ("I quit coffee and switched to green tea", [("user", "likes", "green tea")], []),
    ("I took a job at Arup in Leeds, site engineer", [("user", "job_title", "site engineer")], []),
    # negatives and endings kept explicit
    ("I don't have kids", [("user", "child", "children", True)], []),
    ("I'm an only child", [("user", "sibling", "siblings", True)], []),
    ("I'm no longer vegetarian", [("user", "diet", "vegetarian")], ["vegetarian"]),
    ("Back in college I was a lifeguard", [("user", "job_title", "lifeguard")], ["lifeguard"]),
    ("we're not married, just engaged", [("user", "relationship_status", "engaged")], []),
    ("Our dog's called Bran", [("user", "pet", "Bran")], []),
    ("Ciara's my sister", [("user", "sibling", "Ciara")], []),
    ("my favourite album of all time is Blue", [("user", "favourite_album", "Blue")], []),
    ("I'm mad into camogie", [("user", "likes", "camogie")], []),
    ("I'm a bit of a tea snob", [("user", "likes", "tea")], []),
    ("can't get enough of Wet Leg", [("user", "likes", "Wet Leg")], []),
    ("I teach year 4", [("user", "job_title", "teacher")], []),
    ("I'm contracting for BP", [("user", "works_at", "BP")], []),
    ("I'm on maternity leave from Aviva", [("user", "works_at", "Aviva")], []),
    # pastimes kept up
    ("I've been getting into bouldering", [("user", "hobby", "bouldering")], []),
    ("started doing pilates in March", [("user", "hobby", "pilates")], []),
    ("been swimming a lot lately", [("user", "hobby", "swimming")], []),
    ("I sing in a choir", [("user", "hobby", "singing")], []),
    ("I go to the gym most days", [("user", "hobby", "going to the gym")], []),
    ("I'm seeing someone, he's called Dev", [("user", "relationship_status", "in a relationship")], []),
    ("I'm a single mum of two", [("user", "relationship_status", "single")], []),
    ("Just moved house, we're in Chiswick now", [("user", "lives_in", "Chiswick")], []),
    ("we bought a new car, a Kia", [("user", "owns", "Kia")], []),
    ("Met my friend Ola for coffee, she's just moved to Derby", [("Ola", "lives_in", "Derby")], []),
    ("My aunt lives in Perth, she's a nurse there", [("user's aunt", "job_title", "nurse")], []),
    ("we're Ottawa based", [("user", "lives_in", "Ottawa")], []),
    ("born and raised in Limerick", [("user", "from", "Limerick")], []),
    ("home is Victoria these days", [("user", "lives_in", "Victoria")], []),
    ("spent three years in Seoul", [("user", "lives_in", "Seoul")], ["Seoul"]),
    ("hate mornings, love coffee", [("user", "dislikes", "mornings"), ("user", "likes", "coffee")], []),
    ("I'm doing keto", [("user", "diet", "keto")], []),
    ("I've cut out sugar", [("user", "eats", "sugar", True)], []),
    ("I eat fish again now", [("user", "eats", "fish")], []),
    ("so I guess I eat pork now, cancel everything I ever told you", [("user", "eats", "pork")], []),
    # chat drops "I'm": the complement is the speaker's
    ("single again lol", [("user", "relationship_status", "single")], []),
    ("vegan now", [("user", "diet", "vegan")], []),
    ("back in Toronto since the 10th!", [("user", "lives_in", "Toronto")], []),
    ("29 years old and still chasing invoices", [("user", "age", "29")], []),
    ("ok so. in Leeds since March, new flat", [("user", "lives_in", "Leeds")], []),
    # the person a message names is whom the speaker said they see, before or after
    ("so, news, I'm seeing someone. his name's Tony, he's a skipper", [("user", "partner", "Tony")], []),
    ("I met a guy!! his name is Owen. we are dating since two weeks", [("user", "partner", "Owen")], []),
]


@pytest.mark.parametrize(("text", "expected", "ended"), CARRY_OVER, ids=[c[0][:40] for c in CARRY_OVER])
def test_carries_over_to_new_wording(text: str, expected: list[tuple], ended: list[str]) -> None:
    facts = extract(text)
    got = triples(facts)
    for triple in expected:
        assert _key(*triple) in got, f"{triple} missing from {sorted(got)}"
    for obj in ended:
        assert find(facts, next(t[1] for t in expected if t[2] == obj), obj).valid_to is not None, obj


def test_a_named_pet_is_not_also_an_unnamed_one() -> None:
    """'We adopted a dog. His name is Pickles': one pet; an unnamed dog beside a named cat stays."""
    assert ("user", "pet", "puppy", False) not in triples(extract("We got a puppy! Her name is Clementine."))
    got = triples(extract("I have a dog and a cat called Tom"))
    assert {("user", "pet", "dog", False), ("user", "pet", "tom", False)} <= got


CARRY_OVER_NOTHING = [
    "I eat lunch now then walk the dog",  # a meal, not a food taken up
    "Greetings from Cairns!",  # a greeting, not where the speaker is from
    "honestly from Newark to Boston to Providence",  # a route
    "4-1 against a strong player",  # a score, not an age
    "My friend reckons I should move to Leeds",
    "I'm with Sarah after work",
    "I'm at Tesco, want anything?",
    "I run a small bakery",  # a business, not a habit of running
    "I don't eat much red meat",
    "I'm in Rome for the weekend",
    "my sister is in Chicago this week",
    "we got here in March",
    "I'm no longer with Sam",
    "Imagine if I lived in Paris",
    "we left the party early, now in Soho having drinks",
    "I row with my brother all the time",
    "I'm a medical student at Queen's",  # a school, not an employer
    "I'm in hospital this week",
    "Should I move to Berlin, what do you think?",
    "my friend thinks I should move to Paris, what do you reckon?",
    "Still in shock tbh",
    "My mum is in Tesco",
    "I teach my kids to swim",
    "I've been running late all week",
    "I've been painting the house",
    "my dad is in St Vincent's Hospital",
]


def test_ages_of_several_children_are_not_one_age() -> None:
    assert not [f for f in extract("My kids are 4 and 7") if f.predicate == "age"]


def test_an_age_said_with_a_future_date_is_not_yet_true() -> None:
    """'my mam is 80 next week': no age 80 now; 'I'll be 40 next month' still reads as the coming age."""
    assert not [f for f in extract("my mam is 80 next week") if f.predicate == "age"]
    assert find(extract("I'll be 40 next month"), "age", "40")


@pytest.mark.parametrize("text", CARRY_OVER_NOTHING)
def test_carry_over_does_not_invent(text: str) -> None:
    judged = [f for f in extract(text) if f.predicate not in ("plans", "event")]
    invented = [f for f in judged if f.predicate in ("works_at", "lives_in", "hobby", "eats")]
    assert not invented, [(f.subject, f.predicate, f.object) for f in invented]


def test_a_relation_named_before_its_comma_is_not_named_again_after_it() -> None:
    got = triples(extract("back from New Zealand with Tony, my fella, South Island, Queenstown and Milford"))
    assert ("tony", "partner", "user", False) in got or ("user", "partner", "tony", False) in got, got
    assert not [t for t in got if "south island" in t], got
    sister = triples(extract("my sister, Lena, lives in Oslo"))
    assert ("lena", "sibling", "user", False) in sister or ("user", "sibling", "lena", False) in sister


def test_a_name_is_the_speakers_partner_only_when_the_speaker_sees_someone() -> None:
    sister = triples(extract("my sister is dating someone, his name is Karl"))
    assert ("user", "partner", "karl", False) not in sister
    colleague = extract("met my new colleague today, her name is Jess. she's lovely")
    assert not {f.predicate for f in colleague} & {"partner", "spouse"}
    got = triples(extract("I'm seeing someone. her name is Jess. my brother Tom is dating a guy called Max"))
    assert ("user", "partner", "jess", False) in got and ("user", "partner", "max", False) not in got


def test_breaking_up_with_the_one_named_beside_the_speaker_ends_them():
    facts = extract("Nadia and I broke up on Tuesday.")
    ended = find(facts, "partner", "Nadia")
    assert ended.valid_to is not None and ended.valid_to.date().isoformat() == "2024-06-11"
    assert not [f for f in extract("Jess and I went hiking on Tuesday.") if f.predicate == "partner"]


def test_time_cutting_keeps_the_single_rewrite_semantics() -> None:
    """``_without_times`` skips its blank and dangling-word rewrites when they would change nothing;
    the answer must stay the one the unconditional rewrites give."""
    from dualmem_core.writer.extractors.rules import dates as dates_module
    from dualmem_core.writer.extractors.rules import verb_reader as vr

    def reference(vp: str, now: datetime, prefer_future: bool | None) -> str:
        out = vp
        for e in sorted(dates_module.find_time_expressions(vp, now, prefer_future), key=lambda e: -e.start):
            out = out[: e.start] + out[e.end :]
        return vr._DANGLING.sub("", vr._SPACES.sub(" ", out).strip(" ,"))

    now = datetime(2024, 5, 1, tzinfo=UTC)
    for vp in ("go swimming every Sunday", "moved to Lima in 2019", "run  every\tday", "lived there\nuntil",
               "work on", "cook each", "work\u2003 at Acme last year ,", " , ", "", "visit  Paris this\n"):
        for prefer_future in (None, False, True):
            assert vr._without_times(vp, now, prefer_future) == reference(vp, now, prefer_future), vp


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I started a forró class on Fridays.", ("user", "hobby", "forró")),
        ("I go to salsa classes every week.", ("user", "hobby", "salsa")),
        ("I joined a running club.", ("user", "hobby", "running")),
        ("I joined a book club.", ("user", "hobby", "book club")),
        ("I had a round of golf with Eck this morning.", ("user", "hobby", "golf")),
        ("my birthday was on August 14, so now I am 25.", ("user", "age", "25")),
        ("I told her I am from Leeds, and back there I worked at Asda.", ("user", "works_at", "Asda")),
        ("I am doing my master in urban planning at the University of Toronto.",
         ("user", "studies_at", "University of Toronto")),
    ],
)
def test_classes_clubs_rounds_reported_self_speech_and_clauses_after_an_adverb(text, expected):
    assert _key(*expected) in triples(extract(text))


@pytest.mark.parametrize(
    ("text", "not_expected"),
    [
        ("only my mum calls me Jonathan", ("user", "nickname", "Jonathan")),
        ("I moved to Leeds! new roommate, Hannah, she is Canadian and works as a nurse.",
         ("user", "job_title", "nurse")),
        ("I moved to Leeds. she is lovely and works as a nurse.", ("user", "job_title", "nurse")),
        ("I went to a cooking class last night.", ("user", "hobby", "cooking")),
        ("I joined the design team at Acme.", ("user", "hobby", "design")),
    ],
)
def test_what_is_not_the_speakers_own(text, not_expected):
    assert _key(*not_expected) not in triples(extract(text))


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I'm a site superintendent for Gulf Coast Builders.", ("user", "job_title", "site superintendent")),
        ("I'm a fundraising lead at Oxfam.", ("user", "works_at", "Oxfam")),
        ("i speak spanish good enough.", ("user", "speaks", "Spanish")),
        ("im livin in Austin now.", ("user", "lives_in", "Austin")),
        ("I started my own company, Rollins Remodeling.", ("user", "works_at", "Rollins Remodeling")),
    ],
)
def test_casual_wording_unlisted_job_titles_and_own_companies(text, expected):
    assert _key(*expected) in triples(extract(text))


def test_unlisted_nouns_are_no_job_without_an_employer_and_a_company_name_is_no_hobby():
    assert not [f for f in extract("I'm a member at Soho House.") if f.predicate == "job_title"]
    assert not [f for f in extract("I started my own company, Rollins Remodeling.") if f.predicate == "hobby"]
    assert _key("user", "lives_in", "cabin in the woods") not in triples(extract("I begin at the cabin."))


def test_an_object_leaves_out_here_and_there_and_a_clause_after_it() -> None:
    """ "here" and "there" point at the place being talked of, not part of what is liked; a
    clause after a comma ("it is so dark") is no item of a list."""
    got = triples(extract("I hate the winter here, it is so dark"))
    assert got == {("user", "dislikes", "winter", False)}
    assert ("user", "likes", "food", False) in triples(extract("I love the food there"))
    assert {("user", "likes", x, False) for x in ("hiking", "biking", "climbing")} <= triples(
        extract("I love hiking, biking and climbing"))
