"""``dualmem import``: conversations from a JSONL file, one message a line, through the Writer."""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from ..errors import DualmemError, InvalidInput
from ..service import MemoryService
from ..service.text import check_new_ids
from ..writer.inputs import ROLES
from .common import TIME_HELP, HelpFormatter, iso_time, open_memory, positive_int, print_json, progress

FORMAT = f"""\
file format: JSON Lines, one message per line, in the order they were said:
  {{"user_id": "u1", "session_id": "s1", "source_id": "s1-m1", "at": "2025-01-09T19:40:00-07:00",
   "role": "user", "speaker": "Priya", "agent_id": "planner", "content": "I moved to Denver."}}
  user_id, content   required ("text" is accepted for content)
  session_id         the conversation it belongs to (recall can filter by it)
  source_id          your id for the message: 'dualmem forget --source-id' deletes by it, and a
                     line whose user_id and source_id are already stored is skipped, so an
                     import that failed half-way can simply be run again
  at                 when it was said, e.g. 2025-01-09T19:40:00-07:00 or 2025-01-09T19:40Z (ISO 8601;
                     no offset means UTC); default: the time of the import
  role               {", ".join(ROLES)} (default user; only user messages are mined)
  speaker, agent_id  who said it (default: the role), which agent the memory belongs to
Other keys (e.g. "part" in fixtures/eval/conversations.jsonl) are ignored; blank lines are skipped.
Consecutive lines of the same user, session and agent are stored together, up to --batch-size
messages per remember call (one transaction, and one LLM call when an LLM is configured).

examples:
  dualmem import conversations.jsonl
  dualmem import fixtures/eval/conversations.jsonl --store sqlite:///eval.db --batch-size 50
"""

_OPTIONAL = ("session_id", "source_id", "speaker", "agent_id")


@dataclass(slots=True)
class Line:
    number: int
    user_id: str
    message: dict[str, Any]  # what remember() takes: content, role, and source_id/at/speaker if given
    session_id: str | None
    agent_id: str | None

    @property
    def key(self) -> tuple[str, str | None, str | None]:
        return self.user_id, self.session_id, self.agent_id


@dataclass(slots=True)
class ImportReport:
    file: str
    messages: int = 0
    users: int = 0
    sessions: int = 0
    batches: int = 0
    episodes: int = 0
    memories: int = 0
    facts: int = 0
    already_known: int = 0  # exact duplicates that re-sourced a memory
    skipped_existing: int = 0  # lines whose source id was already stored with the same text
    seconds: float = 0.0


def read_lines(path: Path) -> list[Line]:
    """Every message of the file, checked; the first bad line is an error naming it."""
    if not path.is_file():
        raise InvalidInput(f"{path}: no such file")
    lines = []
    with path.open("rb") as handle:  # bytes, so that a line that is not UTF-8 can be named
        for number, data in enumerate(handle, start=1):
            try:
                raw = data.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise InvalidInput(
                    f"{path}:{number}: byte 0x{data[exc.start]:02x} at column {exc.start + 1} is not "
                    "UTF-8; the file must be UTF-8 (convert it, e.g. iconv -f latin1 -t utf-8)"
                ) from None
            if raw.strip():
                lines.append(_parse(raw, f"{path}:{number}", number))
    if not lines:
        raise InvalidInput(f"{path}: no messages in the file")
    return lines


def _parse(raw: str, where: str, number: int) -> Line:
    try:
        item = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise InvalidInput(f"{where}: not valid JSON ({exc.msg} at column {exc.colno})") from None
    if not isinstance(item, dict):
        raise InvalidInput(f"{where}: a line must be a JSON object, got {type(item).__name__}")
    user_id, content = item.get("user_id"), item.get("content", item.get("text"))
    for name, value in (("user_id", user_id), ("content", content)):
        if not isinstance(value, str) or not value.strip():
            raise InvalidInput(f"{where}: '{name}' is required and must be a non-empty string")
    for name in _OPTIONAL:
        if item.get(name) is not None and (not isinstance(item[name], str) or not item[name].strip()):
            raise InvalidInput(f"{where}: '{name}' must be a non-empty string, got {item[name]!r}")
    try:
        MemoryService.check_user(user_id)
        # here, so the error names the line before any batch of the file is written
        check_new_ids(**{name: item.get(name) for name in ("source_id", "session_id", "agent_id")})
    except InvalidInput as exc:
        raise InvalidInput(f"{where}: {exc}") from None
    role = item.get("role") or "user"
    if role not in ROLES:
        raise InvalidInput(f"{where}: 'role' must be one of {', '.join(ROLES)}, got {role!r}")
    message: dict[str, Any] = {"content": content, "role": role}
    if item.get("at") is not None:
        try:
            message["at"] = iso_time(item["at"]) if isinstance(item["at"], str) else _bad_time(item["at"])
        except argparse.ArgumentTypeError as exc:
            raise InvalidInput(f"{where}: 'at' {exc}") from None
    for name in ("source_id", "speaker"):
        if item.get(name) is not None:
            message[name] = item[name]
    assert user_id is not None  # checked a non-empty string above
    return Line(number, user_id, message, item.get("session_id"), item.get("agent_id"))


def _bad_time(value: object) -> datetime:
    raise argparse.ArgumentTypeError(f"{value!r} is not a date-time string; use {TIME_HELP}")


def batches(lines: list[Line], size: int) -> Iterator[list[Line]]:
    """Runs of consecutive lines with the same user, session and agent, at most ``size`` long."""
    batch: list[Line] = []
    for line in lines:
        if batch and (line.key != batch[0].key or len(batch) >= size):
            yield batch
            batch = []
        batch.append(line)
    if batch:
        yield batch


def _new_lines(store, lines: list[Line], path: Path) -> list[Line]:
    """The lines to store, by the Writer's rule on source ids, checked before anything is written:
    an id stored (or earlier in the file) with the same text is skipped, with another text refused."""
    wanted: dict[str, set[str]] = {}
    for line in lines:
        if "source_id" in line.message:
            wanted.setdefault(line.user_id, set()).add(line.message["source_id"])
    texts: dict[tuple[str, str | None], str] = {}  # looked up with a line's source id, None if it has none
    for user_id, source_ids in wanted.items():
        ids = sorted(source_ids)
        for start in range(0, len(ids), 500):
            for episode in store.episodes_by_source(user_id, ids[start : start + 500]):
                texts[(user_id, episode.source_id)] = episode.text
    todo = []
    for line in lines:
        key = (line.user_id, line.message.get("source_id"))
        if key[1] is None or key not in texts:
            if key[1] is not None:
                texts[key] = line.message["content"]
            todo.append(line)
        elif texts[key] != line.message["content"]:
            raise InvalidInput(
                f"{path}:{line.number}: source_id {key[1]!r} already names a different message of user "
                f"{key[0]!r} (stored, or earlier in the file); give it its own id, or forget the old "
                "one first. Nothing was imported."
            )
    return todo


def run_import(args: argparse.Namespace) -> int:
    path = Path(args.file).expanduser()
    lines = read_lines(path)
    report = ImportReport(str(path))
    started = time.perf_counter()
    with open_memory(args, create=True) as memory:
        todo = _new_lines(memory.store, lines, path)
        report.skipped_existing = len(lines) - len(todo)
        report.users = len({ln.user_id for ln in todo})
        report.sessions = len({ln.key for ln in todo if ln.session_id})
        with progress(total=len(todo), desc=f"importing {path.name}", unit="msg") as bar:
            for batch in batches(todo, args.batch_size):
                user_id, session_id, agent_id = batch[0].key
                try:
                    result = memory.remember([ln.message for ln in batch], user_id=user_id,
                                             session_id=session_id, agent_id=agent_id)
                except DualmemError as exc:
                    raise DualmemError(
                        f"{path}:{batch[0].number}-{batch[-1].number}: {exc} ({report.messages} messages "
                        "were stored before it; after a fix, run the same import again to add the rest)"
                    ) from exc
                report.batches += 1
                report.messages += len(batch)
                report.episodes += len(result.episode_ids)
                report.memories += len(result.memory_ids)
                report.facts += len(result.fact_ids)
                report.already_known += len(result.skipped_duplicates)
                bar.update(len(batch))
    report.seconds = round(time.perf_counter() - started, 2)
    if args.json:
        print_json(report)
        return 0
    print(f"imported {report.messages} messages from {path} for {report.users} users "
          f"({report.sessions} sessions) in {report.batches} batches, {report.seconds:.1f} s: "
          f"{report.memories} new memories ({report.facts} facts), {report.already_known} already known")
    if report.skipped_existing:
        print(f"skipped {report.skipped_existing} messages already stored (same source id and text)")
    return 0


def register(commands: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    p = commands.add_parser(
        "import", parents=[common], formatter_class=HelpFormatter,
        help="store conversations from a JSONL file (one message per line)",
        description="Store every message of a JSON Lines file through the Writer, as 'remember' "
        "would, with a progress bar on stderr. The whole file is checked before anything is stored.",
        epilog=FORMAT,
    )
    p.add_argument("file", metavar="FILE.jsonl", help="the conversations (format below)")
    p.add_argument("--batch-size", type=positive_int, default=20, metavar="N",
                   help="at most N messages per remember call (default: 20)")
    p.add_argument("--json", action="store_true", help="print the counts as JSON")
    p.set_defaults(run=run_import)
