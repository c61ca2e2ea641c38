"""Extraction benchmark: how many of the fixture's gold facts the rule extractor states, and how precisely.

For one part of the evaluation fixture, every user message goes through ``RuleExtractor`` exactly as
``Writer.remember`` hands it over (``fixture_texts`` mirrors the same path). Then, per user:

* recall: gold facts with a source message whose extracted facts include one expressing it: the
  gold object (normalised as the evaluation metrics do) occurs in the fact's text (``any``), and
  also with the gold predicate (``strict``);
* precision: extracted facts that express a gold fact of the same message with the same predicate
  and object (``correct``); ``object only`` have the object but another predicate; facts whose
  predicate the gold never labels (plans, dated events) are ``unjudged`` and left out of precision.

The ``corpus`` part is the hand-written development corpus ``fixtures/extraction/statements.jsonl``
(independent of the evaluation fixture; scored by ``benchmarks/extraction_corpus.py``): recall of its
labelled triples and precision of what is extracted. ``all`` prints the three tables, the held-out one
as a summary only, and the mean extraction time per message.

Each fixture session is read in order with its discourse context
(``writer/extractors/rules/discourse.py``), as the Writer reads it; ``--alone`` reads every message
by itself for comparison. The ``dialogues`` part is the hand-written multi-message corpus
``fixtures/extraction/dialogues.jsonl`` (``benchmarks/extraction_dialogues.py``), read both ways.

Run:  python -m benchmarks.extraction [--part tune|heldout|corpus|dialogues|all] [--alone]
      [--misses] [--extra]
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter

from benchmarks import extraction_corpus, extraction_dialogues
from dualmem_core.evaluation.fixture import GoldFact
from dualmem_core.evaluation.fixture_loading import load_fixture
from dualmem_core.evaluation.metrics import said_in
from dualmem_core.writer.extractors.rules.extractor import RuleExtractor
from dualmem_core.writer.facts import Fact, Message
from dualmem_core.writer.inputs import to_messages
from dualmem_core.writer.sessions import SessionContexts
from dualmem_core.writer.writer import WriterConfig

UNJUDGED = {"plans", "event"}


def _expresses(fact: Fact, gold: GoldFact, strict: bool) -> bool:
    if not said_in(gold.object, fact.text):
        return False
    return not strict or fact.predicate == gold.predicate


def run(part: str, show_misses: bool, show_extra: bool, alone: bool = False) -> dict[str, dict[str, int]]:
    """Score one fixture part; each session is read in order with its discourse context, as the
    Writer reads it (``alone``: every message by itself, as before the context existed)."""
    fixture = load_fixture(part=part)
    extractor = RuleExtractor()
    mined = WriterConfig().extract_roles
    extracted: dict[str, list[Fact]] = {}
    text_of: dict[str, str] = {}
    contexts = SessionContexts()  # as the Writer keeps them: one per session, names per user
    for m in fixture.messages:
        (msg,) = to_messages(m.content, at=m.at, source_id=m.source_id, speaker=None, role=m.role)
        context = None if alone else contexts.get(m.user_id, m.session_id)
        said = Message(msg.text, msg.at, msg.speaker, msg.role)
        if msg.role in mined:
            extracted[m.source_id] = extractor.extract(said, context)
            text_of[m.source_id] = m.content
        elif context is not None and msg.role == "assistant":
            extractor.extract(said, context)  # its question may make the next short answer readable
    gold_predicates = {f.predicate for f in fixture.facts}
    rows: dict[str, dict[str, int]] = {}
    for user in fixture.users():
        facts = fixture.facts_of(user)
        row = Counter()
        row["gold"] = len(facts)
        for f in facts:
            hits = [x for s in f.sources for x in extracted.get(s, [])]
            row["recall_any"] += any(_expresses(x, f, False) for x in hits)
            strict = any(_expresses(x, f, True) for x in hits)
            row["recall_strict"] += strict
            if show_misses and not strict:
                print(f"MISS {user} {f.id} {f.predicate}={f.object!r} [{f.subject}] :: {f.statement}")
                for s in f.sources:
                    print(f"     {s}: {text_of.get(s, '')[:200]}")
                    for x in extracted.get(s, []):
                        print(f"        got {x.predicate}={x.object!r} :: {x.text}")
        by_source: dict[str, list[GoldFact]] = {}
        for f in facts:
            for s in f.sources:
                by_source.setdefault(s, []).append(f)
        for sid, got in extracted.items():
            if not sid.startswith(user + "-"):
                continue
            for x in got:
                row["extracted"] += 1
                golds = by_source.get(sid, [])
                if any(_expresses(x, g, True) for g in golds):
                    row["correct"] += 1
                elif x.predicate in UNJUDGED or x.predicate not in gold_predicates:
                    row["unjudged"] += 1
                elif any(_expresses(x, g, False) for g in golds):
                    row["object_only"] += 1
                    if show_extra:
                        print(f"PRED {sid} {x.predicate}={x.object!r} :: {x.text}  <<{text_of[sid][:160]}")
                else:
                    row["wrong"] += 1
                    if show_extra:
                        print(f"EXTRA {sid} {x.predicate}={x.object!r} :: {x.text}  <<{text_of[sid][:160]}")
        rows[user] = dict(row)
    return rows


def _pct(num: int, den: int) -> str:
    return f"{100 * num / den:.1f}%" if den else "-"


def table(part: str, rows: dict[str, dict[str, int]]) -> str:
    total = Counter()
    for row in rows.values():
        total.update(row)
    lines = [
        f"part {part}",
        "| user | gold | recall (object) | recall (object+predicate) | extracted | correct | object only | "
        "wrong | unjudged | precision |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for user, row in [*rows.items(), ("all", dict(total))]:
        judged = row.get("correct", 0) + row.get("object_only", 0) + row.get("wrong", 0)
        lines.append(
            f"| {user} | {row['gold']}"
            f" | {row.get('recall_any', 0)} ({_pct(row.get('recall_any', 0), row['gold'])})"
            f" | {row.get('recall_strict', 0)} ({_pct(row.get('recall_strict', 0), row['gold'])})"
            f" | {row.get('extracted', 0)} | {row.get('correct', 0)} | {row.get('object_only', 0)}"
            f" | {row.get('wrong', 0)} | {row.get('unjudged', 0)} | {_pct(row.get('correct', 0), judged)} |"
        )
    return "\n".join(lines)


def corpus_table(show_misses: bool, show_extra: bool) -> str:
    result = extraction_corpus.score()
    if show_misses:
        for sid, text, exp, got in result.misses:
            flags = " NEG" if exp.negated else ""
            flags += " ENDED" if exp.ended else ""
            print(f"MISS {sid} ({exp.subject}, {exp.predicate}, {'|'.join(exp.objects)}){flags} << {text}")
            for fact in got:
                print(f"        got {extraction_corpus.describe(fact)}")
    if show_extra:
        for sid, text, fact in result.wrong:
            print(f"EXTRA {sid} {extraction_corpus.describe(fact)} << {text}")
    lines = [
        "part corpus (lower case: every statement lower-cased; run together: each pair joined with no stop)",
        "| variant | statements | expected | found | recall | extracted (judged) | correct | precision |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    corpus = extraction_corpus.load()
    for name in extraction_corpus.VARIANTS:
        statements = extraction_corpus.variant(corpus, name)
        r = result if name == extraction_corpus.VARIANTS[0] else extraction_corpus.score(statements)
        lines.append(
            f"| {name} | {len(statements)} | {r.expected} | {r.found} | {_pct(r.found, r.expected)}"
            f" | {r.extracted} | {r.correct} | {_pct(r.correct, r.extracted)} |"
        )
    return "\n".join(lines)


def dialogues_table(show_misses: bool, show_extra: bool) -> str:
    """The hand-written dialogues, read as conversations and (for comparison) one message at a time."""
    rows = []
    for with_context in (False, True):
        result = extraction_dialogues.score(with_context=with_context)
        if with_context and show_misses:
            for sid, text, exp, got in result.misses:
                print(f"MISS {sid} ({exp.subject}, {exp.predicate}, {'|'.join(exp.objects)}) << {text}")
                for fact in got:
                    print(f"        got {extraction_corpus.describe(fact)}")
        if with_context and show_extra:
            for sid, text, fact in result.wrong:
                print(f"EXTRA {sid} {extraction_corpus.describe(fact)} << {text}")
        rows.append(
            f"| {'with context' if with_context else 'each message alone'}"
            f" | {result.expected} | {result.found}"
            f" | {_pct(result.found, result.expected)} | {result.extracted} | {result.correct}"
            f" | {_pct(result.correct, result.extracted)} |"
        )
    return "\n".join(
        [
            f"part dialogues ({len(extraction_dialogues.load())} dialogues)",
            "| reading | expected | found | recall | extracted (judged) | correct | precision |",
            "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
            *rows,
        ]
    )


def timing(repeats: int = 5) -> str:
    """Mean extraction time per message over the tune part's and the corpus's user messages."""
    extractor = RuleExtractor()
    texts = [m.content for m in load_fixture(part="tune").messages if m.role == "user"]
    texts += [s.text for s in extraction_corpus.load()]
    at = extraction_corpus.SAID_AT
    start = time.perf_counter()
    for _ in range(repeats):
        for text in texts:
            extractor.extract(Message(text, at, "user", "user"))
    elapsed = time.perf_counter() - start
    per_message = 1000 * elapsed / (repeats * len(texts))
    alone = f"extraction: {per_message:.3f} ms per message ({len(texts)} messages)"
    # The tune sessions read as the Writer reads them: in order, with their context, assistant turns heard.
    fixture = load_fixture(part="tune")
    users = sum(m.role == "user" for m in fixture.messages)
    start = time.perf_counter()
    for _ in range(repeats):
        contexts = SessionContexts()  # as the Writer keeps them: one per session, names per user
        for m in fixture.messages:
            if m.role in ("user", "assistant"):
                context = contexts.get(m.user_id, m.session_id)
                extractor.extract(Message(m.content, at, m.role, m.role), context)
    elapsed = time.perf_counter() - start
    per_user = 1000 * elapsed / (repeats * users)
    return f"{alone}\nwith context (tune sessions): {per_user:.3f} ms per user message"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--part", default="tune",
                        choices=("tune", "dev", "heldout", "corpus", "dialogues", "all"))
    parser.add_argument("--alone", action="store_true", help="read every fixture message alone, no context")
    parser.add_argument("--misses", action="store_true", help="print facts not extracted (not held-out)")
    parser.add_argument("--extra", action="store_true", help="print wrong extracted facts (not held-out)")
    args = parser.parse_args(argv)
    parts = ("tune", "corpus", "dialogues", "dev", "heldout") if args.part == "all" else (args.part,)
    for part in parts:
        # The dev and held-out parts are measured, never read: dev chooses between variants by its
        # totals, held-out only reports.
        detail = part not in ("dev", "heldout")
        if part == "corpus":
            print(corpus_table(args.misses, args.extra))
        elif part == "dialogues":
            print(dialogues_table(args.misses, args.extra))
        else:
            print(table(part, run(part, args.misses and detail, args.extra and detail, args.alone)))
    if args.part == "all":
        print(timing())
    return 0


if __name__ == "__main__":
    sys.exit(main())
