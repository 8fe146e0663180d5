/**
 * Schema migrations, applied in order; index + 1 is the resulting `user_version`.
 * Never edit a released migration: append a new one.
 */
export const MIGRATIONS: readonly string[] = [
  // 1: API keys and rate-limit events.
  `CREATE TABLE api_keys (
     id TEXT PRIMARY KEY,
     name TEXT NOT NULL,
     secret_sha256 BLOB NOT NULL,
     rpm INTEGER NOT NULL CHECK (rpm > 0),
     admin INTEGER NOT NULL DEFAULT 0 CHECK (admin IN (0, 1)),
     created_at INTEGER NOT NULL,
     last_used_at INTEGER,
     revoked_at INTEGER
   ) STRICT;
   CREATE TABLE rate_events (
     key_id TEXT NOT NULL REFERENCES api_keys(id) ON DELETE CASCADE,
     at_ms INTEGER NOT NULL
   ) STRICT;
   CREATE INDEX rate_events_by_key ON rate_events(key_id, at_ms);`,
  // 2: cloned voices (D17).
  `CREATE TABLE cloned_voices (
     id TEXT PRIMARY KEY,
     key_id TEXT NOT NULL REFERENCES api_keys(id) ON DELETE CASCADE,
     name TEXT NOT NULL,
     status TEXT NOT NULL CHECK (status IN ('training', 'ready', 'failed')),
     reason TEXT,
     embedding BLOB,
     created_at INTEGER NOT NULL,
     updated_at INTEGER NOT NULL
   ) STRICT;
   CREATE INDEX cloned_voices_by_key ON cloned_voices(key_id);`,
  // 3: generations of the signed cluster files (keys, voices) this box exported and imported last,
  // so an import can refuse a file older than one it already applied (docs/scale-out.md).
  `CREATE TABLE cluster_generations (
     kind TEXT PRIMARY KEY CHECK (kind IN ('keys', 'voices')),
     exported INTEGER NOT NULL DEFAULT 0,
     imported INTEGER NOT NULL DEFAULT 0,
     imported_at INTEGER
   ) STRICT;`,
  // 4: pronunciation lexicon entries, private to their key (issue #15).
  `CREATE TABLE lexicon_entries (
     key_id TEXT NOT NULL REFERENCES api_keys(id) ON DELETE CASCADE,
     grapheme TEXT NOT NULL,
     dialect TEXT NOT NULL DEFAULT '',
     alias TEXT,
     ipa TEXT,
     updated_at INTEGER NOT NULL,
     PRIMARY KEY (key_id, grapheme, dialect),
     CHECK ((alias IS NULL) <> (ipa IS NULL))
   ) STRICT;`,
  // 5: ASR phrase lists (phrase boosting), private to their key (issue #27).
  `CREATE TABLE asr_phrases (
     key_id TEXT NOT NULL REFERENCES api_keys(id) ON DELETE CASCADE,
     phrase TEXT NOT NULL,
     boost REAL NOT NULL CHECK (boost >= 0 AND boost <= 10),
     updated_at INTEGER NOT NULL,
     PRIMARY KEY (key_id, phrase)
   ) STRICT;`,
];
