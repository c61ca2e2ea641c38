"""Bugs the reliability tests found, each pinned on both stores."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from dualmem_core import Editor, Writer
from dualmem_core.editor.invariants import check_graph

T = datetime(2025, 3, 1, tzinfo=UTC)


@pytest.mark.parametrize("apart", [False, True], ids=["one-message-list", "two-calls"])
def test_two_values_with_the_same_start_do_not_stop_the_editor(store, user, apart):
    """Found by the concurrency test: the older value was ended where it began, an empty valid
    interval the store refused, so every Editor run of that user failed from then on."""
    writer = Writer(store)
    told = [{"content": "I moved to Boston last month."}, {"content": "I moved to Chicago last month."}]
    if apart:  # both start on Feb 1; Chicago was told later, so it is the one that holds
        for i, message in enumerate(told):
            writer.remember([message], user_id=user, at=T + timedelta(days=i))
    else:  # told together (one `at`), the order between them is unknown: one of them holds
        writer.remember(told, user_id=user, at=T)
    editor = Editor(store)
    run = editor.run(user)
    assert run.counts["supersede"] == {"supersede": 1}
    assert editor.run(user).counts["supersede"] == {}  # a fixpoint, like any other chain
    assert not any(check_graph(store.export_graph(user)).values())
    lives = {
        h.text: h.current
        for h in writer.recall("Where does the user live?", user_id=user, k=10)
        if h.kind == "fact"
    }
    assert set(lives) == {"user lives in Boston", "user lives in Chicago"}
    assert sorted(lives.values()) == [False, True]
    if apart:
        assert lives["user lives in Chicago"]
    editor.rollback(run.run_id)
