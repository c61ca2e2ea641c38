"""The extractors the Writer can use, and the one it uses by default.

``base.py`` is the interface (``Extractor.extract_batch``), ``rules/`` the rule extractor and
``llm.py`` the LLM extractor. The Writer imports only ``base`` and ``default_extractor``, so the
Writer's core never imports a rule module; the rules are loaded when the default is first made.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .base import Extractor

if TYPE_CHECKING:
    from ...providers.llm import LLM


def default_extractor(llm: LLM | None = None) -> Extractor:
    """The rule extractor, or with ``llm`` the LLM extractor (one call per ``remember``) that
    falls back to the rules on a bad reply."""
    from .rules.extractor import RuleExtractor

    rules = RuleExtractor()  # kept as its own type: the LLM extractor falls back to its ``extract``
    extractor: Extractor = rules
    if llm is not None:
        from .llm import LLMExtractor

        extractor = LLMExtractor(llm, fallback=rules)
    return extractor
