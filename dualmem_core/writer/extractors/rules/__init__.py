"""Rule-based extraction internals: lexicon, clause parsing, object cleaning and the rule tables."""
