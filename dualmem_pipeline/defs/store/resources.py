"""The store as a Dagster resource: one client per run, opened at start and closed at the end."""


from dagster import ConfigurableResource, InitResourceContext
from pydantic import PrivateAttr

from dualmem_core import Store, open_store
from dualmem_core.store import DEFAULT_DIMENSION

from ...env import from_env


class StoreResource(ConfigurableResource):
    """The memory graph. ``url`` empty means ``DUALMEM_STORE``, then the embedded default file.

    Neo4j credentials come from ``NEO4J_USER``/``NEO4J_PASSWORD`` in the environment (or pass
    ``password=EnvVar("NEO4J_PASSWORD")``), never from plain config, so they stay out of run
    metadata and logs.
    """

    url: str = ""
    dimension: int = DEFAULT_DIMENSION
    user: str = ""
    password: str = ""

    _store: Store | None = PrivateAttr(default=None)

    @classmethod
    def from_env(cls) -> "StoreResource":
        """The store ``DUALMEM_STORE`` names, through ``EnvVar``; the embedded file when unset."""
        return cls(url=from_env("DUALMEM_STORE"))

    def setup_for_execution(self, context: InitResourceContext) -> None:
        options = {k: v for k, v in (("user", self.user), ("password", self.password)) if v}
        # The pipeline edits users already stored: a missing store is a wrong URL, not a new one.
        self._store = open_store(self.url or None, dimension=self.dimension, create=False, **options)

    def teardown_after_execution(self, context: InitResourceContext) -> None:
        if self._store is not None:
            self._store.close()
            self._store = None

    @property
    def store(self) -> Store:
        if self._store is None:
            raise RuntimeError("StoreResource used outside a Dagster run")
        return self._store
