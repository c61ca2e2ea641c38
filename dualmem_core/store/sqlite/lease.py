"""Editor leases in the embedded store: one row per user in ``editor_leases`` (see ../lease.py).

Taken inside ``BEGIN IMMEDIATE``, which holds SQLite's write lock from the first statement,
so two processes reading the row and both deciding it is free cannot happen.
"""

from __future__ import annotations

import sqlite3

from ...timeutil import from_micros, to_micros, utcnow
from ..lease import Lease, expiry, may_take, refusal


def acquire(conn: sqlite3.Connection, store_url: str, user_id: str, owner: str, seconds: float) -> Lease:
    """Take or renew the lease in the caller's write transaction, or raise ``ConflictError``."""
    now = utcnow()
    row = conn.execute("SELECT owner, expires_at FROM editor_leases WHERE user_id = ?",
                       (user_id,)).fetchone()
    current = None if row is None else Lease(user_id, row[0], from_micros(row[1]))
    if not may_take(current, owner, now):
        assert current is not None
        raise refusal(store_url, current)
    lease = Lease(user_id, owner, expiry(now, seconds))
    conn.execute("INSERT INTO editor_leases (user_id, owner, acquired_at, expires_at) VALUES (?, ?, ?, ?) "
                 "ON CONFLICT (user_id) DO UPDATE SET owner = excluded.owner, "
                 "acquired_at = excluded.acquired_at, expires_at = excluded.expires_at",
                 (user_id, owner, to_micros(now), to_micros(lease.expires_at)))
    return lease


def release(conn: sqlite3.Connection, user_id: str, owner: str) -> None:
    conn.execute("DELETE FROM editor_leases WHERE user_id = ? AND owner = ?", (user_id, owner))


def clear(conn: sqlite3.Connection, user_id: str) -> None:
    """Forgetting a user forgets their lease too (the owner id names a host)."""
    conn.execute("DELETE FROM editor_leases WHERE user_id = ?", (user_id,))
