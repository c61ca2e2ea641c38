-- The embedded store: one SQLite file, WAL. Times are microseconds since the Unix epoch (UTC);
-- open interval ends hold the far-future sentinel, so plain comparisons and indexes work.
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);

CREATE TABLE IF NOT EXISTS episodes (
    id TEXT PRIMARY KEY,
    user_id TEXT NOT NULL,
    text TEXT NOT NULL,
    observed_at INTEGER NOT NULL,
    source_id TEXT,
    speaker TEXT,
    role TEXT,
    agent_id TEXT,
    session_id TEXT,
    recorded_at INTEGER NOT NULL,
    created_by TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS episodes_by_source ON episodes (user_id, source_id);
-- One message per (user, source id): the unique index episodes_unique_source, made by store.py
-- (a file made before it may hold duplicates, which would stop this script).
-- A memory's sources join each FROM edge to its episode's time and source id: from this
-- index, not the episode rows (their text makes them many pages).
CREATE INDEX IF NOT EXISTS episodes_said ON episodes (id, user_id, observed_at, source_id);

CREATE TABLE IF NOT EXISTS memories (
    id TEXT PRIMARY KEY,
    user_id TEXT NOT NULL,
    kind TEXT NOT NULL,
    agent_id TEXT,
    session_id TEXT,
    created_at INTEGER NOT NULL,
    created_by TEXT NOT NULL,
    review_state TEXT NOT NULL,
    access_count INTEGER NOT NULL DEFAULT 0,
    last_accessed_at INTEGER
);
CREATE INDEX IF NOT EXISTS memories_by_user ON memories (user_id);

CREATE TABLE IF NOT EXISTS versions (
    rid INTEGER PRIMARY KEY,  -- rowid: the FTS row and the vector cache refer to it
    id TEXT NOT NULL UNIQUE,
    memory_id TEXT NOT NULL REFERENCES memories (id),
    user_id TEXT NOT NULL,
    text TEXT NOT NULL,
    embedding BLOB,  -- float32, the store's dimension
    subject TEXT,
    predicate TEXT,
    object TEXT,
    confidence REAL NOT NULL,
    salience REAL NOT NULL,
    status TEXT NOT NULL,
    negated INTEGER NOT NULL DEFAULT 0,
    valid_from INTEGER NOT NULL,
    valid_to INTEGER NOT NULL,
    tx_from INTEGER NOT NULL,
    tx_to INTEGER NOT NULL,
    created_by TEXT NOT NULL,
    content_hash TEXT NOT NULL,
    search_text TEXT  -- what full-text search indexes when not text (models.MemoryVersion)
);
CREATE INDEX IF NOT EXISTS versions_by_memory ON versions (user_id, memory_id);
CREATE INDEX IF NOT EXISTS versions_by_hash ON versions (user_id, content_hash, tx_to);
CREATE INDEX IF NOT EXISTS versions_by_time ON versions (user_id, tx_to, valid_from, valid_to);
-- list_facts by predicate (the user's names, a profile, recall's lookup of the facts a question
-- asks for) seeks here, latest first, and stops at its limit instead of sorting every such fact.
-- It replaces (user_id, predicate), which files written before it still carry until opened.
DROP INDEX IF EXISTS versions_by_predicate;
CREATE INDEX IF NOT EXISTS versions_by_predicate_time ON versions (user_id, predicate, valid_from);

-- A user key column lets a text query narrow to one tenant inside the index itself.
-- Porter stemming, so "live", "lives" and "lived" match one another.
CREATE VIRTUAL TABLE IF NOT EXISTS versions_fts USING fts5 (
    text, user_key, tokenize = 'porter unicode61 remove_diacritics 2'
);
-- The FTS column is named text but holds the search text: the version's own text when it has
-- none. Files of schema 3 carry the trigger without coalesce until opened (store.py migrates).
CREATE TRIGGER IF NOT EXISTS versions_fts_insert AFTER INSERT ON versions BEGIN
    INSERT INTO versions_fts (rowid, text, user_key)
    VALUES (new.rid, coalesce(new.search_text, new.text), 'u' || hex(new.user_id));
END;
CREATE TRIGGER IF NOT EXISTS versions_fts_delete AFTER DELETE ON versions BEGIN
    DELETE FROM versions_fts WHERE rowid = old.rid;
END;

CREATE TABLE IF NOT EXISTS entities (
    id TEXT PRIMARY KEY,
    user_id TEXT NOT NULL,
    name TEXT NOT NULL,
    type TEXT NOT NULL,
    aliases TEXT NOT NULL,  -- JSON list
    created_at INTEGER NOT NULL,
    created_by TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS entities_by_user ON entities (user_id);

-- Normalised name and aliases of each entity, so a lookup by name is an index seek.
CREATE TABLE IF NOT EXISTS entity_keys (
    user_id TEXT NOT NULL,
    key TEXT NOT NULL,
    entity_id TEXT NOT NULL REFERENCES entities (id) ON DELETE CASCADE,
    PRIMARY KEY (user_id, key, entity_id)
);
CREATE INDEX IF NOT EXISTS entity_keys_by_entity ON entity_keys (entity_id);

CREATE TABLE IF NOT EXISTS edges (
    rid INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    user_id TEXT NOT NULL,
    type TEXT NOT NULL,
    src_id TEXT NOT NULL,
    dst_id TEXT NOT NULL,
    props TEXT NOT NULL,  -- JSON object
    created_by TEXT NOT NULL,
    tx_from INTEGER NOT NULL,
    tx_to INTEGER NOT NULL
);
-- With the end time and the far end: a memory's sources (its open FROM edges, hundreds for a
-- message told hundreds of times) are read from the index alone, no row lookups. It replaces
-- edges_by_src (user_id, src_id, type), its prefix, in files made before it.
CREATE INDEX IF NOT EXISTS edges_from_src ON edges (user_id, src_id, type, tx_to, dst_id);
DROP INDEX IF EXISTS edges_by_src;
CREATE INDEX IF NOT EXISTS edges_by_dst ON edges (user_id, dst_id, type);

CREATE TABLE IF NOT EXISTS runs (
    user_id TEXT NOT NULL,
    run_id TEXT NOT NULL,
    applied_at INTEGER NOT NULL,
    journal TEXT NOT NULL,
    skipped TEXT NOT NULL,
    meta TEXT NOT NULL DEFAULT '{}',
    PRIMARY KEY (user_id, run_id)
);

-- Bumped by every write that changes what a user's vector search can see; the in-process
-- vector cache compares it to know when another process has written.
CREATE TABLE IF NOT EXISTS user_generation (user_id TEXT PRIMARY KEY, generation INTEGER NOT NULL);

-- One Editor run per user across processes: the holder of a user's lease and until when
-- (store/lease.py). Not user data: delete_user clears it with the rest.
CREATE TABLE IF NOT EXISTS editor_leases (
    user_id TEXT PRIMARY KEY,
    owner TEXT NOT NULL,
    acquired_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL
);
