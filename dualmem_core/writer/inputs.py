"""Turn what a caller passes to ``remember`` into checked messages, or say what is wrong."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from ..errors import InvalidInput
from ..store.validate import check_text
from ..timeutil import require_aware, utcnow

ROLES = ("user", "assistant", "system", "tool")
ASSISTANT_ROLES = ("assistant", "system", "tool")  # stored and recalled, not the user's own words
_FIELDS = {"role", "content", "text", "source_id", "at", "speaker", "name"}


@dataclass(slots=True)
class InputMessage:
    text: str
    at: datetime
    role: str
    speaker: str
    source_id: str | None


def to_messages(content: object, *, at: datetime | None, source_id: str | None, speaker: str | None,
                role: str | None) -> list[InputMessage]:
    """One message from a string, or many from a list of ``{"role", "content", ...}`` dicts."""
    default_at = utcnow() if at is None else require_aware(at, "at")
    if isinstance(content, str):
        return [_message(content, default_at, role or "user", speaker, source_id, "content")]
    if isinstance(content, Mapping) or not isinstance(content, Sequence):
        raise InvalidInput("remember() takes a string or a list of {'role': ..., 'content': ...} "
                           f"dicts, got {type(content).__name__}")
    if not content:
        raise InvalidInput("remember() got an empty list of messages; there is nothing to store")
    if source_id is not None and len(content) > 1:
        raise InvalidInput("source_id= names one message; give each dict its own 'source_id'")
    messages = []
    for index, item in enumerate(content):
        where = f"message {index}"
        if not isinstance(item, Mapping):
            raise InvalidInput(f"{where} must be a dict with 'role' and 'content', got {type(item).__name__}")
        unknown = set(item) - _FIELDS
        if unknown:
            raise InvalidInput(f"{where} has unknown keys {sorted(unknown)}; known: {sorted(_FIELDS)}")
        text = item.get("content", item.get("text"))
        when = default_at if item.get("at") is None else _when(item["at"], f"{where} 'at'")
        messages.append(_message(text, when, item.get("role", role or "user"),
                                 item.get("speaker", item.get("name", speaker)),
                                 item.get("source_id", source_id), where))
    return messages


def _when(value: object, name: str) -> datetime:
    if isinstance(value, str):
        try:
            value = datetime.fromisoformat(value)
        except ValueError:
            raise InvalidInput(f"{name} {value!r} is not an ISO 8601 date-time") from None
    return require_aware(value, name)


def _message(text: object, at: datetime, role: object, speaker: object, source_id: object,
             where: str) -> InputMessage:
    checked = check_text(text, f"{where} text")  # ``text`` itself, known now to be a string
    if role not in ROLES:
        raise InvalidInput(f"{where} role must be one of {', '.join(ROLES)}, got {role!r}")
    if speaker is not None and (not isinstance(speaker, str) or not speaker.strip()):
        raise InvalidInput(f"{where} speaker must be a non-empty string, got {speaker!r}")
    if source_id is not None and (not isinstance(source_id, str) or not source_id):
        raise InvalidInput(f"{where} source_id must be a non-empty string, got {source_id!r}")
    return InputMessage(checked, at, role, speaker or role, source_id)
