"""How right the layered profile's lasting part is on the evaluation fixture (issue 35, L4).

Gold "lasting" facts are the fixture's current multi-valued facts about the user whose gold sources
lie in two or more sessions. For each user the conversation is written with the default (rule)
extractor, the lasting part read, then read again after an Editor run with the topics stage on and
the topics' turns counted as evidence (``--no-topics``: neither). An entry is *right* when it
matches a gold lasting fact (same predicate, value and polarity; the value matched whole-word either
way, "hiking" in "hiking in the Alps"), *true* when it matches another current gold fact (told once
in gold, or a value the extractor shortened), else *wrong*.

    .venv/bin/python -m benchmarks.profile_layers [--parts tune] [--store sqlite:///x.db] [--no-topics]
"""

from __future__ import annotations

import argparse
import json
import tempfile
from datetime import UTC
from pathlib import Path

from dualmem_core import Editor, Writer
from dualmem_core.editor import EditorConfig
from dualmem_core.evaluation import load_fixture
from dualmem_core.evaluation.fixture import Fixture
from dualmem_core.providers import HashingEmbedder
from dualmem_core.store import open_store
from dualmem_core.store.models import reproducible_ids
from dualmem_core.vocab import predicates
from dualmem_core.writer.profile import LastingEntry
from dualmem_core.writer.profile import _may_last as may_last
from dualmem_core.writer.profile import _names as names

Key = tuple[str, str, bool]


def gold(fixture: Fixture, user: str) -> tuple[set[Key], set[Key]]:
    """(lasting, every current multi-valued fact about the user) as (predicate, value, negated)."""
    session = {m.source_id: m.session_id for m in fixture.messages_of(user)}
    lasting, current = set(), set()
    for f in fixture.facts_of(user):
        if f.subject != "user" or not f.current or not may_last(f.predicate):
            continue
        key = (predicates.canonical(f.predicate), f.object, f.negated)
        current.add(key)
        if len({session[s] for s in f.sources}) >= 2:
            lasting.add(key)
    return lasting, current


def matches(entry: LastingEntry, keys: set[Key]) -> bool:
    return any(p == entry.predicate and n == entry.negated
               and (names(v, entry.value) or names(entry.value, v)) for p, v, n in keys)


def score(entries: list[LastingEntry], lasting: set[Key], current: set[Key]) -> dict[str, int]:
    right = [e for e in entries if matches(e, lasting)]
    true = [e for e in entries if e not in right and matches(e, current)]
    found = sum(any(matches(e, {k}) for e in entries) for k in lasting)
    return {"entries": len(entries), "right": len(right), "true": len(true),
            "wrong": len(entries) - len(right) - len(true), "gold_lasting": len(lasting), "gold_found": found}


def run(url: str, parts: tuple[str, ...], topics: bool) -> dict:
    fixture = load_fixture()
    out: dict = {}
    with open_store(url) as store, reproducible_ids():
        writer = Writer(store, embedder=HashingEmbedder())
        editor = Editor(store, config=EditorConfig(topics=topics))
        for part in parts:
            for user in fixture.users(part):
                store.delete_user(user)
                for m in fixture.messages_of(user):
                    writer.remember(m.content, user_id=user, session_id=m.session_id,
                                    at=m.at.astimezone(UTC), source_id=m.source_id, role=m.role)
                writer.flush()
                lasting, current = gold(fixture, user)
                before = score(writer.layered_profile(user).lasting, lasting, current)
                editor.run(user)
                after = writer.layered_profile(user, topic_evidence=topics).lasting
                out[user] = {"part": part, "before_editor": before,
                             "after_editor": score(after, lasting, current)}
                if part == "tune":  # only tune is read (docs/evaluation.md): dev and heldout are scored
                    out[user]["lasting"] = [f"{e.predicate} {e.value} ({e.occasions})" for e in after]
                    out[user]["wrong"] = [f"{e.predicate} {e.value}" for e in after
                                          if not matches(e, current)]
                    out[user]["missed"] = [" ".join(map(str, k)) for k in sorted(lasting)
                                           if not any(matches(e, {k}) for e in after)]
        writer.close()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--parts", default="tune", help="comma-separated fixture parts (default: tune)")
    parser.add_argument("--store", help="store URL (default: a fresh SQLite file)")
    parser.add_argument("--no-topics", action="store_true", help="run the Editor without its topics stage")
    args = parser.parse_args()
    url = args.store or f"sqlite:///{Path(tempfile.mkdtemp()) / 'profile.db'}"
    per_user = run(url, tuple(args.parts.split(",")), not args.no_topics)
    for when in ("before_editor", "after_editor"):
        totals: dict[str, int] = {}
        for row in per_user.values():
            for name, n in row[when].items():
                totals[name] = totals.get(name, 0) + n
        print(when, json.dumps(totals))
    print(json.dumps(per_user, indent=1))


if __name__ == "__main__":
    main()
