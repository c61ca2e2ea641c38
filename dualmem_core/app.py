"""One place that wires a store, the configured providers, a Writer and an Editor together.

Every frontend (the CLI, the MCP server, the REST API) opens its memory through
``service.MemoryService.open``, which calls ``open_services``, so they all read configuration the
same way: an explicit store URL, else ``DUALMEM_STORE``, else the embedded default; providers from
``ProviderConfig`` (environment).
"""

from __future__ import annotations

from dataclasses import dataclass

from .editor import Editor, EditorConfig
from .editor.layer_switch import editor_config as configured_editor
from .providers.cache import ProviderCache
from .providers.config import ProviderConfig, embedder_kind, make_embedder, make_llm, open_cache
from .store import Store, open_store
from .writer.writer import Writer


@dataclass
class Services:
    store: Store
    writer: Writer
    editor: Editor
    cache: ProviderCache | None = None

    def created_note(self) -> str | None:
        """'created a new store at <absolute path>' if opening made it, for a frontend to show once."""
        if not self.store.created:
            return None
        where = getattr(self.store, "path", None)
        return f"created a new store at {where.absolute() if where else self.store.url}"

    def close(self) -> None:
        if self.cache is not None:
            self.cache.close()
        self.store.close()

    def __enter__(self) -> Services:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def open_services(store_url: str | None = None, config: ProviderConfig | None = None, *,
                  create: bool = True, editor_config: EditorConfig | None = None) -> Services:
    """The store at ``store_url`` (or the default), with a Writer and an Editor on it.

    ``create=False`` for a frontend that only reads: a missing store is then an error
    (``StoreNotFound``), not a new empty one. The servers take writes, so they create, and say so
    (``Services.created_note``). ``editor_config`` defaults to the layers ``DUALMEM_EDITOR_LAYERS``
    turns on (``editor/layer_switch.py``)."""
    config = config or ProviderConfig.from_env()
    needs_cache = config.llm_model or embedder_kind(config.embedder)[0] != "hashing"
    cache = open_cache(config) if needs_cache else None
    embedder = make_embedder(config, cache)
    llm = make_llm(config, cache)
    store = open_store(store_url, dimension=embedder.dimension, create=create)
    try:
        editor = Editor(store, llm=llm, config=editor_config or configured_editor())
        return Services(store, Writer(store, embedder=embedder, llm=llm), editor, cache)
    except Exception:
        store.close()
        if cache is not None:
            cache.close()
        raise
