"""What every command shares: the store options, opening memory, times, tables, JSON, progress."""

from __future__ import annotations

import argparse
import dataclasses
import json
import shutil
import sys
import textwrap
from collections.abc import Iterable, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from enum import Enum
from pathlib import Path
from typing import Any

from ..errors import DualmemError, InvalidInput
from ..service.times import as_utc, read_time
from ..timeutil import EARLIEST, is_open

TIME_HELP = (
    "ISO 8601: 2026-03-02, 2026-03-02T18:00, 2026-03-02T18:00:00+02:00 or ...Z; "
    "without an offset the time is UTC"
)


class HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """Wraps prose paragraphs to the terminal; keeps laid-out ones (examples, tables) as written."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        paragraphs = []
        for paragraph in text.split("\n\n"):
            if "\n" in paragraph.strip("\n") or paragraph.startswith(" "):
                paragraphs.append(textwrap.indent(paragraph, indent))
            else:
                paragraphs.append(textwrap.fill(paragraph, width, initial_indent=indent,
                                                subsequent_indent=indent))
        return "\n\n".join(paragraphs)


class UsageError(DualmemError):
    """The command line asks for something that cannot work as given (exit code 2)."""


def store_options() -> argparse.ArgumentParser:
    """The options of every command that opens memory (a parent parser)."""
    common = argparse.ArgumentParser(add_help=False)
    group = common.add_argument_group("store and models (flag > environment > config file > default)")
    group.add_argument(
        "--store", metavar="URL",
        help="store URL: sqlite:///memory.db (relative), sqlite:////abs/path.db, bolt://host:7687 "
        "(default: DUALMEM_STORE, else 'store' in the config file, else memory.db in the user's data dir)",
    )
    group.add_argument(
        "--embedder", metavar="SPEC",
        help="hashing (default), hashing:<dim>, openai:<model> or sentence-transformers:<name> "
        "(default: DUALMEM_EMBEDDER, else 'embedder' in the config file); must match the store's dimension",
    )
    group.add_argument(
        "--config", metavar="PATH",
        help="TOML config file (default: DUALMEM_CONFIG, else config.toml in the user's config dir, "
        "e.g. ~/.config/dualmem/config.toml, if it exists)",
    )
    # SUPPRESS: the subcommand's default must not reset a --debug given before the command.
    common.add_argument("--debug", action="store_true", default=argparse.SUPPRESS,
                        help="show tracebacks on errors")
    return common


@contextmanager
def open_memory(args: argparse.Namespace, *, create: bool = False):
    """The ``MemoryService`` (store, Writer, Editor) the command's options and settings name.

    Only the commands that store (remember, import) pass ``create``: elsewhere a mistyped
    store URL is an error naming the path, not a new, empty store."""
    from ..editor.layer_switch import with_layers
    from ..service import MemoryService
    from ..settings import resolve_settings

    settings = resolve_settings(args.store, args.embedder, args.config)
    layers = None if settings.editor_layers is None else with_layers(settings.editor_layers)
    with MemoryService.open(settings.store_url, settings.config, create=create,
                            max_message_chars=settings.max_message_chars, editor_config=layers) as services:
        if services.created_note():
            print(f"dualmem: {services.created_note()}", file=sys.stderr)
        yield services


def iso_time(text: str) -> datetime:
    """An argparse type: an ISO 8601 date or date-time, UTC when it has no offset, as a UTC moment
    (``as_utc``, as REST and MCP read times): a moment UTC cannot hold (0001-01-01T00:00+14:00) is
    a usage error saying so, where it was an OverflowError later."""
    try:
        moment = read_time(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a date-time; use {TIME_HELP}") from None
    try:
        return as_utc(moment)
    except InvalidInput as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} must be at least 1")
    return value


def hit_count(text: str) -> int:
    """An argparse type for -k: the range recall accepts, checked where the other usage errors
    are, so that every bad -k exits 2 with the same message."""
    from ..store.validate import MAX_K

    try:
        value = int(text)
    except ValueError:
        value = None
    if value is None or not 1 <= value <= MAX_K:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number between 1 and {MAX_K}")
    return value


# -- output -----------------------------------------------------------------------------------


def jsonable(value: Any) -> Any:
    """Plain JSON values; an open interval end (the far-future sentinel) becomes null."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: jsonable(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, datetime):
        return None if is_open(value) else value.isoformat()
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        items = [jsonable(v) for v in value]
        return sorted(items) if isinstance(value, set | frozenset) else items
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, float):
        return round(value, 6)
    return value


def print_json(value: Any) -> None:
    print(json.dumps(jsonable(value), indent=2, ensure_ascii=False))


def day(moment: datetime) -> str:
    """A compact time for tables: the date, with the time when it is not midnight UTC."""
    moment = moment.astimezone(UTC)
    return f"{moment:%Y-%m-%d}" if moment.time() == datetime.min.time() else f"{moment:%Y-%m-%d %H:%M}"


def span(start: datetime, end: datetime) -> str:
    """A closed-open interval for a table: 'since X', 'until Y', 'X to Y' or 'always'."""
    if is_open(end):
        return "always" if start <= EARLIEST else f"since {day(start)}"
    return f"until {day(end)}" if start <= EARLIEST else f"{day(start)} to {day(end)}"


def plural(n: int, word: str, words: str | None = None) -> str:
    return f"{n} {word if n == 1 else (words or word + 's')}"


def short_list(items: Sequence[str], limit: int = 2) -> str:
    if not items:
        return "-"
    shown = ",".join(items[:limit])
    return shown if len(items) <= limit else f"{shown} +{len(items) - limit}"


def table(headers: Sequence[str], rows: Iterable[Sequence[object]]) -> str:
    """Aligned columns; the last one is cut to the terminal's width (``--json`` has it whole)."""
    cells = [[str(c) for c in row] for row in rows]
    widths = [max([len(h)] + [len(r[i]) for r in cells]) for i, h in enumerate(headers[:-1])]
    room = max(shutil.get_terminal_size((120, 24)).columns - sum(w + 2 for w in widths), 30)

    def line(row: Sequence[str]) -> str:
        last = row[-1] if len(row[-1]) <= room else row[-1][: room - 1] + "…"
        return "  ".join([c.ljust(w) for c, w in zip(row[:-1], widths, strict=True)] + [last]).rstrip()

    return "\n".join([line(list(headers))] + [line(r) for r in cells])


def progress(iterable: Iterable | None = None, *, total: int | None = None, desc: str = "",
             unit: str = "it"):
    """A progress bar on stderr, shown only when stderr is a terminal."""
    from tqdm import tqdm

    return tqdm(iterable, total=total, desc=desc, unit=unit, file=sys.stderr, disable=None,
                leave=False, dynamic_ncols=True)
