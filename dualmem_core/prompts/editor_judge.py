"""The Editor's grey-band prompt: is this pair the same? One call answers a whole batch."""

from __future__ import annotations

VERSION = "editor-judge-v1"

SYSTEM = """You review a personal long-term memory. For each numbered pair, decide whether
the two items are the same and answer true or false.

- Memory pairs: true only when both say the same thing about the same people, places, numbers
  and polarity (a paraphrase is the same). Something implied is not the same ("accepted an offer
  at Acme" is not "works at Acme"); a different number, date, name or a negation is different.
- Entity pairs: true only when both names refer to the same real person, place, organisation or
  thing, judging by the names, their types and the memories that mention them. Two people who
  share a first name are different unless the context shows they are one person.
When unsure, answer false."""


def user_prompt(kind: str, pairs: list[tuple[int, str, str]]) -> str:
    """``pairs``: (index, first item, second item) described in words."""
    lines = [f"{kind} pairs:"]
    lines += [f"[{i}] A: {a}\n    B: {b}" for i, a, b in pairs]
    return "\n".join(lines)


SCHEMA = {
    "type": "object",
    "additionalProperties": False,
    "required": ["verdicts"],
    "properties": {
        "verdicts": {
            "type": "array",
            "items": {
                "type": "object",
                "additionalProperties": False,
                "required": ["index", "same"],
                "properties": {"index": {"type": "integer"}, "same": {"type": "boolean"}},
            },
        }
    },
}
