/**
 * One job file's transcription and what its end writes. The jobs worker process runs
 * {@link transcribeJobFile}: one `transcribeFile` call, as the synchronous route would make
 * it. The serving process claims files, sends them to the worker
 * (which it pauses while live work runs), and writes each outcome (./worker/process-runner.ts):
 *
 * - completed: the result is stored; failed: the audio is unusable (the synchronous route's
 *   400 detail), or the same file failed internally {@link MAX_ATTEMPTS} times;
 * - retry: the engine is not ready, busy or draining: back to the queue, tried again later.
 *
 * A source-folder file is checked against the folders again right before it is decoded.
 */
import type { AsrService, Transcript, TranscriptFormatting } from "../types.ts";
import { AppError } from "../../errors/taxonomy.ts";
import { resolveSourcePath, SourcePathError } from "./sources.ts";
import type { FileCounts, NewDelivery } from "./store.ts";
import type { FileRow, JobOptions, JobRow } from "./types.ts";

/** Times a file may fail with an internal error (or lose its worker) before it fails for good. */
export const MAX_ATTEMPTS = 3;
/** Wait before trying again while the engine cannot take work. */
export const RETRY_MS = 500;

/** The URL path of a file's result. */
export function resultPath(jobId: string, fileId: string): string {
  return `/v1/asr/jobs/${jobId}/files/${fileId}/result`;
}

/** The webhooks a file's end queues: the file's, and the job's when it was the last one. */
export function endDeliveries(
  file: FileRow,
  outcome: FileEnd,
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
        ...(outcome.status === "completed" && outcome.transcript.text.length <= inlineChars
          ? { text: outcome.transcript.text }
          : {}),
      },
    },
    job: jobEndDelivery(job, counts),
  });
}

/** The `job.completed` webhook (also sent for a failed or cancelled job). */
export function jobEndDelivery(job: JobRow, counts: FileCounts): NewDelivery {
  return { event: "job.completed", body: { job_id: job.id, status: job.status, counts } };
}

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
}

/** How one transcription of a job file ended. */
export type FileOutcome =
  | { readonly status: "completed"; readonly transcript: Transcript }
  /** The file cannot be transcribed: the synchronous route's detail. */
  | { readonly status: "failed"; readonly error: string }
  /** The engine could not take it now (not ready, busy, draining). */
  | { readonly status: "retry" }
  /** An internal error: retried up to {@link MAX_ATTEMPTS} claims. */
  | { readonly status: "error"; readonly message: string }
  /** Stopped: the job was cancelled or deleted, or the worker is stopping. */
  | { readonly status: "aborted" };

/** The outcomes that end a file for good. */
export type FileEnd = Extract<FileOutcome, { status: "completed" | "failed" }>;

/** What a job file's transcription needs besides the file. */
export interface TranscribeDeps {
  readonly service: () => AsrService;
  readonly sourceDirs: readonly string[];
  /** The call's written forms and redaction from the job's own fields (with the server's floor). */
  readonly formatting: (fields: { itn?: boolean; redact?: string }) => TranscriptFormatting;
}

/** Transcribes one job file as the synchronous route would; never throws. */
export async function transcribeJobFile(
  file: JobFile,
  deps: TranscribeDeps,
  signal: AbortSignal,
): Promise<FileOutcome> {
  // The job's stored options are the call's, but for the answer's shape and the formatting fields.
  const { response_format: _format, granularities: _granularities, itn, redact, ...call } = file.options;
  try {
    const path = file.spooled ? file.path : resolveSourcePath(file.path, deps.sourceDirs);
    const transcript = await deps.service().transcribeFile(path, {
      ...call,
      signal,
      keyId: file.keyId,
      formatting: deps.formatting({
        ...(itn !== undefined ? { itn } : {}),
        ...(redact !== undefined ? { redact } : {}),
      }),
    });
    return { status: "completed", transcript };
  } catch (error) {
    if (signal.aborted) return { status: "aborted" };
    if (error instanceof SourcePathError) return { status: "failed", error: error.message };
    if (error instanceof AppError) {
      if (error.kind === "unavailable" || error.kind === "timeout") return { status: "retry" };
      if (error.kind !== "internal") return { status: "failed", error: error.detail };
    }
    return { status: "error", message: String(error) };
  }
}

/** The file a claimed row describes, for the worker. */
export function jobFileOf(file: FileRow, job: JobRow): JobFile {
  return {
    jobId: file.job_id,
    idx: file.idx,
    attempts: file.attempts,
    path: file.path,
    spooled: file.spooled === 1,
    keyId: job.key_id,
    options: JSON.parse(job.options) as JobOptions,
  };
}
