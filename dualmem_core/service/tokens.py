"""API tokens for the HTTP frontends (REST, MCP over HTTP): each reaches some users, or all of them.

A token is shown once, when it is made; the file keeps only its SHA-256, so a copy of the file
lets nobody in. The file sits beside the SQLite store it guards (``memory.db`` ->
``memory.db.tokens.json``): tokens belong to one store, and whoever can read the store can read
the memories anyway. For Neo4j there is no local file to sit beside, so it is ``tokens.json`` in
the user's dualmem config directory. ``docs/security.md`` has the threat model.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import json
import os
import secrets
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import unquote, urlsplit

from ..errors import InvalidInput, NotFound, StoreConfigError
from ..store.validate import check_user_id

PREFIX = "dm_"  # recognisable in a config file or a leaked log line
ID_PREFIX = "tok_"
CREATE_HINT = "run 'dualmem token create --user USER' (with the same --store) to make one"


@dataclass(frozen=True)
class Token:
    """One stored token: never the token itself, only its hash."""

    id: str
    label: str
    users: tuple[str, ...]  # empty when all_users
    all_users: bool
    created: str  # ISO 8601 UTC
    sha256: str

    def reaches(self, user_id: str) -> bool:
        return self.all_users or user_id in self.users

    def scope(self) -> str:
        return "all users" if self.all_users else ", ".join(self.users)


def digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def tokens_path(store_url: str | None = None) -> Path:
    """Where the tokens of the store at ``store_url`` (default: ``DUALMEM_STORE``, else the embedded
    default) live; see the module docstring."""
    if store_url is None:
        from ..store import default_store_url

        store_url = default_store_url()
    if store_url.startswith("sqlite:"):
        # the same reading of sqlite URLs as store.open_store: three slashes relative, four absolute
        parts = urlsplit(store_url)
        path = unquote(parts.netloc + parts.path) if parts.netloc else unquote(parts.path)
        path = "/" + path.lstrip("/") if store_url.startswith("sqlite:////") else path.removeprefix("/")
        if path and path != ":memory:":
            return Path(path).absolute().with_name(Path(path).name + ".tokens.json")
    from platformdirs import user_config_dir

    return Path(user_config_dir("dualmem")) / "tokens.json"


class TokenFile:
    """The tokens of one store, read again whenever the file changes (a revoke counts at once)."""

    def __init__(self, path: Path):
        self.path = path
        self._seen: tuple[int, int] | None = None
        self._tokens: tuple[Token, ...] = ()

    def tokens(self) -> tuple[Token, ...]:
        try:
            stat = self.path.stat()
        except FileNotFoundError:
            self._seen, self._tokens = None, ()
            return ()
        if (stat.st_mtime_ns, stat.st_size) != self._seen:
            self._tokens = self._read()
            self._seen = (stat.st_mtime_ns, stat.st_size)
        return self._tokens

    def any(self) -> bool:
        return bool(self.tokens())

    def check(self, presented: str) -> Token | None:
        """The token whose hash matches, compared in constant time against every stored hash."""
        wanted, found = digest(presented), None
        for token in self.tokens():
            if hmac.compare_digest(wanted, token.sha256):  # no early exit: the time says nothing
                found = token
        return found

    def create(self, users: Iterable[str], *, all_users: bool = False, label: str = "") -> tuple[Token, str]:
        """A new token for ``users`` (or every user); returns it with the secret, which is shown once."""
        users = tuple(dict.fromkeys(check_user_id(u) for u in users))
        if all_users == bool(users):
            raise InvalidInput("name the users the token reaches (--user U, repeatable) or pass "
                               "--all-users, not both and not neither")
        secret = PREFIX + secrets.token_urlsafe(32)  # 256 random bits
        token = Token(id=ID_PREFIX + secrets.token_hex(4), label=label, users=users, all_users=all_users,
                      created=datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"), sha256=digest(secret))
        with self._locked():
            self._write((*self.tokens(), token))
        return token, secret

    def revoke(self, token_id: str) -> Token:
        with self._locked():
            gone = [t for t in self.tokens() if t.id == token_id]
            if not gone:
                raise NotFound(f"no token {token_id!r} in {self.path}; 'dualmem token list' shows the ids")
            self._write(tuple(t for t in self.tokens() if t.id != token_id))
        return gone[0]

    @contextmanager
    def _locked(self) -> Iterator[None]:
        """Two ``token create`` at once must not lose one: each reads, adds and writes under a lock
        (an advisory flock where the platform has one)."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            import fcntl
        except ImportError:  # Windows: no flock; concurrent changes there are the operator's care
            yield
            return
        with open(self.path.with_name(self.path.name + ".lock"), "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            self._seen = None  # read again under the lock
            yield

    def _read(self) -> tuple[Token, ...]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
            return tuple(Token(**{**t, "users": tuple(t["users"])}) for t in data["tokens"])
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise StoreConfigError(f"the token file {self.path} cannot be read ({exc}); fix or delete it "
                                   f"and {CREATE_HINT}") from None

    def _write(self, tokens: tuple[Token, ...]) -> None:
        # written whole to a temporary file, then renamed: a reader never sees half a file
        temporary = self.path.with_name(self.path.name + f".{os.getpid()}.tmp")
        text = json.dumps({"tokens": [asdict(t) for t in tokens]}, indent=2) + "\n"
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text)
        os.replace(temporary, self.path)
        self._seen = None


def is_loopback(host: str) -> bool:
    if host.casefold() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def require_tokens_beyond_loopback(host: str, tokens: TokenFile, server: str) -> bool:
    """Whether ``server`` must demand a token: always beyond loopback (where it refuses to start
    without one), and on loopback once any token exists (checked again on every request)."""
    if is_loopback(host):
        return False
    if not tokens.any():
        raise InvalidInput(
            f"refusing to serve {server} on {host}: beyond loopback every request needs an API token, and "
            f"there is none in {tokens.path}; {CREATE_HINT}, or bind 127.0.0.1")
    return True
