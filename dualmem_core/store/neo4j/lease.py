"""Editor leases in Neo4j: one ``EditorLease`` node per user under a uniqueness constraint
(see ../lease.py and schema.py).

MERGE under the constraint never makes two nodes for one user; setting a property first takes
the node's write lock, so the read that follows sees the latest committed holder and a
concurrent acquirer waits for this transaction to end.
"""

from __future__ import annotations

import neo4j

from ...timeutil import utcnow
from ..lease import Lease, expiry, may_take, refusal
from .rows import native_at


def acquire(tx: neo4j.ManagedTransaction, store_url: str, user_id: str, owner: str,
            seconds: float) -> Lease:
    """Take or renew the lease in this write transaction, or raise ``ConflictError``."""
    tx.run("MERGE (l:EditorLease {user_id: $user}) SET l.locked = true", user=user_id).consume()
    row = tx.run("MATCH (l:EditorLease {user_id: $user}) RETURN l.owner AS owner, l.expires_at AS at",
                 user=user_id).single()
    now = utcnow()
    current = (None if row is None or row["owner"] is None
               else Lease(user_id, row["owner"], native_at(row["at"])))
    if not may_take(current, owner, now):
        assert current is not None
        raise refusal(store_url, current)
    lease = Lease(user_id, owner, expiry(now, seconds))
    tx.run("MATCH (l:EditorLease {user_id: $user}) SET l.owner = $owner, l.expires_at = $at, "
           "l.acquired_at = $now", user=user_id, owner=owner, at=lease.expires_at, now=now).consume()
    return lease


def release(tx: neo4j.ManagedTransaction, user_id: str, owner: str) -> None:
    tx.run("MATCH (l:EditorLease {user_id: $user}) WHERE l.owner = $owner DELETE l",
           user=user_id, owner=owner).consume()


def clear(tx: neo4j.ManagedTransaction, user_id: str) -> None:
    """Forgetting a user forgets their lease too."""
    tx.run("MATCH (l:EditorLease {user_id: $user}) DELETE l", user=user_id).consume()
