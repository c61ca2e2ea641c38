"""Model providers (embedders, later LLMs) behind small interfaces."""

from .embedding import Embedder, HashingEmbedder

__all__ = ["Embedder", "HashingEmbedder"]
