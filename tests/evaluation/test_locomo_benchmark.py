"""The LoCoMo benchmark's metric, date parsing and run, on a tiny invented conversation in its shape."""

from datetime import UTC, datetime

from benchmarks import locomo

SAMPLE = {
    "sample_id": "tiny-1",
    "conversation": {
        "speaker_a": "Wren",
        "speaker_b": "Tobi",
        "session_1_date_time": "9:05 am on 3 February, 2022",
        "session_1": [
            {"speaker": "Wren", "dia_id": "D1:1", "text": "Morning Tobi! How was the weekend?"},
            {"speaker": "Tobi", "dia_id": "D1:2", "text": "Great, I fixed an old lighthouse lamp."},
            {"speaker": "Wren", "dia_id": "D1:3", "text": "Wow. I adopted a ferret called Quillon."},
            {"speaker": "Tobi", "dia_id": "D1:4", "text": "Thanks!"},
            {"speaker": "Wren", "dia_id": "D1:5", "text": "Thanks!", "blip_caption": "a ferret on a rug"},
        ],
        "session_2_date_time": "11:40 pm on 17 March, 2022",
        "session_2": [
            {"speaker": "Tobi", "dia_id": "D2:1", "text": "I signed up for a glassblowing course."},
            {"speaker": "Wren", "dia_id": "D2:2", "text": "Nice, when does it start?"},
            {"speaker": "Tobi", "dia_id": "D2:3", "text": "Next Tuesday, in Bergen."},
            {"speaker": "Wren", "dia_id": "D2:4", "text": "Quillon chewed my sneakers again."},
            {"speaker": "Tobi", "dia_id": "D2:5", "text": "Thanks!"},
        ],
    },
    "qa": [
        {"question": "What is the name of Wren's ferret?", "answer": "Quillon", "evidence": ["D1:3"],
         "category": 4},
        {"question": "Where is Tobi's glassblowing course?", "answer": "Bergen", "evidence": ["D2:1; D2:3"],
         "category": 1},
        {"question": "What did Tobi say about his pet parrot?", "evidence": ["D1:2"], "category": 5},
    ],
}


def test_parse_when():
    assert locomo.parse_when("4:48 pm on 21 July, 2021") == datetime(2021, 7, 21, 16, 48, tzinfo=UTC)
    assert locomo.parse_when("12:03 am on 2 October, 2020") == datetime(2020, 10, 2, 0, 3, tzinfo=UTC)


def test_evidence_ids_normalised():
    assert locomo.evidence_ids(["D4:2; D5:9", "D:7:3", "D12:04", "D", "D4:2"]) == [
        "D4:2", "D5:9", "D7:3", "D12:4"]


def test_recall_counts_distinct_sources():
    ranked = ["D1:1", "D1:1", "D1:2", "D1:1", "D1:3", "D1:4", "D1:5", "D2:1"]
    assert locomo.recall_at(ranked, ["D1:3"], 3) == 1.0  # the repeats of D1:1 take one place
    assert locomo.recall_at(ranked, ["D1:3", "D2:1"], 3) == 0.5
    assert locomo.recall_at(ranked, ["D2:1"], 5) == 0.0  # 6th distinct, though 8th in the list
    assert locomo.recall_at(ranked, ["D2:1"], 6) == 1.0
    assert locomo.recall_at(["D2:1"], ["D2:1", "D1:1"], 5) == 0.5


def test_questions_skip_adversarial():
    qs = locomo.questions(SAMPLE)
    assert [q["category"] for q in qs] == [4, 1]
    assert qs[1]["evidence"] == ["D2:1", "D2:3"]


def test_turns_carry_session_time_and_caption():
    ts = locomo.turns(SAMPLE)
    assert len(ts) == 10 and ts[5]["at"] == datetime(2022, 3, 17, 23, 40, tzinfo=UTC)
    assert ts[4]["text"] == "Thanks! [shares a ferret on a rug]"


def test_run_on_sqlite_with_hashing_embedder():
    result = locomo.run([SAMPLE], store="sqlite", embedder_spec="hashing")
    assert result["messages"] == 10 and result["skipped_questions"] == 1
    assert len(result["latency_ms"]) == 2
    assert set(result["rows"]) == {"dualmem", "bm25", "bm25+context"}
    ferret = result["rows"]["dualmem"][0]
    assert ferret["category"] == 4 and ferret["r@5"] == 1.0  # "Quillon" is said once, in D1:3
    assert result["rows"]["bm25"][0]["r@5"] == 1.0
    summary = locomo.summarise(result)
    assert summary["systems"]["dualmem"]["overall"]["n"] == 2
    assert set(summary["systems"]["dualmem"]) == {"overall", "multi-hop", "single-hop"}
    assert "dualmem" in locomo.render(summary, "tiny")
