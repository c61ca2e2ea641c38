"""The vocabulary shared by the Writer, recall and the Editor: predicates and the words for them.

``predicates`` names what a fact can say; ``relation_words`` the relation and pet nouns and the words
that are no names; ``question_cues`` the words a question asks for each predicate with;
``statement_words`` the words a message states each predicate's facts in; ``changes`` the words
that tell a change. It is here, below the writer and the Editor, so that recall and the Editor
read English through one package and never through the rule extractor: it imports nothing from
``writer``, ``editor`` or the frontends (only ``store``).
"""
