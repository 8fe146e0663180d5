/**
 * Runs the queued files of every job, oldest job first, at most `slots` at once (the admission's
 * batch slots, so claimed files never pile up in memory). Each file is one `transcribeFile` call
 * with `priority: "batch"`: admission runs it only in slots live work leaves free, and it offers
 * its slot to waiting live work at every piece boundary (src/runtime/admission.ts).
 *
 * A file's outcome: completed (result stored), failed (the audio is unusable, or the same file
 * failed internally three times), or back to the queue (the engine is not ready, busy or
 * draining: tried again later). A source-folder file is checked against the folders again right
 * before it is decoded.
 */
import { rmSync } from "node:fs";
import type { AsrService, Transcript, TranscriptFormatting } from "../types.ts";
import { AppError } from "../../errors/taxonomy.ts";
import type { Logger } from "../../log/logger.ts";
import { resolveSourcePath, SourcePathError } from "./sources.ts";
import type { FileCounts, JobStore, NewDelivery } from "./store.ts";
import type { FileRow, JobOptions, JobRow } from "./types.ts";
import type { FileRunner } from "./worker/protocol.ts";

/** What the runner needs from its process. */
export interface RunnerOptions {
  /** The ASR service when it can serve; throws (503) while it cannot. */
  readonly service: () => AsrService;
  /** Files transcribed at once. */
  readonly slots: () => number;
  readonly sourceDirs: readonly string[];
  /** Longest transcript text carried inside a file webhook. */
  readonly inlineChars: number;
  readonly log: Logger;
  /** Hears each ended file (metrics). */
  readonly onFile?: (status: "completed" | "failed", audioSeconds: number) => void;
  /** Called after deliveries were queued. */
  readonly onDeliveries?: () => void;
  /** Written forms and redaction of every result (the server's: written forms, `asr.redact`). */
  /** The call's written forms and redaction from the job's own fields (with the server's floor). */
  readonly formatting?: (fields: { itn?: boolean; redact?: string }) => TranscriptFormatting;
}

/** Times a file may fail with an internal error (or lose its worker) before it fails for good. */
export const MAX_ATTEMPTS = 3;
/** Wait before trying again while the engine cannot take work. */
const RETRY_MS = 500;

/** The URL path of a file's result. */
export function resultPath(jobId: string, fileId: string): string {
  return `/v1/asr/jobs/${jobId}/files/${fileId}/result`;
}

/** The webhooks a file's end queues: the file's, and the job's when it was the last one. */
export function endDeliveries(
  file: FileRow,
  outcome: { status: "completed"; text: string } | { status: "failed"; error: string },
  inlineChars: number,
): (job: JobRow, counts: FileCounts) => { file: NewDelivery; job: NewDelivery } {
  return (job, counts) => ({
    file: {
      event: outcome.status === "completed" ? "file.completed" : "file.failed",
      body: {
        job_id: job.id,
        file: {
          id: file.id,
          name: file.name,
          status: outcome.status,
          ...(outcome.status === "failed" ? { error: outcome.error } : {}),
        },
        ...(outcome.status === "completed" ? { result_url: resultPath(job.id, file.id) } : {}),
        ...(outcome.status === "completed" && outcome.text.length <= inlineChars ? { text: outcome.text } : {}),
      },
    },
    job: jobEndDelivery(job, counts),
  });
}

/** The `job.completed` webhook (also sent for a failed or cancelled job). */
export function jobEndDelivery(job: JobRow, counts: FileCounts): NewDelivery {
  return { event: "job.completed", body: { job_id: job.id, status: job.status, counts } };
}

/** The job runner of the jobs worker process (./worker/). */
export class JobRunner implements FileRunner {
  private readonly active = new Map<string, { file: FileRow; abort: AbortController }>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private stopped = false;

  constructor(
    private readonly store: JobStore,
    private readonly options: RunnerOptions,
  ) {}

  /** Files running now. */
  get running(): number {
    return this.active.size;
  }

  /** Claims queued files while slots are free. */
  wake(): void {
    clearTimeout(this.timer);
    while (!this.stopped && this.active.size < this.options.slots()) {
      let service: AsrService;
      try {
        service = this.options.service();
      } catch {
        this.timer = setTimeout(() => this.wake(), RETRY_MS);
        this.timer.unref?.();
        return;
      }
      const file = this.store.claimNext();
      if (file === undefined) return;
      const abort = new AbortController();
      this.active.set(`${file.job_id}/${file.idx}`, { file, abort });
      void this.run(service, file, abort.signal).finally(() => {
        this.active.delete(`${file.job_id}/${file.idx}`);
        this.wake();
      });
    }
  }

  /** Stops the files of `jobId` that are running (cancel, delete). */
  abortJob(jobId: string): void {
    for (const { file, abort } of this.active.values()) if (file.job_id === jobId) abort.abort(new Error("cancelled"));
  }

  /** Stops claiming new files; running ones finish (the shutdown drain waits for their slots). */
  quiesce(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  /** Stops claiming; running files are aborted and queued again (the next start redoes them). */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    const running = [...this.active.values()];
    for (const { abort } of running) abort.abort(new Error("stopping"));
    while (this.active.size > 0) await Bun.sleep(10);
  }

  private async run(service: AsrService, file: FileRow, signal: AbortSignal): Promise<void> {
    const job = this.store.job(file.job_id);
    if (job === undefined) return;
    const options = JSON.parse(job.options) as JobOptions;
    let transcript: Transcript;
    try {
      const path = file.spooled === 1 ? file.path : resolveSourcePath(file.path, this.options.sourceDirs);
      transcript = await service.transcribeFile(path, {
        signal,
        keyId: job.key_id,
        priority: "batch",
        ...(options.model !== undefined ? { model: options.model } : {}),
        ...(options.prompt !== undefined ? { prompt: options.prompt } : {}),
        ...(options.temperature !== undefined ? { temperature: options.temperature } : {}),
        ...(options.language !== undefined ? { language: options.language } : {}),
        ...(options.channels !== undefined ? { channels: options.channels } : {}),
        ...(options.speakers !== undefined ? { speakers: options.speakers } : {}),
        ...(options.hotwords !== undefined ? { hotwords: options.hotwords } : {}),
        ...(this.options.formatting
          ? {
              formatting: this.options.formatting({
                ...(options.itn !== undefined ? { itn: options.itn } : {}),
                ...(options.redact !== undefined ? { redact: options.redact } : {}),
              }),
            }
          : {}),
      });
    } catch (error) {
      if (signal.aborted || this.stopped) {
        // Cancelled (the store already says so) or stopping (back to the queue for the next start).
        if (this.stopped) this.store.release(file);
        return;
      }
      const reason = this.failure(error, file);
      if (reason === undefined) {
        this.store.release(file);
        await Bun.sleep(RETRY_MS);
        return;
      }
      this.end(file, { status: "failed", error: reason }, 0);
      return;
    }
    // A file cancelled meanwhile is no longer running: finish() then writes nothing.
    this.end(file, { status: "completed", text: transcript.text, result: transcript }, transcript.duration);
  }

  /** Why a failed file fails for good, or undefined to queue it again. */
  private failure(error: unknown, file: FileRow): string | undefined {
    if (error instanceof SourcePathError) return error.message;
    if (error instanceof AppError) {
      if (error.kind === "unavailable" || error.kind === "timeout") return undefined;
      if (error.kind !== "internal") return error.detail;
    }
    this.options.log.error("job file failed", { job: file.job_id, file: file.id, error: String(error) });
    return file.attempts >= MAX_ATTEMPTS ? "Internal error while transcribing" : undefined;
  }

  private end(
    file: FileRow,
    outcome: { status: "completed"; text: string; result: Transcript } | { status: "failed"; error: string },
    audioSeconds: number,
  ): void {
    const deliveries = endDeliveries(file, outcome, this.options.inlineChars);
    const written = this.store.finish(
      file,
      outcome.status === "completed"
        ? { status: "completed", result: JSON.stringify(outcome.result), audioSeconds }
        : outcome,
      deliveries,
    );
    if (!written) return;
    // Uploaded audio is deleted once transcribed (D18); a crash before this leaves it to the sweeper.
    if (file.spooled === 1) rmSync(file.path, { force: true });
    this.options.onFile?.(outcome.status, audioSeconds);
    this.options.onDeliveries?.();
  }
}
