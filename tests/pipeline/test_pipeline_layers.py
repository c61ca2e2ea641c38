"""The Dagster side of the Editor's layers: the topics asset counts the topics it made and shows
one title when texts are shown; ``DUALMEM_EDITOR_LAYERS`` turns a layer on in the assets; and
``memory_quality`` shows per-layer numbers (memories, messages under them, and for an evaluation
user the share of its questions' evidence under each layer)."""

from __future__ import annotations

from datetime import timedelta

from test_pipeline_quality import _quality, _say, url  # noqa: F401 (url: a fixture used below)

from dualmem_core.editor import GraphView, Judge, run_all
from dualmem_core.editor.layer_switch import ENV_EDITOR_LAYERS
from dualmem_core.evaluation.layers import layer_numbers, question_evidence
from dualmem_core.evaluation.metrics import StoredUser
from dualmem_core.timeutil import utcnow
from dualmem_pipeline.defs.editor.assets import SHOW_TEXTS, layer_metadata
from tests.editor.test_editor_topics import TOPICS, converse

PLAN = "I'm flying to Lisbon next Friday"  # a training text of the intentions reader: plumbing only


def test_the_topics_asset_counts_its_topics_and_shows_a_title(store, user, monkeypatch):
    converse(store, user)
    results = run_all(GraphView(store.export_graph(user)), TOPICS, Judge(None))
    [topics] = [r for r in results if r.stage == "topics"]
    shown = layer_metadata(topics)
    assert shown["topics"] == 1 and shown["topics_grown"] == 0 and shown["sample_topic"].value == "…"
    monkeypatch.setenv(SHOW_TEXTS, "1")
    assert layer_metadata(topics)["sample_topic"].value.startswith("pottery")


def test_the_setting_turns_a_layer_on_in_the_assets_and_the_check_counts_it(url, monkeypatch):  # noqa: F811
    for user_id in ("alice", "bob"):
        _say(url, user_id, [(PLAN, utcnow() - timedelta(hours=1))])
    _, _, off = _quality(url, "alice")
    assert off["layer.intentions"] == 0 and off["layer.topics"] == 0 and off["layer.summaries.sources"] == 0
    monkeypatch.setenv(ENV_EDITOR_LAYERS, "intentions")
    passed, _, on = _quality(url, "bob")
    assert passed and on["layer.intentions"] == 1 and on["layer.intentions.sources"] == 1
    assert "layer.intentions.evidence_coverage" not in on  # a real user: no gold evidence to cover


def test_evidence_coverage_is_the_share_of_the_answers_messages_under_a_layer(store, user):
    converse(store, user)
    from dualmem_core import Editor

    Editor(store, config=TOPICS).run(user)
    stored = StoredUser(store.export_graph(user))
    pottery = {"s0-0", "s1-0", "s2-0"}
    numbers = layer_numbers(stored, pottery | {"s3-1", "never-said"})
    assert numbers["layer.topics"] == 1 and numbers["layer.topics.sources"] == 3
    assert numbers["layer.topics.evidence_coverage"] == 3 / 5
    assert numbers["layer.summaries.evidence_coverage"] == 0.0
    assert layer_numbers(stored, set())["layer.topics.evidence_coverage"] is None  # nothing to count


def test_a_fixture_users_evidence_is_the_messages_that_told_its_answers():
    from dualmem_core.evaluation.fixture_loading import load_fixture

    fixture = load_fixture()
    evidence = question_evidence(fixture, "t2")
    told = {m.source_id for m in fixture.messages_of("t2")}
    assert evidence and evidence <= told
