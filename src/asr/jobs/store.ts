/**
 * The durable state of transcription jobs (issue #28): jobs, their files (state, error, result)
 * and webhook deliveries, in `<data_dir>/jobs.db` (SQLite, WAL). A database of its own: job
 * writes are frequent and bulky (transcripts), and its schema evolves with jobs alone.
 *
 * Exactly-once results rest on two rules: a file's result, its `completed` state and the webhook
 * deliveries it causes are written in ONE transaction; and a file found `running` at start-up
 * (the process died under it) goes back to `queued`, so it is transcribed again and its result
 * written once. Deliveries are at-least-once, each with a fixed idempotency key (its id).
 *
 * A file's `attempts` counts its claims and is the claim's token; its `faults` count only what the
 * file did itself (docs/jobs.md, "Faults"), so requeueing it after a restart, a reload or a
 * stopped worker never brings it nearer to failing. The database is opened by the store kit, which
 * refuses one written by a newer schema.
 */
import type { Database } from "bun:sqlite";
import { join } from "node:path";
import { closeDatabase, openStore } from "../../store/database.ts";
import type { AttemptOutcome } from "../../webhooks/sender.ts";
import { newDelivery, nextDeliveryAt, recordAttempt } from "../../webhooks/table.ts";
import { fileId } from "./ids.ts";
import { JOB_SCHEMA } from "./migrations.ts";
import type { DeliveryRow, FileRow, FileStatus, JobOptions, JobRow, JobStatus } from "./types.ts";

/** A file as a new job lists it. */
export interface NewFile {
  readonly name: string;
  /** Where the audio is: the job's spool or a source folder. */
  readonly path: string;
  /** True when `path` is Sawt's copy (deleted once transcribed). */
  readonly spooled: boolean;
}

/** Counts of a job's files by state. */
export type FileCounts = Record<FileStatus, number>;

/** A webhook to deliver, as the store queues it. */
export interface NewDelivery {
  readonly event: "file.completed" | "file.failed" | "job.completed";
  readonly body: Record<string, unknown>;
}

/** Files that wait to be claimed: queued files of unfinished jobs (`f` files, `j` jobs). */
const CLAIMABLE = `FROM job_files f JOIN jobs j ON j.id = f.job_id
  WHERE f.status = 'queued' AND j.status IN ('queued', 'running')`;

/** Jobs, files and deliveries over one SQLite connection. */
export class JobStore {
  readonly db: Database;

  constructor(dataDir: string) {
    this.db = openStore(join(dataDir, "jobs.db"), JOB_SCHEMA);
  }

  /** Files the process was transcribing when it died go back to the queue; returns how many. */
  requeueInterrupted(): number {
    return this.db.run("UPDATE job_files SET status = 'queued' WHERE status = 'running'").changes;
  }

  /** Inserts a job and its files in one transaction. */
  createJob(job: { id: string; keyId: string; options: JobOptions; callbackUrl: string | null }, files: NewFile[]) {
    this.db.transaction(() => {
      this.db.run(
        "INSERT INTO jobs (id, key_id, status, options, callback_url, created_at) VALUES (?, ?, 'queued', ?, ?, ?)",
        [job.id, job.keyId, JSON.stringify(job.options), job.callbackUrl, Date.now()],
      );
      const insert = this.db.prepare(
        "INSERT INTO job_files (job_id, idx, id, name, path, spooled, status) VALUES (?, ?, ?, ?, ?, ?, 'queued')",
      );
      files.forEach((file, index) =>
        insert.run(job.id, index, fileId(index), file.name, file.path, file.spooled ? 1 : 0),
      );
    })();
  }

  job(id: string): JobRow | undefined {
    return (this.db.query("SELECT * FROM jobs WHERE id = ?").get(id) as JobRow | null) ?? undefined;
  }

  files(jobId: string): FileRow[] {
    return this.db.query("SELECT * FROM job_files WHERE job_id = ? ORDER BY idx").all(jobId) as FileRow[];
  }

  file(jobId: string, id: string): FileRow | undefined {
    const row = this.db.query("SELECT * FROM job_files WHERE job_id = ? AND id = ?").get(jobId, id);
    return (row as FileRow | null) ?? undefined;
  }

  counts(jobId: string): FileCounts {
    const counts: FileCounts = { queued: 0, running: 0, completed: 0, failed: 0, cancelled: 0 };
    const rows = this.db
      .query("SELECT status, COUNT(*) AS n FROM job_files WHERE job_id = ? GROUP BY status")
      .all(jobId) as Array<{ status: FileStatus; n: number }>;
    for (const row of rows) counts[row.status] = row.n;
    return counts;
  }

  /** Jobs newest first, older than `after` when given, optionally of one status and one key. */
  list(filter: { keyId?: string; status?: JobStatus; after?: string; limit: number }): JobRow[] {
    const where: string[] = [];
    const args: string[] = [];
    if (filter.keyId !== undefined) where.push("key_id = ?"), args.push(filter.keyId);
    if (filter.status !== undefined) where.push("status = ?"), args.push(filter.status);
    if (filter.after !== undefined) where.push("id < ?"), args.push(filter.after);
    const sql = `SELECT * FROM jobs ${where.length > 0 ? `WHERE ${where.join(" AND ")}` : ""} ORDER BY id DESC LIMIT ${filter.limit}`;
    return this.db.query(sql).all(...args) as JobRow[];
  }

  /**
   * Claims the oldest queued file of a live job (FIFO over jobs): it turns `running`. A file with
   * a fault runs alone, so that a worker crash while it runs is its own and not its neighbours':
   * with `busy` (other files in flight) an oldest file that has a fault stays queued and nothing
   * is claimed until the worker is free.
   */
  claimNext(busy = false): FileRow | undefined {
    return this.db.transaction(() => {
      const row = this.db
        .query(`SELECT f.* ${CLAIMABLE} ORDER BY j.created_at, j.id, f.idx LIMIT 1`)
        .get() as FileRow | null;
      if (row === null || (busy && row.faults > 0)) return undefined;
      this.db.run("UPDATE job_files SET status = 'running', attempts = attempts + 1 WHERE job_id = ? AND idx = ?", [
        row.job_id,
        row.idx,
      ]);
      this.db.run("UPDATE jobs SET status = 'running' WHERE id = ? AND status = 'queued'", [row.job_id]);
      // `attempts` as stored now: the claim's token, which release() and finish() check.
      return { ...row, status: "running" as const, attempts: row.attempts + 1 };
    })();
  }

  /** Whether a file waits to be claimed. */
  hasClaimable(): boolean {
    return this.db.query(`SELECT 1 ${CLAIMABLE} LIMIT 1`).get() !== null;
  }

  /**
   * A claimed file goes back to the queue: not its fault (the engine was busy, the worker was
   * stopped or lost with the service), or with `fault` one more fault of its own.
   */
  release(file: FileRow, fault = false): void {
    this.db.run(
      `UPDATE job_files SET status = 'queued', faults = faults + ?
       WHERE job_id = ? AND idx = ? AND status = 'running' AND attempts = ?`,
      [fault ? 1 : 0, file.job_id, file.idx, file.attempts],
    );
  }

  /**
   * Ends a running file — its result or error, its webhook, and when it was the job's last file
   * the job's end and webhook — in one transaction. Returns false when the file was no longer
   * running under this claim (cancelled or deleted meanwhile, or queued again after the worker
   * that ran it was lost): nothing is written.
   */
  finish(
    file: FileRow,
    outcome: { status: "completed"; result: string; audioSeconds: number } | { status: "failed"; error: string },
    deliveries: (job: JobRow, counts: FileCounts) => { file?: NewDelivery; job?: NewDelivery },
  ): boolean {
    return this.db.transaction(() => {
      const changed = this.db.run(
        `UPDATE job_files SET status = ?, result = ?, error = ?, audio_seconds = ?, completed_at = ?
         WHERE job_id = ? AND idx = ? AND status = 'running' AND attempts = ?`,
        [
          outcome.status,
          outcome.status === "completed" ? outcome.result : null,
          outcome.status === "failed" ? outcome.error : null,
          outcome.status === "completed" ? outcome.audioSeconds : null,
          Date.now(),
          file.job_id,
          file.idx,
          file.attempts,
        ],
      ).changes;
      if (changed === 0) return false;
      const counts = this.counts(file.job_id);
      const done = counts.queued === 0 && counts.running === 0;
      if (done) {
        const status: JobStatus = counts.completed > 0 || counts.failed === 0 ? "completed" : "failed";
        this.db.run("UPDATE jobs SET status = ?, completed_at = ? WHERE id = ? AND status = 'running'", [
          status,
          Date.now(),
          file.job_id,
        ]);
      }
      const job = this.job(file.job_id)!;
      const queued = deliveries(job, counts);
      if (queued.file) this.queueDelivery(job, queued.file);
      if (done && queued.job) this.queueDelivery(job, queued.job);
      return true;
    })();
  }

  /** Cancels a job's queued and running files; returns whether the job was still unfinished. */
  cancel(jobId: string, jobDelivery?: (job: JobRow, counts: FileCounts) => NewDelivery | undefined): boolean {
    return this.db.transaction(() => {
      const changed = this.db.run(
        "UPDATE jobs SET status = 'cancelled', completed_at = ? WHERE id = ? AND status IN ('queued', 'running')",
        [Date.now(), jobId],
      ).changes;
      if (changed === 0) return false;
      this.db.run(
        "UPDATE job_files SET status = 'cancelled', completed_at = ? WHERE job_id = ? AND status IN ('queued', 'running')",
        [Date.now(), jobId],
      );
      const job = this.job(jobId)!;
      const delivery = jobDelivery?.(job, this.counts(jobId));
      if (delivery) this.queueDelivery(job, delivery);
      return true;
    })();
  }

  /** Deletes a job with its files and deliveries. */
  delete(jobId: string): void {
    this.db.run("DELETE FROM jobs WHERE id = ?", [jobId]);
  }

  /** Finished jobs that ended before `before` (ms), for the retention sweeper. */
  expired(before: number): string[] {
    const rows = this.db
      .query("SELECT id FROM jobs WHERE completed_at IS NOT NULL AND completed_at < ?")
      .all(before) as Array<{ id: string }>;
    return rows.map((row) => row.id);
  }

  private queueDelivery(job: JobRow, delivery: NewDelivery): void {
    if (job.callback_url === null) return;
    const { id, body } = newDelivery(delivery.event, delivery.body);
    this.db.run(
      "INSERT INTO job_deliveries (id, job_id, event, body, status, attempts, next_at, created_at) VALUES (?, ?, ?, ?, 'pending', 0, ?, ?)",
      [id, job.id, delivery.event, body, Date.now(), Date.now()],
    );
  }

  /** Pending deliveries due by `now`, oldest first. */
  dueDeliveries(now: number, limit: number): Array<DeliveryRow & { callback_url: string }> {
    return this.db
      .query(
        `SELECT d.*, j.callback_url FROM job_deliveries d JOIN jobs j ON j.id = d.job_id
         WHERE d.status = 'pending' AND d.next_at <= ? ORDER BY d.next_at LIMIT ?`,
      )
      .all(now, limit) as Array<DeliveryRow & { callback_url: string }>;
  }

  /** When the next pending delivery is due (ms), if any. */
  nextDeliveryAt(): number | undefined {
    return nextDeliveryAt(this.db, "job_deliveries");
  }

  /** Records one attempt: delivered, retried at `nextAt`, or given up (`failed`). */
  recordAttempt(id: string, outcome: AttemptOutcome): void {
    recordAttempt(this.db, "job_deliveries", id, outcome);
  }

  /** A job's delivery log, oldest first. */
  deliveries(jobId: string): DeliveryRow[] {
    return this.db
      .query("SELECT * FROM job_deliveries WHERE job_id = ? ORDER BY created_at, id")
      .all(jobId) as DeliveryRow[];
  }

  /** Files by state over every job, and audio seconds transcribed (metrics). */
  totals(): { files: FileCounts; audioSeconds: number } {
    const files: FileCounts = { queued: 0, running: 0, completed: 0, failed: 0, cancelled: 0 };
    for (const row of this.db.query("SELECT status, COUNT(*) AS n FROM job_files GROUP BY status").all() as Array<{
      status: FileStatus;
      n: number;
    }>)
      files[row.status] = row.n;
    const audio = this.db.query("SELECT COALESCE(SUM(audio_seconds), 0) AS s FROM job_files").get() as { s: number };
    return { files, audioSeconds: audio.s };
  }

  /** Checkpoints the WAL and closes the database. */
  close(): void {
    closeDatabase(this.db);
  }
}
