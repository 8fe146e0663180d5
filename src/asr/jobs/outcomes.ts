/**
 * How a job file's run ends, as the serving process writes it (it is the job store's one
 * writer): a result or a failure with the webhooks it causes, in one transaction; or the file back
 * in the queue, with a fault of its own or without one.
 *
 * The fault rule (issue #39). A file fails for good after {@link MAX_FAULTS} faults of its own,
 * and only two things are its fault:
 * - its worker died while transcribing it, the service alive and not stopping that worker (a
 *   file that crashes the worker three times fails, instead of taking batch work down forever);
 * - the worker's serving engine raised an internal error on it.
 * Nothing else counts: not a restart of the service (the file is found `running` and queued
 * again), not a reload or any other stop of the worker by the service, not a worker that is
 * leaving (it answers `aborted`, even when its engine's sessions were released under the file),
 * not a busy engine. Such a file is simply claimed again. A file with a fault runs alone (see
 * JobStore.claimNext), so its next fault is surely its own and never its neighbours'.
 */
import { rmSync } from "node:fs";
import type { Logger } from "../../log/logger.ts";
import type { JobStore } from "./store.ts";
import type { FileRow } from "./types.ts";
import { endDeliveries } from "./webhooks/events.ts";
import type { FileEnd, FileOutcome } from "./worker/protocol.ts";

/** Faults of its own after which a file fails for good. */
export const MAX_FAULTS = 3;
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
        this.options.log.error("job file failed", {
          job: file.job_id,
          file: file.id,
          faults: file.faults + 1,
          error: outcome.message,
        });
        this.fault(file, "Internal error while transcribing");
        return;
      case "retry":
        this.options.store.release(file);
        return "later";
      case "aborted":
        // Cancelled or deleted (the store already says so: nothing changes), or the worker is
        // leaving: the file is claimed again, with no fault.
        this.options.store.release(file);
        return;
    }
  }

  /**
   * The worker ended with `file` in flight. `died` when it died on its own while the service ran
   * and was not stopping it: a fault of the file's; otherwise the file is only queued again.
   */
  lost(file: FileRow, died: boolean): void {
    if (died) this.fault(file, "The transcription stopped unexpectedly on this file");
    else this.options.store.release(file);
  }

  /** One more fault of the file's own: queued again, or failed with `error` at the last one. */
  private fault(file: FileRow, error: string): void {
    if (file.faults + 1 >= MAX_FAULTS) this.finish(file, { status: "failed", error });
    else this.options.store.release(file, true);
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
