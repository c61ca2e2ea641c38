"""The rule extractor: ``extractor.RuleExtractor`` and the modules it reads English with.

``preprocess`` cleans a message into sentences and ``clause_split`` cuts them into clauses,
``clauses`` reads a clause's subject and aspect, ``noun_phrases`` and the rule tables
(``patterns``: ``people`` with ``pets``, ``home``, ``work`` with ``jobs``, ``tastes`` with
``food`` and ``pastimes``) make drafts, ``assemble`` turns them into facts; ``dates``,
``truecase``, ``discourse`` and the word lists of ``lexicon`` serve them, ``gates`` and
``regex_syntax`` make their regexes cheap to skip. The Writer's core reaches it only through
``extractors.default_extractor``; recall and the Editor read their words from ``dualmem_core.vocab``.
"""
