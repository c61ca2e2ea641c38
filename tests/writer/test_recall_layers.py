"""Recall through a layer (``candidates._through_layers``) on both stores: the turns a recurring
topic reaches are scored by their own cosine to the question, with a bounded lift for being in a
topic that matches it, so the topic's turn closest to the question comes first.

The conversation is hand-written: Ben keeps returning to his climbing gym across four sessions."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import numpy as np

from dualmem_core import Editor, Writer
from dualmem_core.editor import EditorConfig
from dualmem_core.store import SearchFilter, SearchHit
from dualmem_core.writer import scoring
from dualmem_core.writer.candidates import LAYER_SHARE, _Candidate, _through_layers

T = datetime(2026, 2, 2, 9, tzinfo=UTC)
# A dozen turns: thresholds of a small conversation, as in tests/editor/test_editor_topics.py.
TOPICS = EditorConfig(topics=True, topic_max_share=0.5, topic_similarity=0.2)
SESSIONS = [
    ["Joined the climbing gym near the station.", "The boiler broke again.", "Mia sent photos of her dog."],
    ["At the climbing gym I finally topped the orange route.", "Taxes are due next month.",
     "Cooked a lentil curry."],
    ["Bought new climbing shoes for the gym, half a size smaller.", "My laptop fan is noisy.",
     "Slept nine hours."],
    ["The neighbours are repainting their fence.", "Mia's dog learned to sit.", "Read a novel on the bus."],
]


def test_the_turns_a_topic_reaches_rank_by_their_own_similarity_to_the_question(store, user):
    writer = Writer(store)
    for n, texts in enumerate(SESSIONS):
        turns = [{"role": "user", "content": t, "speaker": "Ben", "source_id": f"s{n}-{i}"}
                 for i, t in enumerate(texts)]
        writer.remember(turns, user_id=user, session_id=f"s{n}", at=T + timedelta(days=7 * n))
    Editor(store, config=TOPICS).run(user)
    [topic] = [m for m in store.export_graph(user).memories if m.kind == "topic"]
    [version] = store.get_versions(user, [topic.id])
    # Only the text list found the topic, so no reached turn has a cosine of its own yet.
    layer = scoring.Signals(cosine=0.4, bm25=2.0, ranks=[1])
    candidates = {version.id: _Candidate(SearchHit(topic, version, 2.0), layer)}
    question = "Which shoes did Ben buy for climbing?"
    query = writer.embedder.embed([question])[0]

    by_text = [SearchHit(topic, version, 2.0)]
    lists = _through_layers(store, SearchFilter(user_id=user), candidates, [[], by_text], query)

    assert lists == [[], []]  # the topic leaves the lists and the candidates: it is a way, not a hit
    reached = {c.hit.memory.id: c for c in candidates.values()}
    turns = store.get_versions(user, list(reached))
    assert len(turns) == len(reached) == 3
    assert all(c.hit.memory.kind == "observation" for c in reached.values())
    unit = query / np.linalg.norm(query)
    for turn in turns:
        own = float(unit @ turn.embedding) / float(np.linalg.norm(turn.embedding))
        share = LAYER_SHARE["topic"]
        expected = max(own, share * layer.cosine + (1 - share) * max(own, 0.0))
        assert abs(reached[turn.memory_id].signals.cosine - expected) < 1e-6
        assert reached[turn.memory_id].signals.bm25 == LAYER_SHARE["topic"] * layer.bm25
    best = max(reached.values(), key=lambda c: c.signals.cosine)
    assert best.hit.version.text.startswith("Bought new climbing shoes")
