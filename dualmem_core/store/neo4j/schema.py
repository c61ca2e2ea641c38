"""Idempotent Neo4j schema: uniqueness constraints, range and fulltext indexes."""

from __future__ import annotations

from ..models import EDGE_ENDPOINTS

VECTOR_INDEX = "memory_embedding"  # the HNSW index of stores made before it was dropped
FULLTEXT_INDEX = "memory_text"
# What the fulltext index reads: ``search`` (a version's search text, else its text) and the
# tenant's key. Stores made before search texts index ``text`` instead (store.py migrates them).
FULLTEXT_PROPERTIES = ["search", "user_key"]

# One message per (user, source id): a composite uniqueness constraint (its own index replaces
# the plain ``SOURCE_INDEX`` of stores made before it). Set up by ``store.py``, not in the list
# below: a store that already repeats a source id cannot take it and keeps the plain index.
SOURCE_CONSTRAINT = "episode_user_source_unique"
SOURCE_INDEX = "episode_user_source"
SOURCE_INDEX_STATEMENT = (f"CREATE INDEX {SOURCE_INDEX} IF NOT EXISTS FOR (n:Episode) "
                          "ON (n.user_id, n.source_id)")
SOURCE_CONSTRAINT_STATEMENT = (f"CREATE CONSTRAINT {SOURCE_CONSTRAINT} IF NOT EXISTS FOR (n:Episode) "
                               "REQUIRE (n.user_id, n.source_id) IS UNIQUE")
# (user, source id) pairs held by more than one episode, a few of them, for the warning.
SOURCE_DUPLICATES = ("MATCH (e:Episode) WHERE e.source_id IS NOT NULL "
                     "WITH e.user_id AS user, e.source_id AS source, count(*) AS n WHERE n > 1 "
                     "RETURN user, source, n LIMIT 5")

NODE_LABELS = {"episode": "Episode", "memory": "Memory", "version": "MemoryVersion",
               "entity": "Entity"}


def schema_statements() -> list[str]:
    statements = [
        f"CREATE CONSTRAINT {label.lower()}_id IF NOT EXISTS FOR (n:{label}) REQUIRE n.id IS UNIQUE"
        for label in NODE_LABELS.values()
    ]
    statements += [
        "CREATE CONSTRAINT editor_run_key IF NOT EXISTS FOR (n:EditorRun) REQUIRE n.key IS UNIQUE",
        "CREATE CONSTRAINT dualmem_meta_key IF NOT EXISTS FOR (n:DualmemMeta) REQUIRE n.key IS UNIQUE",
        "CREATE CONSTRAINT editor_lease_user IF NOT EXISTS FOR (n:EditorLease) REQUIRE n.user_id IS UNIQUE",
        # Each user's write clock (see ``vectors``): MERGEd by every write, so it must be unique.
        "CREATE CONSTRAINT user_clock_user IF NOT EXISTS FOR (n:UserClock) REQUIRE n.user_id IS UNIQUE",
        "CREATE INDEX memory_user IF NOT EXISTS FOR (n:Memory) ON (n.user_id)",
        "CREATE INDEX episode_user IF NOT EXISTS FOR (n:Episode) ON (n.user_id)",
        "CREATE INDEX version_user IF NOT EXISTS FOR (n:MemoryVersion) ON (n.user_id)",
        "CREATE INDEX entity_user IF NOT EXISTS FOR (n:Entity) ON (n.user_id)",
        "CREATE INDEX editor_run_user IF NOT EXISTS FOR (n:EditorRun) ON (n.user_id)",
        "CREATE INDEX version_user_memory IF NOT EXISTS FOR (n:MemoryVersion) ON (n.user_id, n.memory_id)",
        "CREATE INDEX version_user_hash IF NOT EXISTS FOR (n:MemoryVersion) ON (n.user_id, n.content_hash)",
        # list_facts of a few predicates, latest first (recall's lookup of what a question asks for);
        # it replaces the (user_id, predicate) index that stores made before it still carry.
        "DROP INDEX version_user_predicate IF EXISTS",
        "CREATE INDEX version_user_predicate_time IF NOT EXISTS FOR (n:MemoryVersion) "
        "ON (n.user_id, n.predicate, n.valid_from)",
        "CREATE INDEX version_user_seq IF NOT EXISTS FOR (n:MemoryVersion) ON (n.user_id, n.seq)",
        "CREATE INDEX version_tx_to IF NOT EXISTS FOR (n:MemoryVersion) ON (n.tx_to)",
        "CREATE INDEX version_valid_from IF NOT EXISTS FOR (n:MemoryVersion) ON (n.valid_from)",
        "CREATE INDEX version_valid_to IF NOT EXISTS FOR (n:MemoryVersion) ON (n.valid_to)",
        # No vector index: nothing reads one (recall ranks each user's vectors exactly in the
        # process, ``vectors.py``; a past ``known_at`` scans the user's versions), and keeping an
        # HNSW graph current cost every write that adds a vector. Older stores lose theirs.
        f"DROP INDEX {VECTOR_INDEX} IF EXISTS",
        # The English analyzer stems, so "live", "lives" and "lived" match one another.
        f"CREATE FULLTEXT INDEX {FULLTEXT_INDEX} IF NOT EXISTS FOR (n:MemoryVersion) "
        f"ON EACH [{', '.join(f'n.{p}' for p in FULLTEXT_PROPERTIES)}] "
        "OPTIONS {indexConfig: {`fulltext.analyzer`: 'english'}}",
    ]
    for edge_type in EDGE_ENDPOINTS:
        name = edge_type.value.lower()
        statements += [
            # Edge ids are unique per type by constraint, so a write need not look them up first;
            # the constraint brings its own index, replacing the plain one of older stores.
            f"DROP INDEX edge_{name}_id IF EXISTS",
            f"CREATE CONSTRAINT edge_{name}_id_unique IF NOT EXISTS "
            f"FOR ()-[r:{edge_type.value}]-() REQUIRE r.id IS UNIQUE",
            f"CREATE INDEX edge_{name}_user IF NOT EXISTS FOR ()-[r:{edge_type.value}]-() ON (r.user_id)",
        ]
    return statements
