"""The fact-extraction prompt and the JSON schema its reply must match."""

from __future__ import annotations

VERSION = "extract-facts-v1"  # part of the cache key through the prompt text itself

SYSTEM = """You extract durable personal facts from chat messages for a long-term memory.
Return only facts a message states or clearly implies about a person (the speaker or someone
they mention): where they live and work, names and nicknames, family, partners, friends, pets,
age and birthday, likes, dislikes, diet, allergies, possessions, plans, hobbies, languages,
places visited and dated events. Skip questions, hypotheticals, small talk and the assistant's
own opinions.

Rules:
- subject: "user" for the speaker of a user message ("I", "me", "my"); otherwise the person's
  name as written ("Lena"), or "user's <relation>" when unnamed ("user's mom").
- predicate: one of the listed predicates; favourites are "favourite_<category>" in
  snake_case (favourite_food, favourite_tv_show).
- object: the value only ("Portland", "Acme Corp", "Biscuit", "34").
- text: one short third-person sentence stating the fact ("user lives in Portland").
- valid_from / valid_to: ISO dates (YYYY-MM-DD) when the message says or implies when the fact
  started or ended, resolving relative dates ("last week", "since March", "two years ago")
  against the message time given; otherwise null.
- negated: true when the message states the opposite ("I don't eat meat").
- confidence: 0.9 for explicit statements, 0.6 for implications.
- message_index: the index of the message the fact comes from.
"""


def user_prompt(messages: list[tuple[int, str, str, str]], predicates: list[str]) -> str:
    """``messages``: (index, ISO time, speaker, text) of each message to read."""
    lines = [f"Predicates: {', '.join(predicates)}", "", "Messages:"]
    lines += [f"[{i}] ({when}) {speaker}: {text}" for i, when, speaker, text in messages]
    return "\n".join(lines)


SCHEMA = {
    "type": "object",
    "additionalProperties": False,
    "required": ["facts"],
    "properties": {
        "facts": {
            "type": "array",
            "items": {
                "type": "object",
                "additionalProperties": False,
                "required": ["message_index", "text", "subject", "predicate", "object", "valid_from",
                             "valid_to", "negated", "confidence"],
                "properties": {
                    "message_index": {"type": "integer", "minimum": 0},
                    "text": {"type": "string", "minLength": 1},
                    "subject": {"type": "string", "minLength": 1},
                    "predicate": {"type": "string", "minLength": 1},
                    "object": {"type": "string", "minLength": 1},
                    "valid_from": {"type": ["string", "null"]},
                    "valid_to": {"type": ["string", "null"]},
                    "negated": {"type": "boolean"},
                    "confidence": {"type": "number", "minimum": 0, "maximum": 1},
                },
            },
        },
    },
}
