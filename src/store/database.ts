/**
 * The embedded SQLite database (bun:sqlite): WAL, busy timeout, foreign keys, STRICT tables and
 * migrations keyed by `PRAGMA user_version`. One connection per process is the one writer path;
 * feature stores (keys, rate limits, voices) take it as a constructor argument.
 */
import { Database } from "bun:sqlite";
import { mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { MIGRATIONS } from "./migrations.ts";

/** Opens (creating when needed) the database under `dataDir`, applying pending migrations. */
export function openDatabase(dataDir: string): Database {
  mkdirSync(dataDir, { recursive: true, mode: 0o750 });
  const path = join(dataDir, "sawt.db");
  mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path, { create: true, strict: true });
  db.exec("PRAGMA journal_mode = WAL");
  db.exec("PRAGMA busy_timeout = 5000");
  db.exec("PRAGMA foreign_keys = ON");
  db.exec("PRAGMA synchronous = NORMAL");
  migrate(db);
  return db;
}

/**
 * A private in-memory database with the current schema: for a process that needs a context but
 * must not touch the service's store (the jobs worker, which runs at background priority and
 * would otherwise hold locks the service waits on).
 */
export function openMemoryDatabase(): Database {
  const db = new Database(":memory:", { strict: true });
  db.exec("PRAGMA foreign_keys = ON");
  migrate(db);
  return db;
}

/** Applies every migration newer than the database's `user_version`, each in its own transaction. */
export function migrate(db: Database): number {
  const current = (db.query("PRAGMA user_version").get() as { user_version: number }).user_version;
  if (current > MIGRATIONS.length) {
    throw new Error(`database schema version ${current} is newer than this build understands (${MIGRATIONS.length})`);
  }
  for (let version = current; version < MIGRATIONS.length; version++) {
    db.transaction(() => {
      db.exec(MIGRATIONS[version]!);
      db.exec(`PRAGMA user_version = ${version + 1}`);
    })();
  }
  return MIGRATIONS.length;
}

/** Checkpoints the WAL and closes the database (clean shutdown). */
export function closeDatabase(db: Database): void {
  try {
    db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  } finally {
    db.close();
  }
}
