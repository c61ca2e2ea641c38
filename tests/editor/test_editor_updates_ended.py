"""A later message that says a fact ended ends that fact, when the message that told it tells
other things too (so it stays current): the change said of the fact's whole value, and a fact
of the later message about the same subject, or a short form of its name that the first
message wrote beside it. Through the real Writer and Editor on both stores."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

from dualmem_core import Editor, Writer

T = datetime(2026, 3, 1, 9, tzinfo=UTC)


def _told(store, messages: list[str]) -> tuple[Writer, str]:
    user = f"ended-{uuid.uuid4().hex[:10]}"
    w = Writer(store)
    for n, text in enumerate(messages):
        w.remember(text, user_id=user, session_id=f"s{n}", at=T + timedelta(days=30 * n), source_id=f"m{n}")
    Editor(store).run(user)
    return w, user


def _status(store, user: str, subject: str, predicate: str) -> dict[str, str]:
    """object -> status of the facts (subject, predicate, object) believed now."""
    return {v.object: v.status for v in store.export_graph(user).versions
            if v.tx_to.year == 9999 and v.subject == subject and v.predicate == predicate}


NAMED = ("my husband Roberto (Rob) says the garage is a mess, he's an engineer at Halvorsen Marine, "
         "he likes order")
LEAVING = "big news: Rob is leaving Halvorsen Marine! from next week he'll do the accounts for my studio"


def test_a_short_name_written_beside_the_full_one_ends_that_persons_job(store):
    w, user = _told(store, [NAMED, LEAVING])
    assert _status(store, user, "Roberto", "works_at") == {"Halvorsen Marine": "superseded"}
    assert _status(store, user, "Roberto", "job_title") == {"engineer": "active"}  # not said of it
    assert _status(store, user, "user", "spouse") == {"Roberto": "active"}
    assert Editor(store).run(user).operations == 0  # a fixpoint


def test_the_fact_ends_when_the_next_thing_told_of_its_subject_begins(store):
    """"leaving Halvorsen Marine! from next week he'll do the accounts": the job ends next week,
    when the accounts begin, not on the day it was said."""
    w, user = _told(store, [NAMED, LEAVING])
    versions = [v for v in store.export_graph(user).versions if v.tx_to.year == 9999]
    job = next(v for v in versions if v.object == "Halvorsen Marine")
    said = T + timedelta(days=30)
    begins = [v.valid_from for v in versions if v.subject in ("Rob", "Roberto") and v.valid_from > said]
    assert begins and job.valid_to == min(begins) and job.valid_to - said < timedelta(days=14)


def test_a_short_name_never_written_beside_it_ends_nothing(store):
    w, user = _told(store, [NAMED.replace(" (Rob)", ""), LEAVING])
    assert _status(store, user, "Roberto", "works_at") == {"Halvorsen Marine": "active"}


def test_someone_else_leaving_the_users_employer_ends_nothing(store):
    w, user = _told(store, [
        "I'm an engineer at Halvorsen Marine, my friend Dana works there too and we like order",
        "big news: Dana is leaving Halvorsen Marine! from next week she'll do the accounts for a studio",
    ])
    assert _status(store, user, "user", "works_at") == {"Halvorsen Marine": "active"}


def test_the_user_leaving_ends_the_users_job_and_keeps_the_rest(store):
    w, user = _told(store, [
        "I'm an engineer at Halvorsen Marine, my commute is long and I like order",
        "big news: I'm leaving Halvorsen Marine! from next week I'll do the accounts for a studio",
    ])
    assert _status(store, user, "user", "works_at") == {"Halvorsen Marine": "superseded"}
    assert _status(store, user, "user", "likes") == {"order": "active"}


def test_a_change_word_texted_without_its_g_counts(store):
    w, user = _told(store, [
        "hey im a foreman for Halvorsen Marine here in Tacoma, my crew is great and i like order",
        "big news. im leavin Halvorsen Marine end of the month after 9 yrs and startin my own shop, "
        "Birch Cabinets",
    ])
    assert _status(store, user, "user", "works_at") == {"Halvorsen Marine": "superseded"}
    assert _status(store, user, "user", "lives_in") == {"Tacoma": "active"}
