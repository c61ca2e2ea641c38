"""``Writer.upcoming`` on both stores: the open intentions the Editor made, due within the window,
soonest first; neither a plan with no date nor one dropped since."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from dualmem_core import Editor, Writer
from dualmem_core.editor import EditorConfig
from dualmem_core.errors import InvalidInput

T = datetime(2026, 3, 4, 12, tzinfo=UTC)  # a Wednesday


def say(writer, user, texts, prefix, at):
    writer.remember([{"role": "user", "content": t, "source_id": f"{prefix}{i}", "at": at}
                     for i, t in enumerate(texts)], user_id=user, session_id=prefix)


def test_upcoming_lists_open_plans_due_within_the_window(store, user):
    writer = Writer(store)
    say(writer, user, ["I'm flying to Lisbon next Friday", "I want to write a novel",
                       "I want to run a marathon next year"], "a", T)
    editor = Editor(store, config=EditorConfig(intentions=True))
    editor.run(user)
    [lisbon] = writer.upcoming(user, now=T)
    assert lisbon.text == "I'm flying to Lisbon next Friday" and lisbon.state == "open"
    assert T < lisbon.due <= T + timedelta(days=7) and lisbon.sources == ["a0"]
    assert writer.upcoming(user, now=T, within=timedelta(hours=1)) == []
    assert [i.text for i in writer.upcoming(user, now=T, within=timedelta(days=400))] == [
        "I'm flying to Lisbon next Friday", "I want to run a marathon next year"]
    assert writer.upcoming(user, now=lisbon.due + timedelta(hours=9)) == [lisbon]  # due all that day
    assert writer.upcoming(user, now=lisbon.due + timedelta(days=1)) == []

    say(writer, user, ["The Lisbon trip is off, flights got cancelled"], "b", T + timedelta(days=1))
    editor.run(user)
    assert writer.upcoming(user, now=T) == []


def test_upcoming_checks_its_arguments(store, user):
    writer = Writer(store)
    assert writer.upcoming(user) == []
    with pytest.raises(InvalidInput):
        writer.upcoming(user, within=timedelta(days=-1))
    with pytest.raises(InvalidInput):
        writer.upcoming(user, now=datetime(2026, 3, 4))  # naive
