/**
 * The messages between the serving process and its jobs worker process (JSON over the IPC
 * channel Bun opens between them). The serving process owns the job store: it claims each file,
 * sends it to the worker with `run`, and writes the outcome the worker answers with `done`. The
 * worker never opens the store, so nothing in the serving process ever waits on a lock held by a
 * process that runs at background priority.
 */
import type { SawtConfig } from "../../../config/config.ts";
import type { FileOutcome, JobFile } from "../runner.ts";

/**
 * Files the worker transcribes at once: `jobs.max_slots`, else every `asr.concurrency` slot but one
 * (at least one). The service sends no more than this; the worker's ASR gate admits exactly this.
 */
export function workerSlots(config: SawtConfig): number {
  return config.jobs.max_slots > 0 ? config.jobs.max_slots : Math.max(1, config.asr.concurrency - 1);
}

/** The hidden `sawt` command that runs the worker process (src/app/jobs-worker.ts). */
export const JOBS_WORKER_COMMAND = "__jobs-worker";

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

/** What runs a process's job files. */
export interface FileRunner {
  /** Queued files may be waiting: claim them while slots are free. */
  wake(): void;
  /** Stops the running files of `jobId` (cancel, delete). */
  abortJob(jobId: string): void;
  /** Stops claiming new files; running ones finish. */
  quiesce(): void;
  /** Stops claiming; running files go back to the queue. */
  stop(): Promise<void>;
}
