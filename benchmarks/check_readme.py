"""Check README.md and docs/*.md figures against the results files they name.

Convention (what makes a figure checked):

* **Tables**: a Markdown table whose caption (the paragraph right above it, or the caption of the
  table right above it) names one or more results files in backticks. Every number in the
  table's data rows is checked, except size labels (``1k``, ``100k``), targets (a number after
  ``≤``, ``≥``, ``<`` or ``>``) and numbers glued to letters (``p95``, ``top-10``, commit ids).
* **Prose**: a line that names a results file in backticks. Numbers with a unit (``ms``,
  ``messages/s``, ``memories/s``, ``MB``, ``GB``, ``s``, ``%``) on that line are checked, and so
  are the others of a run such as ``3.1 / 5.3 ms`` or ``18.0 → 9.6 ms``. A derived figure (a sum,
  a ratio) must not sit on such a line with a unit, or it is reported.

A results file is named as ``benchmarks/results/NAME`` (it must exist), or as a bare ``NAME`` /
``-COMMIT.txt`` / ``NAME.{json,txt}`` that exists in ``benchmarks/results/`` (a bare name that does
not is not a results file: ``fixtures/thresholds.json``).

README.md's figures are matched to the result each claims: ``CLAIMS`` below gives, for every
checked line of it (found by a piece of its text, such as a table row's label), one key path per
figure in order, into the JSON results file beside one of the files the line names
(``locomo-sqlite-hashing.json:systems/bm25/overall/r@5``; ``[n=100000]`` picks the item of a list
whose ``n`` is 100000). A figure passes when that value (or 100 times it, a share shown in %)
rounds to it at the figure's own precision (``3.1`` matches ``3.12``, ``944`` matches ``944.15``),
so a figure copied from the wrong row or column fails. A checked README line with no claim, or
with a different number of figures than key paths, is reported too.

Other documents (docs/*.md, hundreds of figures) still get the presence check: a figure passes
when some number in one of the files named rounds to it. That is not a lookup of the right cell:
a small figure can match an unrelated number in a long file.

Run:  python -m benchmarks.check_readme [FILE ...]     (default: README.md and docs/*.md)
Exits 1 with one line per mismatch: ``README.md:LINE: FIGURE not in FILES``.
"""

from __future__ import annotations

import itertools
import json
import re
import sys
from collections.abc import Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results"

_BACKTICK = re.compile(r"`([^`\s]+)`")
_NUM = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?"
_UNIT = r"(?:ms|messages/s|memories/s|msg/s|MB|GB|MiB|s|%)(?![\w/])"
# a run of numbers joined by / – → - (a p50 / p95 pair, a range, a before → after) ending in a unit
_PROSE_RUN = re.compile(rf"(?<![\w.\-/])((?:{_NUM})(?:\s*(?:/|–|→|-)\s*(?:{_NUM}))*)\s*{_UNIT}")
_TABLE_NUM = re.compile(rf"(?<![\w.\-≤≥<>=])(?<![≤≥<>]\s)({_NUM})(?![\w.]|,\d)")
_FILE_NUM = re.compile(_NUM)


def _expand(token: str) -> list[str]:
    """``writer-{sqlite,neo4j}.txt`` -> both names."""
    m = re.search(r"\{([^}]*)\}", token)
    if not m:
        return [token]
    return list(itertools.chain.from_iterable(
        _expand(token[: m.start()] + alt + token[m.end():]) for alt in m.group(1).split(",")))


def named_files(text: str, results: Path = RESULTS) -> tuple[list[Path], list[str]]:
    """The results files a line names in backticks, and the names given that do not exist."""
    found: list[Path] = []
    missing: list[str] = []
    for token in _BACKTICK.findall(text):
        if not re.search(r"\.(txt|json|\{[a-z,]+\})$", token):
            continue
        for name in _expand(token):
            explicit = "benchmarks/results/" in name
            base = name.split("benchmarks/results/")[-1] if explicit else name
            if "/" in base:
                continue
            hits = sorted(results.glob("*" + base)) if base.startswith("-") else (
                [results / base] if (results / base).is_file() else [])
            if hits:
                found.extend(hits)
            elif explicit:
                missing.append(name)
    return found, missing


def _value(s: str) -> tuple[float, int]:
    s = s.replace(",", "")
    return float(s), len(s.split(".")[1]) if "." in s else 0


def _present(figure: str, numbers: Iterable[float]) -> bool:
    x, places = _value(figure)
    tol = 0.5 * 10 ** -places + 1e-9
    return any(abs(y - x) <= tol for y in numbers)


_LOCOMO = {"hashing": "locomo-sqlite-hashing.json",
           "minilm": "locomo-sqlite-sentence-transformers-all-MiniLM-L6-v2.json",
           "neo4j": "locomo-neo4j-hashing.json"}
_MINILM = "sentence-transformers:all-MiniLM-L6-v2"


def _recall_at(file: str, system: str) -> list[str]:
    return [f"{file}:systems/{system}/overall/r@{k}" for k in (5, 10, 25)]


def _writer(file: str) -> list[str]:
    run = f"{file}:runs/[n=100000]"
    return [f"{run}/recall/p50_ms", f"{run}/recall/p95_ms", f"{run}/remember_1/p50_ms",
            f"{run}/remember_1/p95_ms", f"{run}/preload/messages_per_s"]


# README.md line (a piece of its text) -> one key path per figure on it, in order.
CLAIMS: dict[str, list[tuple[str, list[str]]]] = {
    "README.md": [
        ("| dualmem, SQLite, hashing embedder (default) |",
         _recall_at(_LOCOMO["hashing"], "dualmem") + _writer("writer-sqlite-100k-57ee215.json")),
        ("| dualmem, SQLite, all-MiniLM-L6-v2 |", _recall_at(_LOCOMO["minilm"], "dualmem")),
        ("| dualmem, Neo4j, hashing embedder |",
         _recall_at(_LOCOMO["neo4j"], "dualmem") + _writer("writer-neo4j.json")),
        ('| BM25 over "speaker: text" |', _recall_at(_LOCOMO["hashing"], "bm25")),
        ("| BM25, each turn with the two before and one after |",
         _recall_at(_LOCOMO["hashing"], "bm25+context")),
        ("| MiniLM cosine over turns |", _recall_at(_LOCOMO["minilm"], "cosine")),
        ("| rank fusion of BM25 and MiniLM |", _recall_at(_LOCOMO["minilm"], "rrf(bm25,cosine)")),
        ("held-out part scores recall@5",
         [f"eval-sqlite.json:[embedder={_MINILM}]/parts/heldout/after/recall@5",
          f"eval-sqlite.json:[embedder={_MINILM}]/parts/heldout/after/stale_first_rate"]),
        ("the first hit tells the current value for",
         ["texting-sqlite.json:summary/on heldout/present/first_right"]),
    ],
}


def _lookup(data: object, path: str) -> object:
    for step in path.split("/"):
        m = re.fullmatch(r"\[(\w+)=([^\]]+)\]", step)
        if m and isinstance(data, list):
            [data] = [item for item in data if str(item.get(m.group(1))) == m.group(2)]
        elif isinstance(data, dict) and step in data:
            data = data[step]
        else:
            raise KeyError(step)
    return data


def _claimed(figure: str, claim: str, use: list[Path], results: Path) -> str | None:
    """None when the value at ``claim`` (FILE.json:key/path) rounds to ``figure``, else why not."""
    file, _, path = claim.partition(":")
    if Path(file).stem not in {f.stem for f in use}:
        return f"{figure} claims {file}, which the line does not name"
    try:
        value = _lookup(json.loads((results / file).read_text(encoding="utf-8")), path)
    except (OSError, ValueError, KeyError) as exc:
        return f"{figure} claims {claim}, which is not there ({exc!r})"
    shown = (value, value * 100) if isinstance(value, int | float) else ()  # a share may be shown in %
    if not any(_present(figure, [v]) for v in shown):
        return f"{figure} is not {claim} ({value})"
    return None


def _check_claims(figures: list[str], line: str, claims: list[tuple[str, list[str]]], where: str,
                  use: list[Path], results: Path) -> list[str]:
    mine = [paths for marker, paths in claims if marker in line]
    if len(mine) != 1:
        return [f"{where}: {', '.join(figures)}: {len(mine)} claims in CLAIMS of benchmarks/check_readme.py "
                "match this line (one is needed: a key path per figure)"]
    if len(mine[0]) != len(figures):
        return [f"{where}: {len(figures)} figures ({', '.join(figures)}) against {len(mine[0])} key paths"]
    return [f"{where}: {why}" for fig, claim in zip(figures, mine[0], strict=True)
            if (why := _claimed(fig, claim, use, results))]


_cache: dict[Path, list[float]] = {}


def _numbers(path: Path) -> list[float]:
    if path not in _cache:
        _cache[path] = [_value(m)[0] for m in _FILE_NUM.findall(path.read_text(encoding="utf-8"))]
    return _cache[path]


def prose_figures(line: str) -> list[str]:
    """The figures of a prose line that carry a unit (with the rest of their run)."""
    code_free = _BACKTICK.sub(" ", line)
    return [n for run in _PROSE_RUN.findall(code_free) for n in re.findall(_NUM, run)]


def table_figures(row: str) -> list[str]:
    """The figures of a table data row (size labels, targets, labels like p95 left out)."""
    code_free = _BACKTICK.sub(" ", row)
    return _TABLE_NUM.findall(code_free)


def _is_separator(line: str) -> bool:
    return bool(re.fullmatch(r"\s*\|[\s|:\-]+\|\s*", line))


def check_text(text: str, name: str = "README.md", results: Path = RESULTS,
               claims: dict[str, list[tuple[str, list[str]]]] | None = None) -> list[str]:
    """One message per figure not found in the results files it is written beside (in ``name``'s
    claimed key path, when ``claims``, by default ``CLAIMS``, has ``name``)."""
    claims = CLAIMS if claims is None else claims
    problems: list[str] = []
    caption: list[Path] = []      # files named by the caption of the current (or last) table
    paragraph: list[Path] = []    # files named by the paragraph being read
    prose_seen = False            # a paragraph of text since the last blank line
    last_block = "table"          # the block before this one: "prose" or "table"
    last_paragraph: list[Path] = []
    prev_table = False
    in_code = False
    for i, line in enumerate(text.splitlines(), 1):
        if line.lstrip().startswith("```"):
            in_code = not in_code
            continue
        if in_code:
            continue
        files, missing = named_files(line, results)
        problems += [f"{name}:{i}: names {m}, which does not exist" for m in missing]
        table = line.lstrip().startswith("|")
        if table:
            start = not prev_table
            prev_table = True
            if start:
                if prose_seen:            # caption right above, no blank line
                    caption = paragraph
                elif last_block == "prose":
                    caption = last_paragraph
                last_block = "table"
                continue                  # the header row: labels, not figures
            if _is_separator(line) or not (caption or files):
                continue
            figures = table_figures(line)
            use = sorted(set(caption) | set(files))
        else:
            prev_table = False
            if not line.strip():
                if prose_seen:
                    last_paragraph, last_block = paragraph, "prose"
                paragraph, prose_seen = [], False
                continue
            prose_seen = True
            paragraph = paragraph + files
            if not files:
                continue
            figures = prose_figures(line)
            use = files
        if name in claims and figures:
            problems += _check_claims(figures, line, claims[name], f"{name}:{i}", use, results)
            continue
        pool = [y for f in use for y in _numbers(f)]
        for fig in figures:
            if not _present(fig, pool):
                problems.append(f"{name}:{i}: {fig} not in {', '.join(f.name for f in use)}")
    return problems


def main(argv: list[str] | None = None) -> int:
    args = argv if argv is not None else sys.argv[1:]
    paths = [Path(a) for a in args] or [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    problems: list[str] = []
    for p in paths:
        rel = p.resolve().relative_to(ROOT) if p.resolve().is_relative_to(ROOT) else p
        problems += check_text(p.read_text(encoding="utf-8"), str(rel))
    for msg in problems:
        print(msg)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
