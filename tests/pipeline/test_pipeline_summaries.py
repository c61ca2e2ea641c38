"""The summaries stage's asset shows how many summaries it made and, with texts shown, one of them;
the change set with summaries in it passes the blocking invariant checks."""

from __future__ import annotations

from datetime import UTC, datetime

from dualmem_core import Writer
from dualmem_core.editor import GraphView, Judge, combine, new_run_id, run_all
from dualmem_core.editor.config import EditorConfig
from dualmem_core.editor.invariants import check_change_set
from dualmem_pipeline.defs.editor.assets import SHOW_TEXTS, layer_metadata

T = datetime(2026, 1, 5, 12, tzinfo=UTC)


def test_the_summaries_asset_shows_count_and_a_sample(store, user, monkeypatch):
    turns = ["Took the puppy to the vet.", "All good, he said.", "Then coffee with Lena.", "Home by six."]
    Writer(store).remember([{"role": "user", "content": t, "speaker": "Ana", "source_id": f"a{i}", "at": T}
                            for i, t in enumerate(turns)], user_id=user, session_id="s1")
    view = GraphView(store.export_graph(user))
    results = run_all(view, EditorConfig(summaries=True, summary_min_turns=3), Judge(None))
    [summaries] = [r for r in results if r.stage == "summaries"]
    hidden = layer_metadata(summaries)
    assert hidden["summaries"] == 1 and hidden["sample_summary"].value == "…"
    monkeypatch.setenv(SHOW_TEXTS, "1")
    assert layer_metadata(summaries)["sample_summary"].value.startswith("Ana: ")
    assert layer_metadata(results[0]) == {}
    violations = check_change_set(view.graph, combine(view, results, new_run_id()))
    assert not any(violations.values())
