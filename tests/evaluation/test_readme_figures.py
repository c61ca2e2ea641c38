"""README.md and docs/*.md figures agree with the results files they name (benchmarks/check_readme.py);
the README opens with its two commands, and every relative link of the documentation resolves."""

from __future__ import annotations

import re
from pathlib import Path

from benchmarks import check_readme


def _results(tmp_path: Path) -> Path:
    (tmp_path / "bench.txt").write_text(
        "remember 1 message   3.12   5.25\npreload: 965.51 messages/s\npeak 1,717 MB\n")
    return tmp_path


def test_readme_and_docs_figures_match_their_results_files() -> None:
    assert check_readme.main([]) == 0


def test_a_right_figure_passes(tmp_path: Path) -> None:
    text = "remember p50 / p95 3.1 / 5.3 ms, 966 messages/s (`benchmarks/results/bench.txt`)\n"
    assert check_readme.check_text(text, "R.md", results=_results(tmp_path)) == []


def test_a_wrong_figure_in_prose_is_caught(tmp_path: Path) -> None:
    text = "intro\n\nremember p50 / p95 3.1 / 5.9 ms (`benchmarks/results/bench.txt`)\n"
    problems = check_readme.check_text(text, "R.md", results=_results(tmp_path))
    assert problems == ["R.md:3: 5.9 not in bench.txt"]


def test_a_wrong_figure_in_a_table_is_caught(tmp_path: Path) -> None:
    text = (
        "Measured (`bench.txt`):\n\n"
        "| store (≤ 5 ms) | remember p50 / p95 | batched | peak RSS |\n"
        "| --- | ---: | ---: | ---: |\n"
        "| SQLite 100k | 3.1 / 5.3 ms | 966 messages/s | 1,717 MB |\n"
        "| SQLite 100k | 3.1 / 5.3 ms | 986 messages/s | 1.7 GB |\n"
    )
    problems = check_readme.check_text(text, "R.md", results=_results(tmp_path))
    assert problems == ["R.md:6: 986 not in bench.txt", "R.md:6: 1.7 not in bench.txt"]


def test_a_missing_results_file_is_caught(tmp_path: Path) -> None:
    text = "66 / 132 ms (`benchmarks/results/gone.txt`)\n"
    problems = check_readme.check_text(text, "R.md", results=_results(tmp_path))
    assert problems[0] == "R.md:1: names benchmarks/results/gone.txt, which does not exist"


def test_targets_size_labels_and_unsourced_lines_are_not_figures(tmp_path: Path) -> None:
    text = "at 100k, p95 ≤ 10 ms against a target, top-10\n66 / 132 ms with no file\n"
    assert check_readme.check_text(text, results=_results(tmp_path)) == []
    assert check_readme.table_figures("| SQLite 100k | ≤ 30 s: met | p95 9.0 |") == ["9.0"]


def test_the_readme_opens_with_the_two_commands() -> None:
    readme = (check_readme.ROOT / "README.md").read_text(encoding="utf-8")
    block = readme.split("```bash\n", 1)[1].split("```", 1)[0].splitlines()
    assert [line.split("#")[0].strip() for line in block] == ["make demo", "make test"]
    assert readme.index("make demo") < 200  # first thing after the title


def test_every_relative_link_of_the_documentation_resolves() -> None:
    root = check_readme.ROOT
    pages = [root / "README.md", root / "CONTRIBUTING.md", root / "CHANGELOG.md",
             *sorted((root / "docs").rglob("*.md"))]
    broken = []
    for page in pages:
        if not page.exists():
            continue
        for target in re.findall(r"\]\(([^)\s]+)\)", page.read_text(encoding="utf-8")):
            if re.match(r"[a-z]+:|#", target):
                continue
            if not (page.parent / target.split("#")[0]).exists():
                broken.append(f"{page.relative_to(root)}: {target}")
    assert broken == []


def _claimed_results(tmp_path: Path) -> Path:
    (tmp_path / "runs.txt").write_text("a 43.4 3.1\nb 57.9 5.2\n")
    (tmp_path / "runs.json").write_text(
        '{"systems": {"a": {"r@5": 0.434}, "b": {"r@5": 0.579}},'
        ' "runs": [{"n": 10, "ms": 3.1}, {"n": 100, "ms": 5.2}]}')
    return tmp_path


CLAIMED = {"R.md": [("| a |", ["runs.json:systems/a/r@5", "runs.json:runs/[n=100]/ms"]),
                    ("| b |", ["runs.json:systems/b/r@5"])]}
TABLE = "Measured (`runs.txt`):\n\n| system | R@5 | ms |\n| --- | ---: | ---: |\n"


def test_a_readme_figure_is_matched_to_the_result_it_claims(tmp_path: Path) -> None:
    results = _claimed_results(tmp_path)
    right = TABLE + "| a | 43.4 | 5.2 ms |\n| b | 57.9 | – |\n"
    assert check_readme.check_text(right, "R.md", results=results, claims=CLAIMED) == []
    # b's figure in a's row, and the n=10 run's time for the n=100 one: both in the file, both wrong.
    wrong = TABLE + "| a | 57.9 | 3.1 ms |\n| b | 57.9 | – |\n"
    assert check_readme.check_text(wrong, "R.md", results=results, claims=CLAIMED) == [
        "R.md:5: 57.9 is not runs.json:systems/a/r@5 (0.434)",
        "R.md:5: 3.1 is not runs.json:runs/[n=100]/ms (5.2)"]
    # The presence check (a document with no claims) lets both through.
    assert check_readme.check_text(wrong, "R.md", results=results, claims={}) == []


def test_a_readme_line_without_its_claim_is_reported(tmp_path: Path) -> None:
    results = _claimed_results(tmp_path)
    text = TABLE + "| c | 43.4 | – |\n| a | 43.4 | – |\n"
    assert check_readme.check_text(text, "R.md", results=results, claims=CLAIMED) == [
        "R.md:5: 43.4: 0 claims in CLAIMS of benchmarks/check_readme.py match this line "
        "(one is needed: a key path per figure)",
        "R.md:6: 1 figures (43.4) against 2 key paths"]


def test_every_checked_readme_line_has_its_claim() -> None:
    readme = (check_readme.ROOT / "README.md").read_text(encoding="utf-8")
    used = [marker for marker, _ in check_readme.CLAIMS["README.md"] if marker in readme]
    assert used == [marker for marker, _ in check_readme.CLAIMS["README.md"]]  # no stale claim
