"""Provider settings from the environment, and the factories that build providers from them.

Environment variables (an empty value counts as unset):

``DUALMEM_LLM_MODEL``
    the chat model, e.g. ``gpt-4o-mini``; unset means no LLM (``make_llm`` returns None).
``DUALMEM_LLM_BASE_URL``
    root of an OpenAI-compatible API including ``/v1``, e.g. ``http://localhost:11434/v1``;
    unset means OpenAI (or the ``openai`` package's own ``OPENAI_BASE_URL``).
``DUALMEM_LLM_API_KEY``
    the LLM endpoint's key, falling back to ``OPENAI_API_KEY``.
``DUALMEM_LLM_TIMEOUT``, ``DUALMEM_LLM_MAX_RETRIES``
    seconds per request (default 120) and the client's retries (default 2).
``DUALMEM_EMBEDDER``
    ``hashing`` (default; ``hashing:<dimension>`` for another size), ``openai:<model>`` or
    ``sentence-transformers:<name or folder>`` (needs ``pip install 'dualmem[local-embeddings]'``).
``DUALMEM_EMBED_BASE_URL``, ``DUALMEM_EMBED_API_KEY``
    the same as the LLM's, for ``openai:<model>`` embeddings; the key falls back to
    ``OPENAI_API_KEY`` (never to the LLM's key, which may belong to another server).
``DUALMEM_EMBED_DIMENSION``, ``DUALMEM_EMBED_BATCH_SIZE``
    expected vector length (also requested from ``text-embedding-3`` models), texts per request.
``DUALMEM_CACHE``
    the provider cache file; default ``providers.sqlite`` in ``platformdirs.user_cache_dir("dualmem")``.
``DUALMEM_CACHE_MODE``
    ``off``, ``read_write`` (default), ``record`` or ``replay`` (see ``cache.py``).

API keys are kept out of ``repr`` and of every error message.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, fields
from pathlib import Path
from typing import TypeVar

from ..errors import ProviderConfigError
from .cache import CacheMode, ProviderCache, parse_mode
from .embedding import CachedEmbedder, Embedder, HashingEmbedder, OpenAIEmbedder
from .llm import LLM, CachedLLM, OpenAILLM
from .local_embedding import SentenceTransformerEmbedder

DEFAULT_EMBEDDER = "hashing"
_SECRETS = {"llm_api_key", "embed_api_key"}
_Num = TypeVar("_Num", int, float)  # the kind a number setting is parsed as
_Default = TypeVar("_Default", int, float, None)  # its default when unset


def default_cache_path() -> Path:
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("dualmem")) / "providers.sqlite"


@dataclass(frozen=True, repr=False)
class ProviderConfig:
    """Which models to use, where, and how to cache them. ``from_env()`` reads the variables above."""

    llm_model: str | None = None
    llm_base_url: str | None = None
    llm_api_key: str | None = None
    llm_timeout: float = 120.0
    llm_max_retries: int = 2
    embedder: str = DEFAULT_EMBEDDER
    embed_base_url: str | None = None
    embed_api_key: str | None = None
    embed_dimension: int | None = None
    embed_batch_size: int = 128
    cache_path: Path | None = None  # None: default_cache_path()
    cache_mode: CacheMode = CacheMode.READ_WRITE

    def __post_init__(self) -> None:
        object.__setattr__(self, "cache_mode", parse_mode(self.cache_mode))
        embedder_kind(self.embedder)  # fail on a bad spec now, not at first use

    def __repr__(self) -> str:
        shown = []
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name in _SECRETS:
                shown.append(f"{f.name}={'***' if value else None}")
            else:
                shown.append(f"{f.name}={value!r}")
        return f"ProviderConfig({', '.join(shown)})"

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> ProviderConfig:
        env = os.environ if environ is None else environ

        def get(name: str) -> str | None:
            value = env.get(name, "").strip()
            return value or None

        def number(name: str, kind: type[_Num], default: _Default, minimum: float) -> _Num | _Default:
            raw = get(name)
            if raw is None:
                return default
            try:
                value = kind(raw)
            except ValueError:
                raise ProviderConfigError(f"{name}={raw!r} is not a {kind.__name__}") from None
            if not value >= minimum:
                raise ProviderConfigError(f"{name}={raw!r} must be at least {minimum:g}")
            return value

        cache = get("DUALMEM_CACHE")
        return cls(
            llm_model=get("DUALMEM_LLM_MODEL"),
            llm_base_url=get("DUALMEM_LLM_BASE_URL"),
            llm_api_key=get("DUALMEM_LLM_API_KEY") or get("OPENAI_API_KEY"),
            llm_timeout=number("DUALMEM_LLM_TIMEOUT", float, 120.0, 0.001),
            llm_max_retries=number("DUALMEM_LLM_MAX_RETRIES", int, 2, 0),
            embedder=get("DUALMEM_EMBEDDER") or DEFAULT_EMBEDDER,
            embed_base_url=get("DUALMEM_EMBED_BASE_URL"),
            embed_api_key=get("DUALMEM_EMBED_API_KEY") or get("OPENAI_API_KEY"),
            embed_dimension=number("DUALMEM_EMBED_DIMENSION", int, None, 1),
            embed_batch_size=number("DUALMEM_EMBED_BATCH_SIZE", int, 128, 1),
            cache_path=Path(cache).expanduser() if cache else None,
            cache_mode=parse_mode(get("DUALMEM_CACHE_MODE") or CacheMode.READ_WRITE),
        )

    @property
    def resolved_cache_path(self) -> Path:
        return self.cache_path if self.cache_path is not None else default_cache_path()


def embedder_kind(spec: str) -> tuple[str, str]:
    """``("hashing", "384")``, ``("openai", model)`` or ``("sentence-transformers", name)``."""
    kind, _, arg = (spec or "").strip().partition(":")
    kind = kind.strip().lower()
    arg = arg.strip()
    if kind == "hashing":
        if arg and not arg.isdigit():
            raise ProviderConfigError(f"DUALMEM_EMBEDDER={spec!r}: use hashing or hashing:<dimension>")
        return kind, arg or "384"
    if kind in ("openai", "sentence-transformers") and arg:
        return kind, arg
    raise ProviderConfigError(
        f"DUALMEM_EMBEDDER={spec!r} is not understood; use hashing, openai:<model> "
        "(e.g. openai:text-embedding-3-small) or sentence-transformers:<name> "
        "(e.g. sentence-transformers:all-MiniLM-L6-v2)")


def open_cache(config: ProviderConfig) -> ProviderCache:
    """The cache the config names (mode ``off`` opens no file)."""
    if config.cache_mode is CacheMode.OFF:
        return ProviderCache(None, CacheMode.OFF)
    return ProviderCache(config.resolved_cache_path, config.cache_mode)


def make_embedder(config: ProviderConfig, cache: ProviderCache | None = None) -> Embedder:
    """The configured embedder; model-backed ones are wrapped in the cache (``cache``, or the
    one the config names). The hashing embedder is never cached: it is cheap and deterministic."""
    kind, arg = embedder_kind(config.embedder)
    if kind == "hashing":
        return HashingEmbedder(int(arg))
    inner: Embedder
    if kind == "openai":
        inner = OpenAIEmbedder(arg, base_url=config.embed_base_url, api_key=config.embed_api_key,
                               dimension=config.embed_dimension, batch_size=config.embed_batch_size,
                               timeout=config.llm_timeout, max_retries=config.llm_max_retries)
    else:
        inner = SentenceTransformerEmbedder(arg)
    cache = cache if cache is not None else open_cache(config)
    if cache.mode is CacheMode.OFF:
        return inner
    return CachedEmbedder(inner, cache)


def make_llm(config: ProviderConfig, cache: ProviderCache | None = None) -> LLM | None:
    """The configured LLM behind the cache, or None when ``DUALMEM_LLM_MODEL`` is unset."""
    if not config.llm_model:
        return None
    inner = OpenAILLM(config.llm_model, base_url=config.llm_base_url, api_key=config.llm_api_key,
                      timeout=config.llm_timeout, max_retries=config.llm_max_retries)
    cache = cache if cache is not None else open_cache(config)
    if cache.mode is CacheMode.OFF:
        return inner
    return CachedLLM(inner, cache)
