/**
 * How a job file's run ends, as the serving process writes it (it is the job store's one
 * writer): a result or a failure with the webhooks it causes, in one transaction; or the file back
 * in the queue. A file that failed internally, or whose worker was lost under it, at
 * {@link MAX_ATTEMPTS} of its claims fails for good.
 */
import { rmSync } from "node:fs";
import type { Logger } from "../../log/logger.ts";
import type { JobStore } from "./store.ts";
import type { FileRow } from "./types.ts";
import { endDeliveries } from "./webhooks/events.ts";
import type { FileEnd, FileOutcome } from "./worker/protocol.ts";

/** Claims at which a file that fails internally (or loses its worker) fails for good. */
export const MAX_ATTEMPTS = 3;
/** Wait before claiming again while the engine cannot take work. */
export const RETRY_MS = 500;

/** What writing outcomes needs. */
export interface OutcomeOptions {
  readonly store: JobStore;
  /** Longest transcript text carried inside a file webhook. */
  readonly inlineChars: number;
  readonly log: Logger;
  readonly onFile?: (status: "completed" | "failed", audioSeconds: number) => void;
  /** Webhook deliveries were queued. */
  readonly onDeliveries?: () => void;
}

/** Writes how job files' runs ended. */
export class FileOutcomes {
  constructor(private readonly options: OutcomeOptions) {}

  /**
   * Writes the outcome the worker answered for `file`. Returns "later" when the engine could not
   * take the file now: the caller claims again after {@link RETRY_MS}.
   */
  settle(file: FileRow, outcome: FileOutcome): "later" | undefined {
    switch (outcome.status) {
      case "completed":
      case "failed":
        this.finish(file, outcome);
        return;
      case "error":
        this.options.log.error("job file failed", { job: file.job_id, file: file.id, error: outcome.message });
        this.fault(file, "Internal error while transcribing");
        return;
      case "retry":
        this.options.store.release(file);
        return "later";
      case "aborted":
        // Cancelled or deleted (the store already says so: nothing changes), or the worker stopped.
        this.options.store.release(file);
        return;
    }
  }

  /** The worker ended with `file` in flight; `crashed` when it was not killed by this side. */
  lost(file: FileRow, crashed: boolean): void {
    if (crashed) this.fault(file, "The transcription stopped unexpectedly on this file");
    else this.options.store.release(file);
  }

  /** Queued again, or failed with `error` at its last attempt. */
  private fault(file: FileRow, error: string): void {
    if (file.attempts >= MAX_ATTEMPTS) this.finish(file, { status: "failed", error });
    else this.options.store.release(file);
  }

  /** Stores a file's result or error with its webhooks (nothing when it was cancelled or deleted meanwhile). */
  private finish(file: FileRow, ended: FileEnd): void {
    const audioSeconds = ended.status === "completed" ? ended.transcript.duration : 0;
    const written = this.options.store.finish(
      file,
      ended.status === "completed"
        ? { status: "completed", result: JSON.stringify(ended.transcript), audioSeconds }
        : ended,
      endDeliveries(file, ended, this.options.inlineChars),
    );
    if (!written) return;
    // Uploaded audio is deleted once transcribed (D18); a crash before this leaves it to the sweeper.
    if (file.spooled === 1) rmSync(file.path, { force: true });
    this.options.onFile?.(ended.status, audioSeconds);
    this.options.onDeliveries?.();
  }
}
