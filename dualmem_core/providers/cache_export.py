"""The provider cache's export file: entries to and from sorted, line-per-entry JSON.

``export_jsonl`` writes a header line then one JSON object per entry, sorted by key (gzip when
the name ends in ``.gz``, byte-identical for the same entries), so a recording can be committed
and reviewed; ``import_jsonl`` loads one back, checking every line and refusing an entry whose
key does not match its request. ``ProviderCache`` gets both methods from ``CacheExport``.

Separate from ``cache.py`` because the file format (its header, the line layout, the checks on
reading it) is its own concern, read and changed apart from the cache's lookups and modes.
"""

from __future__ import annotations

import base64
import gzip
import io
import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

from ..errors import CacheError
from .cache_db import CacheDatabase
from .cache_format import EMBEDDING, KINDS, SCHEMA_VERSION, _check_kind, cache_key, canonical_json

EXPORT_FORMAT = "dualmem-provider-cache"


class CacheExport(CacheDatabase):
    """``export_jsonl`` and ``import_jsonl`` of ``ProviderCache`` (one of its base classes)."""

    def export_jsonl(self, path: str | os.PathLike[str], *, kind: str | None = None,
                     model: str | None = None) -> int:
        """Write entries (optionally one kind / model) to ``path``, one JSON object per line,
        sorted by key, after a header line. Vectors are base64 float32 (exact and compact);
        LLM replies stay readable JSON. A ``.gz`` name writes gzip. Returns the entry count."""
        where, params = ["1 = 1"], []
        if kind is not None:
            where.append("e.kind = ?")
            params.append(_check_kind(kind))
        if model is not None:
            where.append("e.model = ?")
            params.append(model)
        with self._read() as conn:
            rows = conn.execute(
                "SELECT e.key, e.kind, e.model, e.created_at, e.request, e.value, "
                "(SELECT group_concat(t.text_hash, ' ') FROM text_hashes t WHERE t.key = e.key) "
                f"FROM entries e WHERE {' AND '.join(where)} ORDER BY e.key", params).fetchall()
        target = Path(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        with _open_text(target, "w") as out:
            out.write(canonical_json({"format": EXPORT_FORMAT, "version": SCHEMA_VERSION,
                                      "entries": len(rows)}) + "\n")
            for key, row_kind, row_model, created_at, request, value, hashes in rows:
                if row_kind == EMBEDDING:
                    exported: Any = {"dtype": "float32", "dim": len(value) // 4,
                                     "b64": base64.b64encode(bytes(value)).decode("ascii")}
                else:
                    exported = json.loads(value)
                out.write(canonical_json({
                    "key": key, "kind": row_kind, "model": row_model, "created_at": created_at,
                    "request": json.loads(request), "value": exported,
                    "text_hashes": sorted(hashes.split(" ")) if hashes else [],
                }) + "\n")
        return len(rows)

    def import_jsonl(self, path: str | os.PathLike[str]) -> int:
        """Load entries written by ``export_jsonl`` (replacing equal keys); returns the count.

        Works in every mode, replay included. Each key is recomputed from its line, so a line
        whose request was edited by hand is refused instead of answering the wrong request.
        """
        source = Path(path)
        rows = []
        try:
            with _open_text(source, "r") as lines:
                header = _parse_line(source, 1, lines.readline())
                if header.get("format") != EXPORT_FORMAT or header.get("version") != SCHEMA_VERSION:
                    raise CacheError(f"{source}: not a dualmem provider cache export "
                                     f"(format {EXPORT_FORMAT} version {SCHEMA_VERSION})")
                for number, line in enumerate(lines, start=2):
                    if line.strip():
                        rows.append(_import_row(source, number, _parse_line(source, number, line)))
        except (OSError, EOFError, gzip.BadGzipFile, UnicodeDecodeError) as exc:
            raise CacheError(f"cannot read cache export {source}: {exc}") from exc
        with self._write() as conn:
            for key, kind, model, created_at, request_json, value, hashes in rows:
                conn.execute(
                    "INSERT OR REPLACE INTO entries (key, kind, model, created_at, request, value) "
                    "VALUES (?, ?, ?, ?, ?, ?)", (key, kind, model, created_at, request_json, value))
                conn.execute("DELETE FROM text_hashes WHERE key = ?", (key,))
                conn.executemany("INSERT OR IGNORE INTO text_hashes (text_hash, key) VALUES (?, ?)",
                                 [(h, key) for h in hashes])
        return len(rows)


@contextmanager
def _open_text(path: Path, mode: str) -> Iterator[IO[str]]:
    if path.suffix == ".gz":
        if mode == "w":
            # mtime=0 and no file name: the same entries give byte-identical files
            with open(path, "wb") as raw, gzip.GzipFile(filename="", fileobj=raw, mode="wb", mtime=0) as gz, \
                    io.TextIOWrapper(gz, encoding="utf-8", newline="\n") as text:
                yield text
        else:
            with gzip.open(path, "rt", encoding="utf-8") as text:
                yield text
    else:
        with open(path, mode, encoding="utf-8", newline="\n" if mode == "w" else None) as text:
            yield text


def _parse_line(source: Path, number: int, line: str) -> dict[str, Any]:
    try:
        value = json.loads(line)
    except ValueError as exc:
        raise CacheError(f"{source}:{number}: not JSON ({exc})") from exc
    if not isinstance(value, dict):
        raise CacheError(f"{source}:{number}: expected a JSON object")
    return value


def _import_row(source: Path, number: int, row: dict[str, Any]) -> tuple:
    where = f"{source}:{number}"
    try:
        key, kind, model, created_at = row["key"], row["kind"], row["model"], row["created_at"]
        request, value, hashes = row["request"], row["value"], row.get("text_hashes", [])
    except KeyError as exc:
        raise CacheError(f"{where}: missing field {exc}") from exc
    if kind not in KINDS or not isinstance(model, str) or not isinstance(created_at, str):
        raise CacheError(f"{where}: bad kind, model or created_at")
    if cache_key(kind, model, request) != key:
        raise CacheError(f"{where}: the key does not match the request (edited by hand?); "
                         "re-record this entry instead of editing it")
    if kind == EMBEDDING:
        try:
            blob = base64.b64decode(value["b64"], validate=True)
        except (KeyError, TypeError, ValueError) as exc:
            raise CacheError(f"{where}: embedding value is not base64 float32 ({exc})") from exc
        if value.get("dtype") != "float32" or len(blob) != 4 * int(value.get("dim", -1)) or not blob:
            raise CacheError(f"{where}: embedding value length does not match its dim")
        stored: bytes | str = blob
    else:
        if not isinstance(value, dict):
            raise CacheError(f"{where}: an LLM value must be a JSON object")
        stored = canonical_json(value)
    if not isinstance(hashes, list) or not all(isinstance(h, str) and len(h) == 64 for h in hashes):
        raise CacheError(f"{where}: text_hashes must be a list of hex SHA-256 strings")
    return key, kind, model, created_at, canonical_json(request), stored, hashes
