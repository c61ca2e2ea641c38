"""The slot reader: a learned model of what a message tells (which slots, of whom, and whether
it starts, ends or continues a state). See ``model.py``; trained by ``python -m
dualmem_core.slots.train`` from ``fixtures/slots/`` and the evaluation fixture's tune part."""

from __future__ import annotations

from functools import lru_cache

from .model import Telling, default_model

__all__ = ["Telling", "read_message"]


@lru_cache(maxsize=8192)
def read_message(text: str) -> Telling:
    """What ``text`` tells, read once per distinct text in a process (recall reads the same
    messages question after question)."""
    return default_model().read([text])[0]
