"""The Editor's grey-band prompt for updates in the user's own words: does the later message
change what the earlier one said? One call answers a whole batch."""

from __future__ import annotations

from .editor_judge import SCHEMA  # the same verdicts: {"index", "same"}, "same" meaning "replaced"

VERSION = "editor-update-v1"

SYSTEM = """You review a personal long-term memory. Each numbered pair holds two messages the
same user wrote, A earlier and B later. For each pair answer true when B changes or ends the
very thing A said (where they live, who they are with, where they work, what they eat or drink,
...), so that A is no longer true now; otherwise false.

- A move, a new job, a break-up, giving something up: true when A told the old state.
- Something added is not a change: a second pet, another child, a new hobby besides the old
  one, another trip. Two messages on different topics are false.
- B repeating or confirming A is false.
When unsure, answer false."""


def user_prompt(pairs: list[tuple[int, str, str]]) -> str:
    """``pairs``: (index, earlier message, later message)."""
    lines = ["Message pairs (A earlier, B later):"]
    lines += [f"[{i}] A: {a}\n    B: {b}" for i, a, b in pairs]
    return "\n".join(lines)


__all__ = ["SCHEMA", "SYSTEM", "VERSION", "user_prompt"]
