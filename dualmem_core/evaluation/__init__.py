"""Evaluation data: the gold-labelled fixture and its loader."""

from .fixture_loading import load_fixture

__all__ = ["load_fixture"]
