"""Editor leases: at most one Editor run per user at a time, across processes and machines.

A lease is one record per user in the store (SQLite: a row; Neo4j: a node under a uniqueness
constraint) naming its holder and when it expires, taken and renewed in a write transaction.
A holder that dies stops renewing, so its lease expires; on the same host a dead holder's
lease is taken over at once (its process id is checked), so a killed Editor blocks nobody.
Clocks: expiry compares the acquiring machine's clock with the holder's, so hosts sharing a
store should keep their clocks within a small part of the lease time of each other.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from ..errors import ConflictError, DualmemError, InvalidInput

if TYPE_CHECKING:
    from .base import Store

log = logging.getLogger(__name__)
DEFAULT_LEASE_SECONDS = 60.0  # renewed every third of this while a run lasts
# Owners held by runs in this process: a lease naming this process but no live run is left
# over from a run whose release failed (the store was down), and is taken over at once.
_LIVE: set[str] = set()


@dataclass(frozen=True, slots=True)
class Lease:
    user_id: str
    owner: str  # "host:pid:random", see new_owner()
    expires_at: datetime


def new_owner() -> str:
    """An owner id unique to one run: the host and process (for the liveness check) and a nonce."""
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


def holder_is_dead(owner: str) -> bool:
    """True when ``owner`` ran on this host in a process that no longer exists."""
    host, _, rest = owner.partition(":")
    pid_text = rest.partition(":")[0]
    if host != socket.gethostname() or not pid_text.isdigit():
        return False
    pid = int(pid_text)
    if pid == os.getpid():  # this process: dead unless a run here still holds it
        return owner not in _LIVE
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:  # alive, someone else's
        return False
    return False


def check_ttl(seconds: float) -> timedelta:
    if not isinstance(seconds, int | float) or not 0 < seconds <= 86_400:
        raise InvalidInput(f"lease seconds must be a number in (0, 86400], got {seconds!r}")
    return timedelta(seconds=float(seconds))


def may_take(current: Lease | None, owner: str, now: datetime) -> bool:
    """Whether ``owner`` may (re)take the lease now: free, its own, expired, or a dead holder's."""
    return (current is None or current.owner == owner or current.expires_at <= now
            or holder_is_dead(current.owner))


def refusal(store_url: str, current: Lease) -> ConflictError:
    return ConflictError(
        f"an Editor run for user {current.user_id!r} is already in progress in another process "
        f"({current.owner}, on {store_url}); its lease expires at {current.expires_at.isoformat()} "
        "unless renewed: wait for that run to finish")


class HeldLease:
    """A lease this process holds, renewed in the background until ``release``."""

    def __init__(self, store: Store, user_id: str, seconds: float):
        self.store, self.user_id, self.seconds = store, user_id, seconds
        self.owner = new_owner()
        self.lease = store.acquire_lease(user_id, self.owner, seconds)
        self.renewed_at = time.monotonic()
        self._lock = threading.Lock()  # a renewal never runs after (or during) release
        self._released = False
        _LIVE.add(self.owner)
        _RENEWER.add(self)

    def confirm(self) -> Lease:
        """Renew now, raising ``ConflictError`` if another run took the lease over (this
        process stalled past its expiry): called right before publishing."""
        with self._lock:
            if self._released:
                raise ConflictError(f"the Editor lease of user {self.user_id!r} was already released")
            self.lease = self.store.acquire_lease(self.user_id, self.owner, self.seconds)
            self.renewed_at = time.monotonic()
            return self.lease

    def release(self) -> None:
        """Give the lease back. Best effort: if the store is unreachable now, the lease simply
        expires, and failing here would hide the run's own outcome or error."""
        _RENEWER.discard(self)
        with self._lock:
            self._released = True
        _LIVE.discard(self.owner)
        try:
            self.store.release_lease(self.user_id, self.owner)
        except DualmemError as exc:
            log.warning("could not release the Editor lease of user %r (%s); it expires at %s",
                        self.user_id, exc, self.lease.expires_at.isoformat())


class _Renewer:
    """One background thread renews every lease of this process a third of the way through.

    One thread, not one per run: on SQLite each thread that touches the store opens its own
    connection, kept until the store closes.
    """

    TICK = 0.1  # seconds between looks at the held leases

    def __init__(self) -> None:
        self._held: set[HeldLease] = set()
        self._lock = threading.Lock()
        self._wake = threading.Condition(self._lock)
        self._thread: threading.Thread | None = None

    def add(self, handle: HeldLease) -> None:
        with self._lock:
            self._held.add(handle)
            if self._thread is None:
                self._thread = threading.Thread(target=self._loop, name="dualmem-lease-renewer",
                                                daemon=True)
                self._thread.start()
            self._wake.notify()

    def discard(self, handle: HeldLease) -> None:
        with self._lock:
            self._held.discard(handle)

    def _loop(self) -> None:
        while True:
            with self._lock:
                while not self._held:
                    self._wake.wait()
                due = [h for h in self._held if time.monotonic() - h.renewed_at >= h.seconds / 3]
            for handle in due:
                try:
                    handle.confirm()
                except Exception as exc:  # noqa: BLE001 - confirm() before publishing raises it again
                    log.warning("could not renew the Editor lease of user %r: %s", handle.user_id, exc)
                    self.discard(handle)
            time.sleep(self.TICK)


_RENEWER = _Renewer()


@contextmanager
def held(store: Store, user_id: str, seconds: float = DEFAULT_LEASE_SECONDS) -> Iterator[HeldLease]:
    """Hold the user's lease for a block; ``ConflictError`` when another live holder has it."""
    handle = HeldLease(store, user_id, seconds)
    try:
        yield handle
    finally:
        handle.release()


def expiry(now: datetime, seconds: float) -> datetime:
    return now + check_ttl(seconds)


