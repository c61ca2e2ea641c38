"""Model providers as Dagster resources: the Editor's optional LLM judge, and the embedder."""

import dataclasses

from dagster import ConfigurableResource, InitResourceContext
from pydantic import PrivateAttr

from dualmem_core.providers import Embedder
from dualmem_core.providers.cache import ProviderCache
from dualmem_core.providers.config import (
    ProviderConfig,
    embedder_kind,
    make_embedder,
    make_llm,
    open_cache,
)
from dualmem_core.providers.llm import LLM

from ...env import from_env


class LLMResource(ConfigurableResource):
    """The grey band's second opinion. ``model`` empty means no LLM: the rules decide alone.

    Every call goes through the provider cache (``DUALMEM_CACHE``, ``DUALMEM_CACHE_MODE``).
    """

    model: str = ""
    base_url: str = ""
    api_key: str = ""

    _llm: LLM | None = PrivateAttr(default=None)
    _cache: ProviderCache | None = PrivateAttr(default=None)

    @classmethod
    def from_env(cls) -> "LLMResource":
        return cls(
            model=from_env("DUALMEM_LLM_MODEL"),
            base_url=from_env("DUALMEM_LLM_BASE_URL"),
            api_key=from_env("DUALMEM_LLM_API_KEY"),
        )

    def setup_for_execution(self, context: InitResourceContext) -> None:
        if not self.model:
            return
        env = ProviderConfig.from_env()
        config = dataclasses.replace(
            env,
            llm_model=self.model,
            llm_base_url=self.base_url or env.llm_base_url,
            llm_api_key=self.api_key or env.llm_api_key,
        )
        self._cache = open_cache(config)
        self._llm = make_llm(config, self._cache)

    def teardown_after_execution(self, context: InitResourceContext) -> None:
        if self._cache is not None:
            self._cache.close()
        self._llm, self._cache = None, None

    @property
    def llm(self) -> LLM | None:
        return self._llm


class EmbedderResource(ConfigurableResource):
    """The embedder the Writer uses (``DUALMEM_EMBEDDER``; the hashing embedder by default)."""

    spec: str = ""

    _embedder: Embedder | None = PrivateAttr(default=None)
    _cache: ProviderCache | None = PrivateAttr(default=None)

    @classmethod
    def from_env(cls) -> "EmbedderResource":
        return cls(spec=from_env("DUALMEM_EMBEDDER"))

    def setup_for_execution(self, context: InitResourceContext) -> None:
        env = ProviderConfig.from_env()
        config = dataclasses.replace(env, embedder=self.spec or env.embedder)
        if embedder_kind(config.embedder)[0] != "hashing":  # the hashing embedder is never cached
            self._cache = open_cache(config)
        self._embedder = make_embedder(config, self._cache)

    def teardown_after_execution(self, context: InitResourceContext) -> None:
        if self._cache is not None:
            self._cache.close()
        self._embedder, self._cache = None, None

    @property
    def embedder(self) -> Embedder:
        if self._embedder is None:
            raise RuntimeError("EmbedderResource used outside a Dagster run")
        return self._embedder
