"""Where a frontend's store and models come from: flags, then environment, then a config file.

Precedence, highest first: a command-line flag, an environment variable, the config file, the
default. The config file is TOML, found at ``--config PATH``, else ``DUALMEM_CONFIG``, else
``config.toml`` in the user's config directory (``~/.config/dualmem/`` on Linux) if it exists::

    store = "sqlite:////home/me/dualmem/memory.db"   # DUALMEM_STORE
    store_cache_users = 64                            # DUALMEM_STORE_CACHE_USERS
    allowed_hosts = "memory.internal"                 # DUALMEM_ALLOWED_HOSTS (serve)
    max_message_chars = 100000                        # DUALMEM_MAX_MESSAGE_CHARS
    embedder = "hashing"                              # DUALMEM_EMBEDDER
    editor_layers = "summaries,topics"                # DUALMEM_EDITOR_LAYERS (editor/layer_switch.py)

    [llm]                # DUALMEM_LLM_MODEL, _BASE_URL, _API_KEY, _TIMEOUT, _MAX_RETRIES
    model = "gpt-4o-mini"
    base_url = "http://localhost:11434/v1"
    timeout = 120
    max_retries = 2

    [embed]              # DUALMEM_EMBED_BASE_URL, _API_KEY, _DIMENSION, _BATCH_SIZE
    dimension = 384

    [cache]              # DUALMEM_CACHE, DUALMEM_CACHE_MODE
    path = "/home/me/.cache/dualmem/providers.sqlite"
    mode = "read_write"

Every key stands for the environment variable in its comment, and means the same thing
(``providers/config.py`` documents them). An empty environment variable counts as unset.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from .errors import DualmemError, EditorConfigError, ProviderConfigError, StoreConfigError
from .providers.config import ProviderConfig
from .store import ENV_STORE, default_store_url
from .store.lru import ENV_CACHE_USERS, parse_cache_users
from .store.validate import MAX_TEXT_CHARS

ENV_CONFIG = "DUALMEM_CONFIG"
# names the REST server answers to besides loopback and its bind host (rest/hosts.py)
ENV_ALLOWED_HOSTS = "DUALMEM_ALLOWED_HOSTS"
# the longest message remember takes, in characters, on every frontend (service.MemoryService)
ENV_MAX_MESSAGE_CHARS = "DUALMEM_MAX_MESSAGE_CHARS"
DEFAULT_MAX_MESSAGE_CHARS = 100_000

# the Editor's optional layers, each an ``EditorConfig`` switch of that name (editor/layer_switch.py)
ENV_EDITOR_LAYERS = "DUALMEM_EDITOR_LAYERS"
EDITOR_LAYERS = ("summaries", "topics", "intentions")

# config file key (section.name) -> (environment variable, accepted TOML types)
_STR, _INT, _NUM = (str,), (int,), (int, float)
FILE_KEYS: dict[str, tuple[str, tuple[type, ...]]] = {
    "store": (ENV_STORE, _STR),
    # users whose caches a long-lived process (serve, mcp --http) keeps; see store/lru.py
    "store_cache_users": (ENV_CACHE_USERS, _INT),
    "allowed_hosts": (ENV_ALLOWED_HOSTS, _STR),
    "max_message_chars": (ENV_MAX_MESSAGE_CHARS, _INT),
    "embedder": ("DUALMEM_EMBEDDER", _STR),
    "editor_layers": (ENV_EDITOR_LAYERS, _STR),
    "llm.model": ("DUALMEM_LLM_MODEL", _STR),
    "llm.base_url": ("DUALMEM_LLM_BASE_URL", _STR),
    "llm.api_key": ("DUALMEM_LLM_API_KEY", _STR),
    "llm.timeout": ("DUALMEM_LLM_TIMEOUT", _NUM),
    "llm.max_retries": ("DUALMEM_LLM_MAX_RETRIES", _INT),
    "embed.base_url": ("DUALMEM_EMBED_BASE_URL", _STR),
    "embed.api_key": ("DUALMEM_EMBED_API_KEY", _STR),
    "embed.dimension": ("DUALMEM_EMBED_DIMENSION", _INT),
    "embed.batch_size": ("DUALMEM_EMBED_BATCH_SIZE", _INT),
    "cache.path": ("DUALMEM_CACHE", _STR),
    "cache.mode": ("DUALMEM_CACHE_MODE", _STR),
}
_SECRET_KEYS = {"llm.api_key", "embed.api_key"}


# The Writer's background embedding (``writer/embed_queue.py``): read from the environment by
# every Writer built without an explicit ``EmbedQueueSettings``.
ENV_EMBED_SYNC = "DUALMEM_EMBED_SYNC"  # 1: embed inline in every remember, as before the queue
ENV_EMBED_QUEUE_BATCH = "DUALMEM_EMBED_QUEUE_BATCH"  # texts per model call, at most
ENV_EMBED_QUEUE_WAIT_MS = "DUALMEM_EMBED_QUEUE_WAIT_MS"  # how long a first text waits for others
ENV_EMBED_QUEUE_SIZE = "DUALMEM_EMBED_QUEUE_SIZE"  # texts waiting, at most (then remember waits)
ENV_EMBED_QUEUE_BLOCK_MS = "DUALMEM_EMBED_QUEUE_BLOCK_MS"  # how long; then it embeds inline


@dataclass(frozen=True)
class EmbedQueueSettings:
    """How the Writer embeds new memories with an embedder that is not cheap (one without
    ``cheap = True``, such as a model): in batches, by one background thread of its process.

    ``sync`` embeds inline in every ``remember``, as the hashing embedder always is. The queue
    holds at most ``queue_size`` texts; a ``remember`` that finds it full waits up to
    ``block_ms`` for room, then embeds its own texts inline: never unbounded memory.
    """

    sync: bool = False
    batch_size: int = 64
    max_wait_ms: float = 25.0
    queue_size: int = 4096
    block_ms: float = 50.0
    recover: bool = True  # on open, embed (in the background) what the store holds without a vector

    def __post_init__(self) -> None:
        if self.batch_size < 1 or self.queue_size < 1:
            raise ProviderConfigError("the embedding queue's batch and queue sizes must be at least 1")
        if self.max_wait_ms < 0 or self.block_ms < 0:
            raise ProviderConfigError("the embedding queue's waits must not be negative")

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> EmbedQueueSettings:
        env = os.environ if environ is None else environ

        def value(name: str, kind: type, default: float) -> float:
            raw = env.get(name, "").strip()
            if not raw:
                return default
            try:
                return kind(raw)
            except ValueError:
                raise ProviderConfigError(f"{name}={raw!r} should be a {kind.__name__}") from None

        base = cls()
        sync = env.get(ENV_EMBED_SYNC, "").strip().casefold() in ("1", "true", "yes", "on")
        return cls(sync=sync, batch_size=int(value(ENV_EMBED_QUEUE_BATCH, int, base.batch_size)),
                   max_wait_ms=value(ENV_EMBED_QUEUE_WAIT_MS, float, base.max_wait_ms),
                   queue_size=int(value(ENV_EMBED_QUEUE_SIZE, int, base.queue_size)),
                   block_ms=value(ENV_EMBED_QUEUE_BLOCK_MS, float, base.block_ms))


def max_message_chars(environ: Mapping[str, str] | None = None) -> int:
    """The longest message ``remember`` takes, in characters: ``DUALMEM_MAX_MESSAGE_CHARS``, else
    100,000 (a long chat message is a few thousand). At most the store's own limit per text."""
    env = os.environ if environ is None else environ
    raw = env.get(ENV_MAX_MESSAGE_CHARS, "").strip()
    if not raw:
        return DEFAULT_MAX_MESSAGE_CHARS
    value = int(raw) if raw.isdigit() else 0
    if not 0 < value <= MAX_TEXT_CHARS:
        raise StoreConfigError(
            f"{ENV_MAX_MESSAGE_CHARS}={raw!r} should be a whole number of characters from 1 to "
            f"{MAX_TEXT_CHARS:,} (the store's own limit); the default is {DEFAULT_MAX_MESSAGE_CHARS:,}"
        )
    return value


class ConfigFileError(DualmemError):
    """The config file is missing, is not TOML, or holds an unknown key or a value of the wrong type."""


@dataclass(frozen=True)
class Settings:
    """What a command opens: the store URL and the provider config, with where each value came from."""

    store_url: str
    config: ProviderConfig
    config_file: Path | None = None
    origins: dict[str, str] = field(default_factory=dict)  # variable name -> "flag", "environment", ...
    store_cache_users: int | None = None  # None: the store's default (or its environment variable)
    allowed_hosts: str | None = None  # DUALMEM_ALLOWED_HOSTS, comma-separated; None: loopback and bind host
    max_message_chars: int = DEFAULT_MAX_MESSAGE_CHARS  # DUALMEM_MAX_MESSAGE_CHARS
    editor_layers: tuple[str, ...] | None = None  # DUALMEM_EDITOR_LAYERS; None: the Editor's defaults


def default_config_path() -> Path:
    from platformdirs import user_config_dir

    return Path(user_config_dir("dualmem")) / "config.toml"


def find_config_file(explicit: str | Path | None, environ: Mapping[str, str]) -> Path | None:
    """``explicit``, else ``DUALMEM_CONFIG``, else the default path if it exists. A file named
    explicitly (flag or variable) must exist; the default one is optional."""
    named = explicit if explicit else environ.get(ENV_CONFIG, "").strip()
    if named:
        path = Path(named).expanduser()
        if not path.is_file():
            how = "--config" if explicit else ENV_CONFIG
            raise ConfigFileError(f"config file {path} ({how}) does not exist")
        return path
    path = default_config_path()
    return path if path.is_file() else None


def read_config_file(path: Path) -> dict[str, str]:
    """The file's values as environment variables (name -> string), checked key by key."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise ConfigFileError(f"config file {path} is not valid TOML: {exc}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigFileError(f"cannot read config file {path}: {exc}") from None
    values: dict[str, str] = {}
    for key, value in _flatten(data):
        if key not in FILE_KEYS:
            known = ", ".join(FILE_KEYS)
            raise ConfigFileError(f"config file {path}: unknown key {key!r}; known keys: {known}")
        variable, types = FILE_KEYS[key]
        if isinstance(value, bool) or not isinstance(value, types):
            want = " or ".join(t.__name__ for t in types)
            shown = "***" if key in _SECRET_KEYS else repr(value)
            raise ConfigFileError(f"config file {path}: {key} = {shown} should be a {want}")
        values[variable] = str(value)
    return values


def _flatten(data: Mapping[str, object], prefix: str = "") -> list[tuple[str, object]]:
    items: list[tuple[str, object]] = []
    for name, value in data.items():
        key = f"{prefix}{name}"
        if isinstance(value, Mapping):
            items += _flatten(value, f"{key}.")
        else:
            items.append((key, value))
    return items


def resolve_settings(
    store: str | None = None,
    embedder: str | None = None,
    config_path: str | Path | None = None,
    environ: Mapping[str, str] | None = None,
) -> Settings:
    """The store URL and provider config: flag > environment > config file > default.

    ``store`` and ``embedder`` are the command-line flags (None when not given).
    """
    env = os.environ if environ is None else environ
    path = find_config_file(config_path, env)
    merged: dict[str, str] = {}
    origins: dict[str, str] = {}
    if path is not None:
        for name, value in read_config_file(path).items():
            merged[name], origins[name] = value, f"config file {path}"
    for name, value in env.items():
        if value.strip():
            merged[name], origins[name] = value, "environment"
    for name, flag in ((ENV_STORE, store), ("DUALMEM_EMBEDDER", embedder)):
        if flag:
            merged[name], origins[name] = flag, "flag"
    try:
        config = ProviderConfig.from_env(merged)
    except ProviderConfigError as exc:
        raise ProviderConfigError(_with_origin(str(exc), origins)) from None
    for name in ("DUALMEM_LLM_API_KEY", "DUALMEM_EMBED_API_KEY"):  # from_env's fallback
        if name not in origins and "OPENAI_API_KEY" in origins:
            origins[name] = f"{origins['OPENAI_API_KEY']} (OPENAI_API_KEY)"
    store_url = merged.get(ENV_STORE, "").strip()
    if not store_url:
        store_url, origins[ENV_STORE] = default_store_url(), "default"
    users = merged.get(ENV_CACHE_USERS, "").strip()
    try:  # said now, not when a server opens the store
        users_bound = parse_cache_users(users) if users else None
        longest = max_message_chars(merged)
    except StoreConfigError as exc:
        raise StoreConfigError(_with_origin(str(exc), origins)) from None
    layers = _editor_layers(merged.get(ENV_EDITOR_LAYERS, "").strip(), origins)
    return Settings(store_url, config, path, {k: v for k, v in origins.items() if k.startswith("DUALMEM_")},
                    users_bound, merged.get(ENV_ALLOWED_HOSTS, "").strip() or None, longest, layers)


def _editor_layers(raw: str, origins: Mapping[str, str]) -> tuple[str, ...] | None:
    """The Editor's optional layers the settings name (said now, not at the first Editor run)."""
    if not raw:
        return None
    try:
        return parse_layers(raw)
    except EditorConfigError as exc:
        raise EditorConfigError(_with_origin(str(exc), origins)) from None


def parse_layers(spec: str) -> tuple[str, ...]:
    """The Editor's optional layers ``spec`` names (``DUALMEM_EDITOR_LAYERS``), in the order
    given, without repeats; ``none`` names none. ``editor/layer_switch.py`` turns them on."""
    names = [name.strip().casefold() for name in spec.split(",") if name.strip()]
    if names == ["none"]:
        return ()
    unknown = [name for name in names if name not in EDITOR_LAYERS]
    if unknown or not names:
        what = f"unknown layer {unknown[0]!r}" if unknown else "no layer named"
        raise EditorConfigError(
            f"{ENV_EDITOR_LAYERS}={spec!r}: {what}; name some of {', '.join(EDITOR_LAYERS)}, "
            "comma-separated, or none"
        )
    return tuple(dict.fromkeys(names))


def _with_origin(message: str, origins: Mapping[str, str]) -> str:
    """Say where a bad value was set when it did not come from the environment."""
    for name, origin in origins.items():
        if origin != "environment" and name in message:
            if origin == "flag":
                return f"{message} (from the command line)"
            key = next(k for k, (v, _) in FILE_KEYS.items() if v == name)
            return f"{message} (set as {key} in {origin})"
    return message


def provider_environ(settings: Settings) -> dict[str, str]:
    """The settings as ``DUALMEM_*`` variables, for code that reads ``ProviderConfig.from_env``
    itself (a server started from the CLI then sees the config file's and the flags' values)."""
    c = settings.config
    values: dict[str, object | None] = {
        ENV_STORE: settings.store_url,
        "DUALMEM_EMBEDDER": c.embedder,
        "DUALMEM_LLM_MODEL": c.llm_model,
        "DUALMEM_LLM_BASE_URL": c.llm_base_url,
        "DUALMEM_LLM_API_KEY": c.llm_api_key,
        "DUALMEM_LLM_TIMEOUT": c.llm_timeout,
        "DUALMEM_LLM_MAX_RETRIES": c.llm_max_retries,
        "DUALMEM_EMBED_BASE_URL": c.embed_base_url,
        "DUALMEM_EMBED_API_KEY": c.embed_api_key,
        "DUALMEM_EMBED_DIMENSION": c.embed_dimension,
        "DUALMEM_EMBED_BATCH_SIZE": c.embed_batch_size,
        "DUALMEM_CACHE": c.cache_path,
        "DUALMEM_CACHE_MODE": c.cache_mode.value,
        ENV_CACHE_USERS: settings.store_cache_users,
        ENV_ALLOWED_HOSTS: settings.allowed_hosts,
        ENV_MAX_MESSAGE_CHARS: settings.max_message_chars,
        ENV_EDITOR_LAYERS: (None if settings.editor_layers is None
                                  else ",".join(settings.editor_layers) or "none"),
    }
    return {name: str(value) for name, value in values.items() if value is not None}
