"""The rule extractor's exact output on a fixed set of messages, as one SHA-256.

Speed work on the extractor (gates, caches) must leave every fact field identical: subject,
predicate, object, text, times, polarity, confidence, entities, rule. ``benchmarks/extraction_fingerprint.py``
reads the messages (the evaluation fixture, the development corpus and its variants, the held-out
extraction set, the writer benchmark's templates) and hashes the canonical JSON of the facts.

When a change to the rules is MEANT to change output (quality work), refresh the hash and commit it
with the change:

    PYTHONPATH=$PWD python -m benchmarks.extraction_fingerprint --update

``--dump out.json`` writes the facts per message (held-out ones only as hashes) to diff two versions.
"""

from __future__ import annotations

from benchmarks import extraction_fingerprint

EXPECTED = "a7869795143b5f4315ffc3f7223b117faf1965fd0e9a6269040633e9be45a0a7"


def test_extractor_output_is_unchanged() -> None:
    rows = extraction_fingerprint.records()
    assert len(rows) > 4000 and sum(out != "[]" for _, out in rows) > 2000
    assert extraction_fingerprint.fingerprint(rows) == EXPECTED, (
        "the rule extractor's output changed; if on purpose, run "
        "`python -m benchmarks.extraction_fingerprint --update` (see this module's docstring)"
    )
