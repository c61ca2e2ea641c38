"""One small evaluation, printed as canonical JSON: ``python tests/evaluation/one_evaluation.py
URL PREFIX USERS``. The fixture's first USERS dev users, renamed ``PREFIX<user>`` (fresh users
on a shared Neo4j), go through the Writer and the Editor (``evaluate``), then every question is
recalled again.

What differs between two correct runs is taken out: the user prefix, the random salt of the
reproducible ids (``reproducible_ids``: the counter after it must match), the Editor's version
ids hashed from those (numbered in order of first sight), timings and the store's
URL. Everything else, scores to the last bit included, is printed for a byte-for-byte comparison.
"""

from __future__ import annotations

import dataclasses
import json
import sys
from typing import Any

from dualmem_core import Writer, open_store
from dualmem_core.evaluation.fixture import Fixture
from dualmem_core.evaluation.fixture_loading import load_fixture
from dualmem_core.evaluation.harness import K, _as_of, evaluate

PART = "dev"
TIMINGS = ("write_ms", "editor_s")


def renamed(fixture: Fixture, prefix: str, users: int) -> Fixture:
    """The fixture's first ``users`` users, each id prefixed."""
    kept = set(fixture.users()[:users])
    lists = {name: [dataclasses.replace(x, user_id=prefix + x.user_id) for x in getattr(fixture, name)
                    if x.user_id in kept]
             for name in ("messages", "facts", "duplicates", "updates", "entities", "questions")}
    return Fixture(**lists, folder=fixture.folder)


def run(url: str, prefix: str, users: int) -> str:
    fixture = renamed(load_fixture(part=PART), prefix, users)
    with open_store(url) as store:
        result = evaluate(store, fixture, parts=(PART,))
        writer = Writer(store)
        recalled = [[q.id, [dataclasses.asdict(hit) for hit in writer.recall(
            q.question, user_id=q.user_id, k=K, as_of=_as_of(q), record_access=False)]]
            for q in fixture.questions]
    part: dict[str, Any] = {k: v for k, v in vars(result.parts[PART]).items() if k not in TIMINGS}
    salt = next(hit["memory_id"] for _, hits in recalled for hit in hits)[4:16]
    # The Editor names a version it writes by hashing its run's id and the old version's id (both
    # salted): numbered in order of first sight instead, so equal structure still compares equal.
    derived: dict[str, str] = {}
    for _, hits in recalled:
        for hit in hits:
            if not hit["version_id"].startswith(f"ver_{salt}"):
                hit["version_id"] = derived.setdefault(hit["version_id"], f"ver_editor{len(derived)}")
    text = json.dumps({"embedder": result.embedder, "part": part, "recalled": recalled},
                      default=str, sort_keys=True, indent=1)
    return text.replace(salt, "<salt>").replace(prefix, "<user>:")


if __name__ == "__main__":
    sys.stdout.write(run(sys.argv[1], sys.argv[2], int(sys.argv[3])))
