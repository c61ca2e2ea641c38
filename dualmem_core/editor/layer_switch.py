"""Which of the Editor's optional layers run, as a deployment configures it.

``DUALMEM_EDITOR_LAYERS`` (config file key ``editor_layers``) lists them, comma-separated:
``summaries``, ``topics``, ``intentions``; ``none`` for none. Each is off by default, and
``config.py`` says why (each was measured and did not yet earn its place on every benchmark). A
deployment that wants session summaries, recurring topics or ``upcoming`` turns them on here, and
every place an Editor runs reads the same setting: the CLI's ``edit``, the REST and MCP servers,
and the Dagster assets. Unset, the Editor runs with ``EditorConfig``'s defaults.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import replace

from ..settings import EDITOR_LAYERS as LAYERS
from ..settings import ENV_EDITOR_LAYERS, parse_layers
from .config import EditorConfig

__all__ = ["ENV_EDITOR_LAYERS", "LAYERS", "editor_config", "parse_layers", "with_layers"]


def with_layers(layers: tuple[str, ...], base: EditorConfig | None = None) -> EditorConfig:
    """``base`` (the defaults) with exactly ``layers`` on and the other optional layers off."""
    return replace(base or EditorConfig(), **{name: name in layers for name in LAYERS})


def editor_config(environ: Mapping[str, str] | None = None) -> EditorConfig:
    """The Editor's config as the environment sets its layers; the defaults when it does not."""
    env = os.environ if environ is None else environ
    raw = env.get(ENV_EDITOR_LAYERS, "").strip()
    return with_layers(parse_layers(raw)) if raw else EditorConfig()
