"""The Writer: the fast, inline path that stores messages, extracts candidate facts and recalls them."""
