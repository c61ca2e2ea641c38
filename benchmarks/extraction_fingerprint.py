"""A fingerprint of everything the rule extractor says: one SHA-256 over its facts on a fixed set of messages.

Speed work on the extractor must not change a single output field; this makes any change visible.
The messages (see ``inputs``):

* every message of the evaluation fixture (``fixtures/eval/conversations.jsonl``, all parts, the
  assistant's turns too), read as the user says it at its own time;
* every statement of the development corpus (``fixtures/extraction/statements.jsonl``) at the corpus
  time, lower-cased, at a second time (a leap day, for the date rules), and joined with the next one
  (state carried across sentences);
* the held-out extraction set of ``tests/data/extraction_heldout.jsonl``;
* ``GENERATED`` messages made by ``benchmarks/writer.py``'s seeded templates, as its batches send them.

Held-out material (the fixture's ``dev`` and ``heldout`` parts and the test's held-out set) enters the
fingerprint only as a hash of the extractor's output: neither its text nor its facts are printed or dumped.

Run:  python -m benchmarks.extraction_fingerprint            # print the hash and whether it matches
      python -m benchmarks.extraction_fingerprint --update   # rewrite the hash the test expects
      python -m benchmarks.extraction_fingerprint --dump out.json   # facts per message, for diffing

Output is expected to change on purpose when the rules improve: then run ``--update`` and commit the
new hash together with the rule change.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

from benchmarks import extraction_corpus
from dualmem_core.evaluation.fixture_loading import load_fixture
from dualmem_core.writer.extractors.rules.extractor import RuleExtractor
from dualmem_core.writer.facts import Fact, Message

ROOT = Path(__file__).resolve().parent.parent
TEST = ROOT / "tests" / "writer" / "extractors" / "test_extraction_fingerprint.py"
HELDOUT_SET = ROOT / "tests" / "data" / "extraction_heldout.jsonl"
GENERATED, SEED = 3000, 11
LEAP_DAY = datetime(2024, 2, 29, 23, 30, tzinfo=UTC)  # month ends and year turns for the date rules
_EXPECTED_LINE = re.compile(r'^EXPECTED = "[0-9a-f]*"$', re.M)


@dataclass(frozen=True, slots=True)
class Case:
    id: str
    message: Message
    held_out: bool = False  # only the hash of its output may leave this module


def inputs() -> Iterator[Case]:
    """Every message the fingerprint reads, in a fixed order."""
    for m in load_fixture().messages:
        unread = m.part in ("dev", "heldout")
        yield Case(f"eval/{m.source_id}", Message(m.content, m.at, "user", "user"), unread)
    corpus = extraction_corpus.load()
    at = extraction_corpus.SAID_AT
    for s, after in zip(corpus, [*corpus[1:], corpus[0]], strict=True):
        yield Case(f"corpus/{s.id}", Message(s.text, at, "user", "user"))
        yield Case(f"corpus/{s.id}/lower", Message(s.text.lower(), at, "user", "user"))
        yield Case(f"corpus/{s.id}/leap", Message(s.text, LEAP_DAY, "user", "user"))
        yield Case(f"corpus/{s.id}+{after.id}", Message(f"{s.text} {after.text}", at, "user", "user"))
    with HELDOUT_SET.open(encoding="utf-8") as lines:
        for i, line in enumerate(lines):
            row = json.loads(line)
            yield Case(f"heldout-set/{i}", Message(row["text"], at, row.get("speaker", "user"), "user"), True)
    for i, (role, text, when) in enumerate(writer_messages(GENERATED)):
        yield Case(f"writer/{i}", Message(text, when, role, role))


def writer_messages(count: int, seed: int = SEED) -> list[tuple[str, str, datetime]]:
    """(role, text, time) as ``benchmarks/writer.py`` makes them: templates, 15% assistant turns."""
    from benchmarks import writer  # imported here: it pulls in the store benchmark's dependencies

    rng = random.Random(seed)
    span = timedelta(days=730)
    return [(*writer.message(rng), writer.T0 - span * rng.random()) for _ in range(count)]


def fact_record(fact: Fact) -> dict:
    """Every field of a fact, times as ISO strings and floats as their repr, in a fixed key order."""
    return {
        "text": fact.text,
        "subject": fact.subject,
        "predicate": fact.predicate,
        "object": fact.object,
        "valid_from": fact.valid_from.isoformat() if fact.valid_from else None,
        "valid_to": fact.valid_to.isoformat() if fact.valid_to else None,
        "negated": fact.negated,
        "confidence": repr(fact.confidence),
        "entities": [list(e) for e in fact.entities],
        "rule": fact.rule,
    }


def records(extractor: RuleExtractor | None = None) -> list[tuple[Case, str]]:
    """(case, canonical JSON of its facts) for every case."""
    extractor = extractor or RuleExtractor()
    out = []
    for case in inputs():
        facts = [fact_record(f) for f in extractor.extract(case.message)]
        out.append((case, json.dumps(facts, ensure_ascii=False, sort_keys=True, separators=(",", ":"))))
    return out


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def fingerprint(rows: list[tuple[Case, str]] | None = None) -> str:
    """SHA-256 over every case id with its output's canonical JSON, one line each."""
    rows = records() if rows is None else rows
    return _digest("".join(f"{case.id}\t{_digest(out)}\n" for case, out in rows))


def dump(rows: list[tuple[Case, str]]) -> dict[str, object]:
    """Facts per case for a diff; held-out cases only as the hash of their output."""
    return {case.id: _digest(out) if case.held_out else json.loads(out) for case, out in rows}


def expected() -> str:
    m = _EXPECTED_LINE.search(TEST.read_text(encoding="utf-8"))
    return m[0].split('"')[1] if m else ""


def update(digest: str) -> None:
    source = TEST.read_text(encoding="utf-8")
    if not _EXPECTED_LINE.search(source):
        raise SystemExit(f"no EXPECTED = \"...\" line in {TEST}")
    TEST.write_text(_EXPECTED_LINE.sub(f'EXPECTED = "{digest}"', source, count=1), encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--update", action="store_true", help=f"write the hash into {TEST.name}")
    parser.add_argument("--dump", metavar="PATH", help="write facts per message as JSON (for diffing)")
    args = parser.parse_args(argv)
    rows = records()
    digest = fingerprint(rows)
    if args.dump:
        text = json.dumps(dump(rows), ensure_ascii=False, indent=1)
        Path(args.dump).write_text(text + "\n", encoding="utf-8")
    print(f"{digest}  ({len(rows)} messages, {sum(out != '[]' for _, out in rows)} with facts)")
    if args.update:
        update(digest)
        print(f"wrote it to {TEST.relative_to(ROOT)}")
    elif digest != expected():
        print(f"differs from {TEST.relative_to(ROOT)}: {expected() or '(none)'}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
