"""The texting benchmark's scoring on hand-made hits (no store, no quality numbers asserted)."""

import json
from pathlib import Path
from types import SimpleNamespace

from benchmarks.texting import KINDS, first_said, says, score, summarise

ROOT = Path(__file__).resolve().parents[2]


def hits(*texts: str) -> list:
    return [SimpleNamespace(text=t, score=1.0, current=True) for t in texts]


def test_says_whole_words_casefolded():
    assert says("Met Ann today", "ann")
    assert not says("met anna today", "ann")
    assert not says("surfing again", "surf")
    assert says("bumping me up to mid-level!!", "mid-level")
    assert says("biscuit's asleep", "biscuit")
    assert says("moved to Porto, near the river", "near the river")
    assert not says("Hannah", "ann")


def present(answer, stale, kind="present"):
    return {"kind": kind, "question": "q", "answer": answer, "stale": stale}


def test_first_said_skips_hits_that_say_neither():
    hs = hits("nice weather", "living in cardiff", "moved to swansea")
    assert first_said(hs, ["swansea"], ["cardiff"]) == (1, "stale")
    assert first_said(hits("nothing", "at all"), ["swansea"], ["cardiff"]) == (None, None)


def test_stale_first_right_first_and_miss():
    q = present(["swansea"], ["cardiff", "bristol"])
    stale = score(q, hits("still in bristol", "moved to swansea"))
    assert stale["stale_first"] and not stale["first_right"] and stale["found"] == 1.0
    right = score(q, hits("tea", "moved from cardiff to swansea", "cardiff is home"))
    assert right["first_right"] and not right["stale_first"] and right["first_rank"] == 1
    miss = score(q, hits("tea", "coffee"))
    assert not miss["first_right"] and not miss["stale_first"] and miss["found"] == 0.0


def test_multi_is_share_of_values_found():
    q = present(["biscuit", "pudding"], [], kind="multi")
    s = score(q, hits("biscuit knocked my phone", "a rabbit"))
    assert s["found"] == 0.5 and s["first_right"] is None and s["stale_first"] is None


def test_summarise_leaves_multi_out_of_first_right():
    rows = [{"kind": "present", "first_right": True, "stale_first": False, "found": 1.0},
            {"kind": "past", "first_right": False, "stale_first": True, "found": 0.0},
            {"kind": "multi", "first_right": None, "stale_first": None, "found": 0.5}]
    s = summarise(rows)
    assert s["overall"] == {"n": 3, "first_right": 50.0, "stale_first": 50.0, "found@5": 50.0}
    assert s["multi"]["first_right"] is None


def test_lives_values_are_said_by_some_message():
    lives = json.loads((ROOT / "fixtures/texting/lives.json").read_text())["lives"]
    assert len(lives) == 6
    for life in lives:
        assert 12 <= len(life["messages"]) <= 20 and 6 <= len(life["questions"]) <= 10
        texts = [m["text"] for m in life["messages"]]
        for q in life["questions"]:
            assert q["kind"] in KINDS and q["answer"]
            for value in q["answer"] + q["stale"]:
                assert any(says(t, value) for t in texts), (life["user"], q["question"], value)
