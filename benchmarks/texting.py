"""Texting lives: is the current state recalled first, and the past still findable?

``fixtures/texting/lives.json`` holds six short hand-written lives told the way people text (lower
case, abbreviations, dropped subjects, indirect wording), written without reading the extraction
rules. Each life is remembered message by message into a fresh store (one session per message,
``at`` = T0 + its day), optionally cleaned by the Editor, then asked its questions with
``recall(k=5)``.

Scoring. A hit *says* a value when the value occurs in the hit's text, casefolded, as whole words
("ann" is not said by "anna"; "mid-level" is said by "up to mid-level from"). Each question lists
its ``answer`` values and its ``stale`` ones (the other values of the same thing: earlier ones for
a present question, other ones for a past question).

* present / past: the *first said* hit is the first of the 5 that says any answer or stale value.
  *first-right*: it says an answer value (possibly a stale one too, as "moved from X to Y" does);
  *stale-first*: it says only stale values; a question where no hit says either counts as neither
  (a miss). *found@5*: some hit says an answer value.
* multi (a thing with several values at once, e.g. two pets): *found@5* is the share of the answer
  values said by some hit; first-right and stale-first do not apply.

Overall first-right and stale-first are over present + past questions; overall found@5 over all.
By default each life is run twice, without and with the Editor, and both are printed, for each
part of the lives (``part``: "tune", whose misses may be read when working on recall, and
"heldout", read by totals only) and for all.

Run:  python -m benchmarks.texting [--data fixtures/texting/lives.json] [--editor | --no-editor]
          [--embedder hashing] [--out benchmarks/results/texting-sqlite.json]
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import tempfile
from datetime import UTC, datetime, timedelta
from pathlib import Path

from dualmem_core import Editor, Writer, open_store
from dualmem_core.providers import ProviderConfig, make_embedder

T0 = datetime(2025, 1, 6, 19, 0, tzinfo=UTC)
K = 5
KINDS = ("present", "past", "multi")


def says(text: str, value: str) -> bool:
    """The value occurs in the text, casefolded, as whole words."""
    return re.search(rf"(?<!\w){re.escape(value.casefold())}(?!\w)", text.casefold()) is not None


def first_said(hits, answer: list[str], stale: list[str]) -> tuple[int | None, str | None]:
    """(index, "right" | "stale") of the first hit that says an answer or stale value, else (None, None)."""
    for i, hit in enumerate(hits):
        if any(says(hit.text, v) for v in answer):
            return i, "right"
        if any(says(hit.text, v) for v in stale):
            return i, "stale"
    return None, None


def score(question: dict, hits) -> dict:
    """The question's scores on its hits (see the module docstring)."""
    answer, stale = question["answer"], question["stale"]
    said = [v for v in answer if any(says(h.text, v) for h in hits)]
    if question["kind"] == "multi":
        return {"first_right": None, "stale_first": None, "found": len(said) / len(answer),
                "first_rank": None}
    index, verdict = first_said(hits, answer, stale)
    return {"first_right": verdict == "right", "stale_first": verdict == "stale", "found": float(bool(said)),
            "first_rank": index}


def run_life(life: dict, editor: bool, embedder_spec: str) -> list[dict]:
    """Remember one life in a fresh SQLite store, maybe run the Editor, ask its questions."""
    embedder = make_embedder(ProviderConfig(embedder=embedder_spec))
    tmp = Path(tempfile.mkdtemp(prefix="dualmem-texting-"))
    rows = []
    try:
        with open_store(f"sqlite:///{tmp}/t.db", dimension=embedder.dimension) as store:
            writer, user = Writer(store, embedder=embedder), life["user"]
            for i, m in enumerate(life["messages"]):
                writer.remember(m["text"], user_id=user, session_id=f"s{i}", at=T0 + timedelta(days=m["day"]))
            if editor:
                Editor(store).run(user)
            for q in life["questions"]:
                hits = writer.recall(q["question"], user_id=user, k=K, record_access=False)
                s = score(q, hits)
                rows.append({"user": user, "part": life.get("part", "all"), "kind": q["kind"],
                             "question": q["question"],
                             "answer": q["answer"], "stale": q["stale"], **s,
                             "first": None if s["first_rank"] is None else hits[s["first_rank"]].text,
                             "hits": [{"text": h.text, "score": round(h.score, 4), "current": h.current}
                                      for h in hits]})
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return rows


def summarise(rows: list[dict]) -> dict:
    """Per kind and overall: n, first-right %, stale-first %, found@5 %."""
    def pct(values) -> float | None:
        values = [v for v in values if v is not None]
        return round(100 * sum(values) / len(values), 1) if values else None

    groups = {kind: [r for r in rows if r["kind"] == kind] for kind in KINDS}
    groups["overall"] = rows
    return {name: {"n": len(rs), "first_right": pct(r["first_right"] for r in rs),
                   "stale_first": pct(r["stale_first"] for r in rs), "found@5": pct(r["found"] for r in rs)}
            for name, rs in groups.items() if rs}


def render(summaries: dict[str, dict], title: str) -> str:
    cell = lambda v: "-" if v is None else f"{v:.1f}"  # noqa: E731
    head = f"{'editor':<16}{'kind':<10}{'n':>4}{'first-right %':>15}{'stale-first %':>15}{'found@5 %':>11}"
    lines = [title, head]
    for mode, summary in summaries.items():
        for kind, s in summary.items():
            lines.append(f"{mode:<16}{kind:<10}{s['n']:>4}{cell(s['first_right']):>15}"
                         f"{cell(s['stale_first']):>15}{cell(s['found@5']):>11}")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--data", default="fixtures/texting/lives.json")
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--editor", dest="modes", action="store_const", const=("on",),
                      help="only with the Editor (default: without and with)")
    mode.add_argument("--no-editor", dest="modes", action="store_const", const=("off",),
                      help="only without the Editor")
    p.add_argument("--embedder", default="hashing", help="hashing (default), sentence-transformers:<name>")
    p.add_argument("--out", help="JSON path; a .txt of the table is written beside it")
    args = p.parse_args(argv)
    modes = args.modes or ("off", "on")
    lives = json.loads(Path(args.data).read_text())["lives"]
    results = {m: [row for life in lives for row in run_life(life, m == "on", args.embedder)] for m in modes}
    # One table per part and one for all: the tune lives' misses may be read, the held-out ones not.
    parts = sorted({row["part"] for rows in results.values() for row in rows}, key=lambda p: (p != "tune", p))
    summaries = {f"{m} {part}": summarise([r for r in rows if r["part"] == part])
                 for m, rows in results.items() for part in parts} if len(parts) > 1 else {}
    summaries |= {f"{m} all": summarise(rows) for m, rows in results.items()}
    n_messages = sum(len(life["messages"]) for life in lives)
    title = (f"Texting lives: {len(lives)} lives, {n_messages} messages, {len(results[modes[0]])} questions;"
             f" store sqlite, embedder {args.embedder}, recall k={K}")
    text = render(summaries, title)
    print(text)
    if args.out:
        out = Path(args.out)
        out.parent.mkdir(parents=True, exist_ok=True)
        head = subprocess.run(["git", "describe", "--always", "--dirty"], capture_output=True, text=True)
        config = {"data": args.data, "embedder": args.embedder, "modes": list(modes), "k": K,
                  "commit": head.stdout.strip() or None}  # "-dirty": the tree had uncommitted changes
        out.write_text(json.dumps({"config": config, "summary": summaries, "questions": results},
                                  indent=2, ensure_ascii=False) + "\n")
        out.with_suffix(".txt").write_text(text)


if __name__ == "__main__":
    main()
