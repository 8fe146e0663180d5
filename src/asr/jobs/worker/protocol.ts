/**
 * The messages between the serving process and its jobs worker process (JSON over the IPC
 * channel Bun opens between them), and what they carry: a claimed file ({@link JobFile}) and how
 * its transcription ended ({@link FileOutcome}). The serving process owns the job store: it claims
 * each file, sends it to the worker with `run`, and writes the outcome the worker answers with
 * `done`. The worker never opens the store, so nothing in the serving process ever waits on a lock
 * held by a process that runs at background priority.
 */
import type { SawtConfig } from "../../../config/config.ts";
import type { Hotword, Transcript } from "../../types.ts";
import type { FileRow, JobOptions, JobRow } from "../types.ts";

/**
 * Files the worker transcribes at once: `jobs.max_slots`, else every `asr.concurrency` slot but one
 * (at least one). The service sends no more than this; the worker's ASR gate admits exactly this.
 */
export function workerSlots(config: SawtConfig): number {
  return config.jobs.max_slots > 0 ? config.jobs.max_slots : Math.max(1, config.asr.concurrency - 1);
}

/** The hidden `sawt` command that runs the worker process (src/app/jobs-worker.ts). */
export const JOBS_WORKER_COMMAND = "__jobs-worker";

/** A job file as the worker needs it. */
export interface JobFile {
  readonly jobId: string;
  readonly idx: number;
  /** The claim's token (the file's `attempts` once claimed). */
  readonly attempts: number;
  readonly path: string;
  /** True when `path` is Sawt's copy of an upload (not a source-folder path). */
  readonly spooled: boolean;
  readonly keyId: string;
  readonly options: JobOptions;
  /**
   * The key's phrase list as it stands when the file is sent: the worker has no key store, so
   * its engine's policy reads the list it was sent (../../policy.ts `sentPhraseLists`).
   */
  readonly keyPhrases: readonly Hotword[];
}

/** The file a claimed row describes, for the worker, with its key's phrase list. */
export function jobFileOf(file: FileRow, job: JobRow, keyPhrases: readonly Hotword[]): JobFile {
  return {
    jobId: file.job_id,
    idx: file.idx,
    attempts: file.attempts,
    path: file.path,
    spooled: file.spooled === 1,
    keyId: job.key_id,
    options: JSON.parse(job.options) as JobOptions,
    keyPhrases,
  };
}

/** How one transcription of a job file ended. */
export type FileOutcome =
  | { readonly status: "completed"; readonly transcript: Transcript }
  /** The file cannot be transcribed: the synchronous route's detail. */
  | { readonly status: "failed"; readonly error: string }
  /** The engine could not take it now (not ready, busy, draining). */
  | { readonly status: "retry" }
  /** The serving engine failed on this file: one fault of the file's own. */
  | { readonly status: "error"; readonly message: string }
  /**
   * Not transcribed, through no fault of the file: the job was cancelled or deleted, or the worker
   * is stopping (told to, idle, or its service gone) and its engine may be released under it.
   */
  | { readonly status: "aborted" };

/** The outcomes that end a file for good. */
export type FileEnd = Extract<FileOutcome, { status: "completed" | "failed" }>;

/** The serving process to its worker. */
export type ToWorker =
  /** Answer to `hello`: the serving process's resolved settings, which the worker runs by. */
  | { readonly type: "start"; readonly config: unknown }
  /** Transcribe a claimed file. */
  | { readonly type: "run"; readonly file: JobFile }
  /** Stop the running files of a job (cancelled or deleted). */
  | { readonly type: "abort"; readonly jobId: string }
  /** Stop now: running files are aborted (answered `aborted`), then exit. */
  | { readonly type: "stop" };

/** The worker to the serving process. */
export type FromWorker =
  /** The worker listens: the serving process answers with `start`. */
  | { readonly type: "hello" }
  /** The worker's ASR engine serves: files may be sent. */
  | { readonly type: "ready" }
  /** The worker's ASR engine cannot serve; the worker exits. */
  | { readonly type: "failed"; readonly reason: string }
  /** A file's transcription ended. */
  | {
      readonly type: "done";
      readonly jobId: string;
      readonly idx: number;
      readonly attempts: number;
      readonly outcome: FileOutcome;
    };
