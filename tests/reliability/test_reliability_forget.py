"""Forget leaves nothing behind: not in the SQLite file (or its WAL), not in the provider cache,
not in any graph snapshot (the Editor's and the pipeline's Parquet files), and a rollback after
it does not bring it back. Verified by scanning every file for the forgotten text and ids.
"""

from __future__ import annotations

import dataclasses
import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pyarrow.parquet as pq
from leaks import every_file, found_in
from test_reliability_llm import FlakyModel

from dualmem_core import Editor, Writer, open_store
from dualmem_core.editor import EditorConfig
from dualmem_core.editor.invariants import check_graph
from dualmem_core.providers.cache import ProviderCache
from dualmem_core.providers.embedding import CachedEmbedder, HashingEmbedder
from dualmem_core.providers.llm import CachedLLM, OpenAILLM
from dualmem_core.store.snapshot import write_snapshot

T0 = datetime(2025, 5, 1, tzinfo=UTC)
SECRET = "ZEBRA7731QUOKKA"  # one word: tokenizers and indexes keep it whole
FORGOTTEN = f"My locker code is {SECRET} and I live in Lisbon."
KEPT = ["I love ramen.", "My sister Lena lives in Denver.", "I moved to Porto last month.",
        "I work at Acme.", "I live in Porto now."]
# HAND-WRITTEN model reply: a fact that repeats the secret, so the LLM cache holds it too.
REPLY = {"facts": [{"message_index": 0, "text": f"The user's locker code is {SECRET}.", "subject": "user",
                    "predicate": "lives_in", "object": "Lisbon", "valid_from": None, "valid_to": None,
                    "negated": False, "confidence": 0.9}]}


def test_forget_scrubs_the_store_caches_and_every_snapshot_and_rollback_does_not_restore_it(
    tmp_path, monkeypatch, user, backend, request
):
    """On SQLite every file of the store is scanned too; on Neo4j (whose files are the server's)
    what the store answers: the user's export and every run record, journal to metadata."""
    snapshots, store_dir = tmp_path / "snapshots", tmp_path / "store"
    monkeypatch.setenv("DUALMEM_SNAPSHOT_DIR", str(snapshots))
    snapshots.mkdir()
    model = FlakyModel([REPLY, {"facts": []}])
    sqlite = backend == "sqlite"
    url = f"sqlite:///{store_dir / 'memory.db'}" if sqlite else request.getfixturevalue("neo4j_uri")
    store = open_store(url, dimension=384)
    cache = ProviderCache(tmp_path / "cache" / "providers.db")
    try:
        writer = Writer(store, embedder=CachedEmbedder(HashingEmbedder(384), cache),
                        llm=CachedLLM(OpenAILLM("hand-written-model", base_url=model.base_url,
                                                api_key="sk-test", timeout=5, max_retries=0), cache))
        secret = writer.remember([{"role": "user", "content": FORGOTTEN, "source_id": "secret", "at": T0}],
                                 user_id=user)
        assert secret.extractor == "llm"
        for i, text in enumerate(KEPT):
            writer.remember([{"role": "user", "content": text, "source_id": f"k{i}",
                              "at": T0 + timedelta(days=i + 1)}], user_id=user)
        editor = Editor(store, config=EditorConfig())
        first = editor.run(user)  # its snapshot lands under DUALMEM_SNAPSHOT_DIR by default
        assert first.snapshot and Path(first.snapshot).is_relative_to(snapshots)
        # The pipeline's layout too: snapshots/<user>/<run id>/*.parquet, by the asset's function.
        write_snapshot(snapshots / user / "run-pipeline", store.export_graph(user), store.dimension)
        needles = [SECRET]
        assert any(found_in(p, needles) for p in every_file(snapshots)), "the snapshots should hold it"
        assert any(found_in(p, needles) for p in every_file(tmp_path / "cache")), "so should the cache"

        receipt = writer.forget(user_id=user, source_ids=["secret"])
        assert receipt.episode_ids and receipt.memory_ids
        undone = editor.rollback(first.run_id)
        assert undone.kind == "rollback"
        needles += sorted(receipt.deleted_ids)

        assert not [h for h in writer.recall("locker code", user_id=user) if SECRET in h.text]
        graph = store.export_graph(user)
        texts = [e.text for e in graph.episodes] + [v.text for v in graph.versions]
        assert not [t for t in texts if SECRET in t]
        assert {e.source_id for e in graph.episodes} == {f"k{i}" for i in range(len(KEPT))}
        records = json.dumps([dataclasses.asdict(r) for r in store.list_runs(user)], default=str)
        assert len(store.list_runs(user)) == 2 and not [n for n in needles if n in records]
    finally:
        store.close()
        cache.close()
        model.close()
    scanned = every_file(snapshots, tmp_path / "cache") + (every_file(store_dir) if sqlite else [])
    leftovers = {str(p.relative_to(tmp_path)): hits
                 for p in scanned
                 if (hits := found_in(p, needles))}
    assert not leftovers, f"forgotten text or ids still on disk: {leftovers}"
    # What was not forgotten is still in the snapshots.
    kept = [p for p in every_file(snapshots) if p.name == "episodes.parquet"]
    assert kept and all(len(pq.read_table(p)) == len(KEPT) for p in kept)


def test_forgetting_a_user_deletes_their_snapshot_folders(tmp_path, monkeypatch, user, other_user):
    snapshots = tmp_path / "snapshots"
    monkeypatch.setenv("DUALMEM_SNAPSHOT_DIR", str(snapshots))
    snapshots.mkdir()
    store = open_store(f"sqlite:///{tmp_path / 'memory.db'}", dimension=384)
    try:
        writer = Writer(store)
        for who in (user, other_user):
            writer.remember(FORGOTTEN, user_id=who, at=T0)
            Editor(store).run(who)
        assert (snapshots / user).is_dir() and (snapshots / other_user).is_dir()
        writer.forget(user_id=user, everything=True)
        assert not (snapshots / user).exists()
        assert [p.name for p in (snapshots / other_user).iterdir()], "another user's snapshots stay"
        assert store.counts(user)["episodes"] == 0
    finally:
        store.close()


def test_a_forget_while_an_editor_run_is_deciding_is_not_undone_by_its_publish_or_rollback(
    store, backend, tmp_path, monkeypatch, user
):
    """The Editor snapshots the user, the user forgets a message while the stages run, then the
    run publishes (operations on forgotten records are skipped by the store's guards) and is
    rolled back: the forgotten message comes back through neither, nor stays in the snapshot."""
    snapshots = tmp_path / "snapshots"
    monkeypatch.setenv("DUALMEM_SNAPSHOT_DIR", str(snapshots))
    snapshots.mkdir()
    writer = Writer(store)
    messages = [FORGOTTEN, f"{SECRET} is also my wifi password.", *KEPT, "I moved to Lisbon last week."]
    # One source id per message: two texts under one id are refused (they were allowed once).
    writer.remember([{"role": "user", "content": t, "source_id": f"secret{i}" if SECRET in t else f"k{i}",
                      "at": T0 + timedelta(days=i)} for i, t in enumerate(messages)], user_id=user)
    receipts = []

    def forget_meanwhile(stage: str) -> None:
        if stage == "supersede":  # the snapshot is taken and saved; dedupe has decided
            receipts.append(writer.forget(user_id=user, source_ids=["secret0", "secret1"]))

    editor = Editor(store)
    run = editor.run(user, on_stage=forget_meanwhile)
    assert receipts and receipts[0].memory_ids
    forgotten = [SECRET, *sorted(receipts[0].deleted_ids)]
    assert run.applied_at is not None and run.skipped, "some decisions were about forgotten memories"

    def leaks() -> list[str]:
        graph = store.export_graph(user)
        shown = json.dumps([dataclasses.asdict(r) for t in ("episodes", "memories", "versions", "entities",
                                                             "edges") for r in getattr(graph, t)]
                           + [dataclasses.asdict(r) for r in store.list_runs(user)], default=str)
        on_disk = [str(p) for p in every_file(snapshots) if found_in(p, forgotten)]
        return [n for n in forgotten if n in shown] + on_disk

    assert not leaks(), "the publish brought forgotten data back"
    editor.rollback(run.run_id, user_id=user)
    assert not leaks(), "the rollback brought forgotten data back"
    violations = {k: v for k, v in check_graph(store.export_graph(user)).items() if v}
    assert not violations, violations
