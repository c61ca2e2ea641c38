"""dualmem: a two-speed long-term memory for AI agents. The core library; it never imports Dagster."""

from .editor import Editor, EditorConfig, EditorRun
from .errors import (
    ConflictError,
    DimensionMismatch,
    DualmemError,
    InvalidInput,
    NotFound,
    StoreConfigError,
    StoreNotFound,
    StoreUnavailable,
    TenantViolation,
)
from .store import Store, default_store_url, open_store
from .timeutil import FAR_FUTURE
from .writer.writer import Writer, WriterConfig

__all__ = [
    "FAR_FUTURE", "ConflictError", "DimensionMismatch", "DualmemError", "InvalidInput", "NotFound",
    "Store", "StoreConfigError", "StoreNotFound", "StoreUnavailable", "TenantViolation", "default_store_url",
    "open_store", "Writer", "WriterConfig", "Editor", "EditorConfig", "EditorRun",
]
