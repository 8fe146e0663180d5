/**
 * The messages between the serving process and its jobs worker process (JSON over the IPC
 * channel Bun opens between them). The serving process starts the worker with `start` and then
 * tells it what changes; the worker reports each ended file and that deliveries were queued.
 */
import type { LiveLoad } from "../../../runtime/admission.ts";

/** The hidden `sawt` command that runs the worker process (src/app/jobs-worker.ts). */
export const JOBS_WORKER_COMMAND = "__jobs-worker";

/** The serving process to its worker. */
export type ToWorker =
  /** First message: the serving process's resolved settings, which the worker runs by. */
  | { readonly type: "start"; readonly config: unknown; readonly load: LiveLoad }
  /** A job was created: claim files. */
  | { readonly type: "wake" }
  /** Stop the running files of a job (cancelled or deleted). */
  | { readonly type: "abort"; readonly jobId: string }
  /** The serving process's live load changed. */
  | { readonly type: "load"; readonly load: LiveLoad }
  /** Stop claiming; running files finish, then exit. */
  | { readonly type: "quiesce" }
  /** Stop now: running files go back to the queue, then exit. */
  | { readonly type: "stop" };

/** The worker to the serving process. */
export type FromWorker =
  /** The worker listens: the serving process answers with `start`. */
  | { readonly type: "hello" }
  /** The worker's ASR engine serves (or could not start: `reason`). */
  | { readonly type: "ready" }
  | { readonly type: "failed"; readonly reason: string }
  /** A file ended (metrics). */
  | { readonly type: "file"; readonly status: "completed" | "failed"; readonly audioSeconds: number }
  /** Webhook deliveries were queued in the store. */
  | { readonly type: "deliveries" };

/** What runs a process's job files: in this process (the worker) or in a worker process. */
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
