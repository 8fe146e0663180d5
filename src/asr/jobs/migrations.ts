/**
 * Schema of the job database (`<data_dir>/jobs.db`), applied in order; index + 1 is its
 * `user_version`. Never edit a released migration: append one.
 */
import type { Schema } from "../../store/database.ts";

const JOB_MIGRATIONS: readonly string[] = [
  // 1: jobs, their files and webhook deliveries (issue #28).
  `CREATE TABLE jobs (
     id TEXT PRIMARY KEY,
     key_id TEXT NOT NULL,
     status TEXT NOT NULL CHECK (status IN ('queued', 'running', 'completed', 'failed', 'cancelled')),
     options TEXT NOT NULL,
     callback_url TEXT,
     created_at INTEGER NOT NULL,
     completed_at INTEGER
   ) STRICT;
   CREATE INDEX jobs_by_key ON jobs(key_id, id);
   CREATE INDEX jobs_by_status ON jobs(status, id);
   CREATE TABLE job_files (
     job_id TEXT NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,
     idx INTEGER NOT NULL,
     id TEXT NOT NULL,
     name TEXT NOT NULL,
     path TEXT NOT NULL,
     spooled INTEGER NOT NULL CHECK (spooled IN (0, 1)),
     status TEXT NOT NULL CHECK (status IN ('queued', 'running', 'completed', 'failed', 'cancelled')),
     error TEXT,
     result TEXT,
     audio_seconds REAL,
     attempts INTEGER NOT NULL DEFAULT 0,
     completed_at INTEGER,
     PRIMARY KEY (job_id, idx)
   ) STRICT;
   CREATE INDEX job_files_queued ON job_files(status);
   CREATE TABLE job_deliveries (
     id TEXT PRIMARY KEY,
     job_id TEXT NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,
     event TEXT NOT NULL,
     body TEXT NOT NULL,
     status TEXT NOT NULL CHECK (status IN ('pending', 'delivered', 'failed')),
     attempts INTEGER NOT NULL,
     next_at INTEGER NOT NULL,
     last_error TEXT,
     created_at INTEGER NOT NULL,
     delivered_at INTEGER
   ) STRICT;
   CREATE INDEX job_deliveries_due ON job_deliveries(status, next_at);`,
  // 2: a file's faults, apart from its claims (issue #39). `attempts` counts claims and is the
  // claim's token; `faults` counts only what the file did itself: its worker died while
  // transcribing it (the service alive and not stopping it), or the engine failed on it. A
  // restart, a reload or a stopped worker claims a file again without a fault.
  `ALTER TABLE job_files ADD COLUMN faults INTEGER NOT NULL DEFAULT 0;`,
];

/** The jobs database's schema, opened by the store kit (src/store/database.ts). */
export const JOB_SCHEMA: Schema = { name: "the jobs database (jobs.db)", migrations: JOB_MIGRATIONS };
