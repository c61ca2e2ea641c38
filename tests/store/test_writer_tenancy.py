"""The Writer answers for one user at a time: another user's memory is not found."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from dualmem_core import NotFound, Writer, open_store


def test_history_of_another_users_memory_is_not_found(tmp_path):
    with open_store(f"sqlite:///{tmp_path / 'm.db'}") as store:
        writer = Writer(store)
        mine = writer.remember("I live in Oslo.", user_id="a", at=datetime(2026, 1, 1, tzinfo=UTC))
        assert writer.history(mine.memory_ids[0], user_id="a").versions
        with pytest.raises(NotFound, match="for user 'b'"):
            writer.history(mine.memory_ids[0], user_id="b")
