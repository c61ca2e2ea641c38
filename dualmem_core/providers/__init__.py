"""Model providers (embedders and LLMs) behind small interfaces, with a shared replayable cache.

See ``config.py`` for the environment variables, ``cache.py`` for the cache modes.
"""

from .cache import CacheMode, CacheStats, ProviderCache
from .cache_format import cache_key, text_hash
from .config import ProviderConfig, default_cache_path, make_embedder, make_llm, open_cache
from .embedding import CachedEmbedder, Embedder, HashingEmbedder, OpenAIEmbedder
from .json_schema import check_schema, validate
from .llm import LLM, CachedLLM, LLMReply, OpenAILLM, Usage, UsageMeter
from .local_embedding import SentenceTransformerEmbedder

__all__ = [
    "LLM",
    "CacheMode",
    "CacheStats",
    "CachedEmbedder",
    "CachedLLM",
    "Embedder",
    "HashingEmbedder",
    "LLMReply",
    "OpenAIEmbedder",
    "OpenAILLM",
    "ProviderCache",
    "ProviderConfig",
    "SentenceTransformerEmbedder",
    "Usage",
    "UsageMeter",
    "cache_key",
    "check_schema",
    "default_cache_path",
    "make_embedder",
    "make_llm",
    "open_cache",
    "text_hash",
    "validate",
]
