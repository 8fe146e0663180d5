/**
 * The embedded SQLite databases (bun:sqlite): WAL, busy timeout, foreign keys, STRICT tables and
 * migrations keyed by `PRAGMA user_version`. Every database file Sawt keeps — the key store
 * (`sawt.db`) and the jobs store (`jobs.db`, src/asr/jobs/store.ts) — is opened by
 * {@link openStore}, so each gets the same settings and the same refusal of a schema newer than
 * this build (an upgrade rolled back by installer/install.sh leaves exactly that behind when its
 * backup was not restored). One connection per process and file is the one writer path; feature
 * stores (keys, rate limits, voices) take the key store's as a constructor argument.
 */
import { Database } from "bun:sqlite";
import { mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { MIGRATIONS } from "./migrations.ts";

/** A database's schema: the name messages give it, and the migrations that build it, in order. */
export interface Schema {
  /** How messages name the database, e.g. "the key database (sawt.db)". */
  readonly name: string;
  /** Applied in order; index + 1 is the resulting `user_version`. Never edit one: append. */
  readonly migrations: readonly string[];
}

/** The key store's schema (`<data_dir>/sawt.db`). */
export const KEY_STORE: Schema = { name: "the key database (sawt.db)", migrations: MIGRATIONS };

/** A database written by a newer build: this one refuses it rather than guess at its tables. */
export class SchemaTooNewError extends Error {
  constructor(
    readonly path: string,
    readonly found: number,
    readonly understood: number,
    name: string,
  ) {
    super(
      `${name} at ${path} has schema version ${found}, newer than this build understands (${understood}): ` +
        "it was written by a newer Sawt. Run that version again, or restore the database backed up before " +
        "the upgrade (installer/install.sh keeps it in <data_dir>/backup/pre-<version>/)",
    );
    this.name = "SchemaTooNewError";
  }
}

/**
 * Opens (creating when needed) the database file at `path` with Sawt's settings and applies the
 * migrations it lacks. A database from a newer schema is refused with {@link SchemaTooNewError}
 * before anything is written to it.
 */
export function openStore(path: string, schema: Schema): Database {
  mkdirSync(dirname(path), { recursive: true, mode: 0o750 });
  const db = new Database(path, { create: true, strict: true });
  try {
    // Checked before the first write (WAL mode is one): a newer build's file stays as it was.
    refuseNewer(db, path, schema);
    db.exec("PRAGMA journal_mode = WAL");
    db.exec("PRAGMA busy_timeout = 5000");
    db.exec("PRAGMA foreign_keys = ON");
    // NORMAL in WAL mode: a commit survives the process being killed (not a power cut).
    db.exec("PRAGMA synchronous = NORMAL");
    migrate(db, schema, path);
  } catch (error) {
    db.close();
    throw error;
  }
  return db;
}

/** Opens (creating when needed) the key database under `dataDir`, applying pending migrations. */
export function openDatabase(dataDir: string): Database {
  return openStore(join(dataDir, "sawt.db"), KEY_STORE);
}

/**
 * A private in-memory database with the key store's current schema: for a process that needs a
 * context but must not touch the service's store (the jobs worker, which runs at background
 * priority and would otherwise hold locks the service waits on).
 */
export function openMemoryDatabase(): Database {
  const db = new Database(":memory:", { strict: true });
  db.exec("PRAGMA foreign_keys = ON");
  migrate(db, KEY_STORE, ":memory:");
  return db;
}

function userVersion(db: Database): number {
  return (db.query("PRAGMA user_version").get() as { user_version: number }).user_version;
}

function refuseNewer(db: Database, path: string, schema: Schema): void {
  const found = userVersion(db);
  if (found > schema.migrations.length) throw new SchemaTooNewError(path, found, schema.migrations.length, schema.name);
}

/**
 * Applies every migration of `schema` newer than the database's `user_version`, each in its own
 * transaction; refuses a database from a newer schema. Returns the schema version now.
 */
export function migrate(db: Database, schema: Schema, path: string): number {
  refuseNewer(db, path, schema);
  const { migrations } = schema;
  for (let version = userVersion(db); version < migrations.length; version++) {
    db.transaction(() => {
      db.exec(migrations[version]!);
      db.exec(`PRAGMA user_version = ${version + 1}`);
    })();
  }
  return migrations.length;
}

/** Checkpoints the WAL and closes the database (clean shutdown). */
export function closeDatabase(db: Database): void {
  try {
    db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  } finally {
    db.close();
  }
}
