"""Asked about the present of a single-valued slot, its current tellings come first
(``reorder._newest_first``): a newer message that merely uses the slot's words, of someone else,
does not outrank the telling. Through the real Writer on both stores; the messages are
hand-written for this test."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

from dualmem_core import Writer
from dualmem_core.slots import read_message
from dualmem_core.writer.reorder import BARELY

T = datetime(2026, 2, 2, 9, tzinfo=UTC)
QUESTION = "Where does Tomasz live now?"
# In the slot's words ("living"), but of the hamster: the reader gives it little chance of
# telling where the speaker lives, and more of someone else's.
HAMSTER = "Pickle has been living inside the sofa cushion since Sunday, she refuses to come out"


def _told(store, messages: list[tuple[str, str]]) -> tuple[Writer, str]:
    user = f"present-{uuid.uuid4().hex[:10]}"
    w = Writer(store)
    for n, (role, text) in enumerate(messages):
        w.remember(text, user_id=user, session_id=f"s{n}", at=T + timedelta(days=30 * n), role=role)
    return w, user


def test_a_message_merely_in_the_slots_words_does_not_outrank_the_telling(store):
    chances = read_message(HAMSTER).chances
    assert chances["lives_in"] < BARELY and chances["lives_in@other"] > chances["lives_in"], chances
    w, user = _told(store, [("user", "hi, Tomasz here. I live in Porto now, finally unpacked"),
                            ("user", "work was long today, the tram broke down twice"),
                            ("user", HAMSTER)])
    texts = [h.text for h in w.recall(QUESTION, user_id=user, k=4)]
    assert "Porto" in texts[0], texts
    assert HAMSTER not in texts or texts.index(HAMSTER) > 0, texts

