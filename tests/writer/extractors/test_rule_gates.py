"""The speed gates in front of the extractor's regexes (``dualmem_core/writer/extractors/rules/gates.py``).

A gate may only skip a pattern that cannot match: these tests check the analysis on patterns built
to be awkward (optional prefixes, case folding, alternations, lookarounds), then check every gated
pattern and every verb rule against many real phrases: whenever the regex matches, the gate lets it.
"""

from __future__ import annotations

import ast
import importlib
import pkgutil
import re
from pathlib import Path

import pytest

from benchmarks import extraction_corpus, extraction_fingerprint
from dualmem_core.evaluation.fixture_loading import load_fixture
from dualmem_core.writer.extractors import rules as rules_package
from dualmem_core.writer.extractors.rules import ascii_twins, date_patterns, dates, gates
from dualmem_core.writer.extractors.rules.patterns import VERB_RULES
from dualmem_core.writer.extractors.rules.preprocess import normalize


def _starts(pattern: str, flags: int = 0) -> str | None:
    chars = gates.first_chars(re.compile(pattern, flags))
    return None if chars is None else "".join(sorted(chars))


def test_first_characters_of_simple_patterns() -> None:
    assert _starts(r"(?:am|is)\s+(?P<o>\w+)") == "ai"
    assert _starts(r"(?:(?:really|so)\s+)?love") == "lrs"  # an optional prefix adds its own first letters
    assert _starts(r"\b(?=x)[A-C]\d") == "ABC"  # zero-width parts are skipped
    assert _starts(r"(?i:ok)") == "Oo"


def test_first_characters_stay_unknown_when_unsure() -> None:
    assert _starts(r"(?:a)?") is None  # matches the empty string, so it matches anywhere
    assert _starts(r".x") is None
    assert _starts(r"[^a]x") is None
    assert _starts(r"\w+") is None
    assert _starts(r"kelvin", re.I) == "Kk"  # ASCII only: the Kelvin sign is a non-ASCII first character
    assert gates.admits(frozenset("Kk"), "\u212aelvin")  # ... which every gate admits


def _needs(pattern: str, flags: int = 0) -> tuple[list[str], bool] | None:
    needs = gates.prefiltered(re.compile(pattern, flags)).needs()
    return None if needs is None else (sorted(needs[0]), needs[1])


def test_required_strings_of_simple_patterns() -> None:
    assert _needs(r"\b(?P<name>[A-Z]\w+)\s+from\s+work\b") == (["from"], False)
    assert _needs(r"(?:do|does|did)\s+(?:not|never)\s+", re.I) == (["never", "not"], True)
    assert _needs(r"\b[Mm]y\s+\w+") == (["My", "my"], False)
    assert _needs(r"\b[Mm]y\s+(?:job|role)\b") == (["job", "role"], False)  # the more selective set
    assert _needs(r"(?:\w+)?x|y") == (["x", "y"], False)
    assert _needs(r"(?:a|\w)b") == (["b"], False)
    assert _needs(r"\w+\s*") is None  # nothing literal is needed
    assert _needs("\u017ftop", re.I) == (["top"], True)  # the long s folds to "s": not a literal to test
    assert re.match("\u017ftop", "stop", re.I)


def test_prefiltered_pattern_answers_like_the_pattern() -> None:
    pattern = re.compile(r"\b(?P<n>[A-Z][a-z]+) from work\b")
    gated = gates.prefiltered(pattern)
    assert isinstance(gated, gates.Prefiltered)
    for text in ("Sam from work said hi", "nothing here", "Ana from work, Bo from work"):
        assert [m[0] for m in gated.finditer(text)] == [m[0] for m in pattern.finditer(text)]
        assert gated.sub("X", text) == pattern.sub("X", text)
        assert bool(gated.search(text)) == bool(pattern.search(text))
        assert gated.split(text) == pattern.split(text)
    assert gated.pattern == pattern.pattern


def _gated_patterns() -> list[tuple[str, re.Pattern[str], gates.Prefiltered]]:
    found = []
    modules = [importlib.import_module("dualmem_core.writer.extractors.rules.dates"),
               importlib.import_module("dualmem_core.writer.extractors.rules.extractor")]
    modules += [importlib.import_module(f"{rules_package.__name__}.{m.name}")
                for m in pkgutil.iter_modules(rules_package.__path__)]
    for module in modules:
        for name, value in vars(module).items():
            if isinstance(value, gates.Prefiltered):
                found.append((f"{module.__name__}.{name}", value._pattern, value))
            elif isinstance(value, tuple):  # tables of (name, pattern) like POSSESSIVE_PATTERNS
                found += [(f"{module.__name__}.{name}[{i}]", p._pattern, p)
                          for i, row in enumerate(value) if isinstance(row, tuple)
                          for p in row if isinstance(p, gates.Prefiltered)]
    return found


def _phrases() -> list[str]:
    """Texts like the ones the patterns see: messages as said, lower-cased and normalized, and every
    tail of them from a word start."""
    texts = [s.text for s in extraction_corpus.load()]
    texts += [m.content for m in load_fixture(part="tune").messages]
    texts += [text for _, text, _ in extraction_fingerprint.writer_messages(400)]
    cases = Path(__file__).parent / "test_extract_rules.py"  # the extractor tests' sentences
    texts += [n.value for n in ast.walk(ast.parse(cases.read_text(encoding="utf-8")))
              if isinstance(n, ast.Constant) and isinstance(n.value, str) and " " in n.value]
    out = set()
    for text in texts:
        for variant in (text, text.lower(), normalize(text)):
            words = variant.split(" ")
            out.update(" ".join(words[i:]) for i in range(len(words)))
    return sorted(out)


@pytest.fixture(scope="module")
def phrases() -> list[str]:
    return _phrases()


def test_every_gated_pattern_is_let_through_when_it_matches(phrases: list[str]) -> None:
    gated = _gated_patterns()
    assert len(gated) >= 20
    for name, pattern, wrapper in gated:
        for text in phrases:
            if pattern.search(text) is not None:
                assert wrapper.possible(text), f"{name} matches {text!r} but its gate refused it"


def test_every_verb_rule_is_let_through_when_it_matches(phrases: list[str]) -> None:
    for rule in VERB_RULES:
        starts = gates.first_chars(rule.pattern)
        for text in phrases:
            if rule.pattern.match(text) is not None:
                assert gates.admits(starts, text), f"{rule.name} matches {text!r} but its gate refused it"


def test_ascii_twin_refuses_what_ascii_rules_would_read_differently() -> None:
    assert ascii_twins.ascii_twin(re.compile(r"\bweek\s+ago\b", re.I)) is not None
    assert ascii_twins.ascii_twin(re.compile("\u212aelvin", re.I)) is None  # the Kelvin sign folds to "k"
    assert ascii_twins.ascii_twin(re.compile("[\u00c0-\u017f]+", re.I)) is None  # the range holds the long s
    assert ascii_twins.ascii_twin(re.compile(r"(?u)x")) is None
    assert ascii_twins.plain_ascii("I moved to Lima in 2019")
    assert not ascii_twins.plain_ascii("I moved to Lim\u00e1")
    assert not ascii_twins.plain_ascii("in\x1c2019")  # Unicode \s matches the separator, ASCII \s does not
    assert re.search(r"in\s2019", "in\x1c2019") and not re.search(r"in\s2019", "in\x1c2019", re.A)


def test_ascii_twins_find_what_their_patterns_find(phrases: list[str]) -> None:
    ranked = zip(date_patterns._RANKED, date_patterns._RANKED_ASCII, strict=True)
    pairs = [(p, t) for (_, p, _), (_, t, _) in ranked]
    pairs += [(dates._PREFIX, dates._PREFIX_ASCII), (dates._FUTURE_WORDS, dates._FUTURE_WORDS_ASCII),
              (date_patterns._DATE_CONTEXT, date_patterns._DATE_CONTEXT_ASCII)]
    assert all(twin is not pattern and twin.flags & re.ASCII for pattern, twin in pairs)
    texts = [t for t in phrases if ascii_twins.plain_ascii(t)]
    texts += [t[:i] for t in texts[::50] for i in range(1, min(len(t), 30))]  # the prefix scans see text ends
    for pattern, twin in pairs:
        for text in texts:
            assert [(m.span(), m.groups()) for m in pattern.finditer(text)] == [
                (m.span(), m.groups()) for m in twin.finditer(text)
            ], f"{pattern.pattern[:60]!r} on {text!r}"


def test_every_auxiliary_pattern_is_let_through_when_it_matches(phrases: list[str]) -> None:
    from dualmem_core.writer.extractors.rules import clauses

    patterns = (clauses._USED_TO, clauses._NO_LONGER, clauses._DO_NOT, clauses._DO_EMPHATIC, clauses._NOT,
                clauses._WILL, clauses._GOING_TO, clauses._WOULD_LOVE_TO, clauses._MODAL, clauses._HAVE_TO,
                clauses._CAN, clauses._HAVE, clauses._BE_ING, clauses._HEDGE, clauses._INTENT)
    assert len(patterns) == len(clauses._AUX_STARTS)
    for i, pattern in enumerate(patterns):
        assert clauses._AUX_STARTS[i] == gates.first_chars(pattern)
        for text in phrases:
            if pattern.match(text) is not None:
                assert clauses._aux_gates(text[:1])[i], f"aux pattern {i} matches {text!r}, its gate refused"


def test_every_verb_rule_needs_a_string_its_matches_hold(phrases: list[str]) -> None:
    from dualmem_core.writer.extractors.rules import patterns

    gated = 0
    for index, rule in enumerate(VERB_RULES):
        needs = patterns.rule_needs(index)
        if needs is None:
            continue
        gated += 1
        for text in phrases:
            if rule.pattern.match(text) is not None:
                assert any(s in text for s in needs), f"{rule.name} matches {text!r} without any of {needs}"
    assert gated >= len(VERB_RULES) // 2


def test_every_gated_pattern_matches_at_the_start_like_its_pattern(phrases: list[str]) -> None:
    gated = _gated_patterns()
    assert sum(wrapper.needs() is None for _, _, wrapper in gated) < len(gated)
    for name, pattern, wrapper in gated:
        for text in phrases:
            if pattern.match(text) is not None:
                found = wrapper.match(text)
                assert found is not None and found.span() == pattern.match(text).span(), (
                    f"{name} matches the start of {text!r} but its gate refused it"
                )
