"""The intentions stage's asset counts the plans it kept, dated or not, and those it closed; the
change set with intentions in it passes the blocking invariant checks."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from dualmem_core import Writer
from dualmem_core.editor import GraphView, Judge, combine, new_run_id, run_all
from dualmem_core.editor.config import EditorConfig
from dualmem_core.editor.invariants import check_change_set
from dualmem_pipeline.defs.editor.assets import layer_metadata, stage_assets

T = datetime(2026, 3, 4, 12, tzinfo=UTC)


def test_the_intentions_asset_counts_what_it_kept_and_closed(store, user):
    said = ["I'm flying to Lisbon next Friday", "I want to write a novel",
            "I'll fix the leaky tap this weekend", "Fixed the leaky tap! no more dripping"]
    # A minute apart: a message said at the same moment as a plan is not "later" than it, and
    # messages of one moment are taken in id order, which is random.
    Writer(store).remember([{"role": "user", "content": t, "source_id": f"a{i}",
                             "at": T + timedelta(minutes=i)} for i, t in enumerate(said)],
                           user_id=user, session_id="s1")
    view = GraphView(store.export_graph(user))
    results = run_all(view, EditorConfig(intentions=True), Judge(None))
    [intentions] = [r for r in results if r.stage == "intentions"]
    shown = layer_metadata(intentions)
    assert shown["intentions"] == 3 and shown["intentions_done"] == 1 and shown["intentions_dropped"] == 0
    assert 1 <= shown["intentions_with_due_time"] < 3  # Lisbon; the novel has no date
    assert "intentions" in {a.key.path[-1] for a in stage_assets}
    violations = check_change_set(view.graph, combine(view, results, new_run_id()))
    assert not any(violations.values())
