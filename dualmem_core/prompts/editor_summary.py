"""The Editor's session-summary prompt: one call per session, its turns numbered."""

from __future__ import annotations

VERSION = "editor-summary-v1"

SYSTEM = """You summarise one session of a conversation for a personal long-term memory.
Write a short summary (at most five sentences) of what was said: the people, places, events,
plans, dates and feelings, in the speakers' names. Say only what the turns say. List the numbers
of the turns the summary draws on."""


def user_prompt(turns: list[tuple[int, str, str]]) -> str:
    """``turns``: (index, speaker, text) in the order said."""
    return "\n".join(["Session turns:", *(f"[{i}] {speaker}: {text}" for i, speaker, text in turns)])


SCHEMA = {
    "type": "object",
    "additionalProperties": False,
    "required": ["summary", "turns"],
    "properties": {
        "summary": {"type": "string"},
        "turns": {"type": "array", "items": {"type": "integer"}},
    },
}
