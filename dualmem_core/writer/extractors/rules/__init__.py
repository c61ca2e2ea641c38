"""The rule extractor: ``extractor.RuleExtractor`` and the modules it reads English with.

``RuleExtractor`` reads a message and builds on ``clause_reader`` (a clause) and ``verb_reader`` (its
verb phrase), sharing the state of ``message_state``.

``preprocess`` cleans a message into sentences and ``clause_split`` cuts them into clauses,
``clauses`` reads a clause's subject and aspect, ``noun_phrases`` (with ``possessives`` and
``speaker_statements``) and the rule tables (``patterns``: ``people`` with ``pets``, ``home``,
``work`` with ``jobs``, ``tastes`` with ``food`` and ``pastimes``) make drafts, ``assemble`` turns
them into facts; ``dates`` (with ``date_patterns`` and ``date_calendar``), ``truecase``,
``discourse`` and the word lists of ``lexicon`` serve them, ``gates`` and ``regex_syntax`` (on
``regex_tokens``) make their regexes cheap to skip (and ``ascii_twins`` cheaper to run). The
Writer's core reaches it only through
``extractors.default_extractor``; recall and the Editor read their words from ``dualmem_core.vocab``.
"""
