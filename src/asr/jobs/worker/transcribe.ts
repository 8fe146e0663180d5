/**
 * One job file's transcription, in the jobs worker process: one `transcribeFile` call, as the
 * synchronous route would make it, and the outcome the worker answers with (./protocol.ts). The
 * serving process writes that outcome (../outcomes.ts):
 *
 * - completed: the result is stored; failed: the audio is unusable (the synchronous route's
 *   400 detail);
 * - retry: the engine is not ready, busy or draining: back to the queue, tried again later;
 * - error: the serving engine failed on this file (one fault of the file's own);
 * - aborted: stopped through no fault of the file (cancelled, or the worker is ending).
 *
 * A source-folder file is checked against the folders again right before it is decoded.
 */
import type { AsrService, TranscriptFormattingRequest } from "../../types.ts";
import { AppError } from "../../../errors/taxonomy.ts";
import { resolveSourcePath, SourcePathError } from "../sources.ts";
import type { FileOutcome, JobFile } from "./protocol.ts";

/** What a job file's transcription needs besides the file. */
export interface TranscribeDeps {
  readonly service: () => AsrService;
  readonly sourceDirs: readonly string[];
  /** What the job's own fields ask of written forms and redaction (the engine adds the floor). */
  readonly formatting: (fields: { itn?: boolean; redact?: string }) => TranscriptFormattingRequest;
}

/**
 * Transcribes one job file as the synchronous route would; never throws. Whatever ends it once
 * `signal` is aborted — the abort itself, or a session released under it as the worker's engine
 * closes — is `aborted`, never the file's fault.
 */
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
