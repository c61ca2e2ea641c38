"""Asked about the present, a message telling a change of a thing ranks above the earlier hits
naming that thing, with no Editor run: recall reads the change words itself
(``vocab/changes.py``). Through the real Writer on both stores."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

import pytest

from dualmem_core import Writer
from dualmem_core.vocab.changes import changed_things, root

T = datetime(2026, 1, 5, 9, tzinfo=UTC)
BEFORE = "ok. I'm on my fourth coffee of the day and it's 2:45, I love coffee an unhealthy amount"
QUIT = "the cat has claimed my desk chair. also I quit coffee 2 weeks ago and switched to rooibos"


def _told(store, messages: list[str]) -> tuple[Writer, str]:
    user = f"changes-{uuid.uuid4().hex[:10]}"
    w = Writer(store)
    for n, text in enumerate(messages):
        w.remember(text, user_id=user, session_id=f"s{n}", at=T + timedelta(days=40 * n))
    return w, user


def test_the_telling_of_a_change_ranks_above_the_earlier_telling(store):
    w, user = _told(store, [BEFORE, "my thesis chapter is due in March", QUIT])
    texts = [h.text for h in w.recall("How much coffee does she drink?", user_id=user, k=6)
             if h.kind == "observation"]
    assert texts.index(QUIT) < texts.index(BEFORE), texts


def test_the_lift_puts_the_change_just_above_the_earlier_telling_and_as_of_before_it_there_is_none(store):
    """The lift itself (``reorder._changes_first``): asked about the present, the telling of the
    change scores just above the best earlier message naming the thing (its score times 1.001),
    which it did not outscore on its own. As of a day before the quitting was said, the as-of
    filter keeps that telling out and the lift, reading only what the filter let in, has nothing
    to put first: the earlier telling is first."""
    w, user = _told(store, [BEFORE, QUIT])
    question = "How much coffee does she drink?"
    now = {h.text: h for h in w.recall(question, user_id=user, k=6) if h.kind == "observation"}
    assert list(now).index(QUIT) < list(now).index(BEFORE), list(now)
    assert now[QUIT].score == pytest.approx(now[BEFORE].score * 1.001, abs=2e-6), now
    then = [h.text for h in w.recall("How much coffee did she drink last January?", user_id=user, k=3,
                                     as_of=T + timedelta(days=1))]
    assert QUIT not in then and then[0] == BEFORE, then


def test_what_a_change_is_said_of():
    assert root("coffee") in changed_things(QUIT)
    assert not changed_things(BEFORE)  # no change word
    assert not changed_things("moved another plant to the balcony")  # more of a thing, not a change
    assert root("leeds") in changed_things("moved out of leeds, new flat in manchester")
    assert changed_things("the league folded so no more coaching for me") == {"coach"}


def test_the_forms_of_one_word_share_a_root():
    assert {root(w) for w in ("vape", "vaping", "vapes")} == {"vap"}
    assert {root(w) for w in ("coach", "coached", "coaching")} == {"coach"}
    assert root("quitting") == root("quit") and root("need") == "need"
