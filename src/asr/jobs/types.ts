/**
 * The rows of the job store and the options a job keeps for its files. Statuses are the wire's
 * (issue #28): a job is queued, running, completed, failed (every file failed) or cancelled.
 */
import type { Hotword, TranscriptFormat, TranscriptionLanguage } from "../types.ts";

/** A job's status. */
export type JobStatus = "queued" | "running" | "completed" | "failed" | "cancelled";
/** A file's status. */
export type FileStatus = "queued" | "running" | "completed" | "failed" | "cancelled";

/** Job statuses, for validation. */
export const JOB_STATUSES = ["queued", "running", "completed", "failed", "cancelled"] as const;

/** What a job asks of each transcription: the synchronous request's fields. */
export interface JobOptions {
  readonly response_format: TranscriptFormat;
  readonly granularities: readonly string[];
  readonly model?: string;
  readonly prompt?: string;
  readonly temperature?: number;
  readonly language?: TranscriptionLanguage;
  readonly channels?: "split" | "mix";
  /** The request's labels, else the server's `asr.speakers` when the job was created. */
  readonly speakers?: readonly string[];
  /** The request's phrases merged with the key's list when the job was created. */
  readonly hotwords?: readonly Hotword[];
  /** Written forms (absent: on) and the redaction names asked for (the server's floor is added at run time). */
  readonly itn?: boolean;
  readonly redact?: string;
}

/** A job row. Times are epoch milliseconds. */
export interface JobRow {
  readonly id: string;
  readonly key_id: string;
  readonly status: JobStatus;
  /** {@link JobOptions} as JSON. */
  readonly options: string;
  readonly callback_url: string | null;
  readonly created_at: number;
  readonly completed_at: number | null;
}

/** A file row. */
export interface FileRow {
  readonly job_id: string;
  readonly idx: number;
  readonly id: string;
  readonly name: string;
  readonly path: string;
  readonly spooled: number;
  readonly status: FileStatus;
  readonly error: string | null;
  /** The Transcript as JSON, once completed. */
  readonly result: string | null;
  readonly audio_seconds: number | null;
  /** Claims so far; the current claim's token. */
  readonly attempts: number;
  /** Times the file failed its worker itself (died on it, or an internal error): 3 fail it. */
  readonly faults: number;
  readonly completed_at: number | null;
}

/** A webhook delivery row (its id is the idempotency key). */
export interface DeliveryRow {
  readonly id: string;
  readonly job_id: string;
  readonly event: string;
  readonly body: string;
  readonly status: "pending" | "delivered" | "failed";
  readonly attempts: number;
  readonly next_at: number;
  readonly last_error: string | null;
  readonly created_at: number;
  readonly delivered_at: number | null;
}
