/**
 * The jobs API's shapes, declared once (valibot) for validation, types and the API docs: the
 * JSON request (`paths` under the source folders, the transcription fields, `callback_url`), the
 * job as GET answers it, and a page of the list. The transcription fields are ASR's own
 * (../schema.ts), so a job's options mean exactly what a synchronous request's do.
 */
import * as v from "valibot";
import { BODY_FIELDS, fieldErrors } from "../../errors/fields.ts";
import { AppError, Detail } from "../../errors/taxonomy.ts";
import { granularities, transcriptionOptions, TranscriptionFormSchema, type TranscriptionForm } from "../schema.ts";
import type { Hotword } from "../types.ts";
import { JOB_STATUSES, type JobOptions } from "./types.ts";

const { "timestamp_granularities[]": granularityField, ...formFields } = TranscriptionFormSchema.entries;

const CALLBACK_URL = v.optional(
  v.pipe(
    v.string(),
    v.description(
      "Extension: where the webhooks go (a host in `jobs.callback_hosts`): one POST per finished file and one when the job ends, signed `Sawt-Signature: t=…,v1=…` (HMAC-SHA256 over `<t>.<body>`).",
    ),
    v.examples(["https://qa.example.lan/sawt-hooks"]),
  ),
);

/** POST /v1/asr/jobs as JSON: files under the operator's source folders. */
export const JobJsonRequestSchema = v.object({
  paths: v.pipe(
    v.array(v.string("Must be a string"), "Must be a list of paths"),
    v.minLength(1, "Must name at least one path"),
    v.metadata({ required: true }),
    v.description(
      "Files or folders under `jobs.source_dirs` (absolute, or relative to the first folder); a folder names every audio file below it. Paths are resolved, symlinks too, and must stay inside.",
    ),
    v.examples([["/mnt/recordings/2026-11-24"]]),
  ),
  ...formFields,
  timestamp_granularities: granularityField,
  callback_url: CALLBACK_URL,
});

/** The multipart form of POST /v1/asr/jobs: repeated `file` parts plus these fields. */
export const JobFormRequestSchema = v.object({
  file: v.pipe(
    v.array(v.pipe(v.string(), v.metadata({ format: "binary" }))),
    v.description("One part per audio file (repeat the field); all together at most `jobs.max_upload_mb`."),
  ),
  ...TranscriptionFormSchema.entries,
  callback_url: CALLBACK_URL,
});

/**
 * The options a validated request gives its job: every field a synchronous transcription takes
 * (issue #28), read by the same schema and `transcriptionOptions`, so a file's result is what its
 * synchronous transcription answers. `resolved` is what the door settled when the job was created
 * (the key's phrase list merged in, the server's speaker labels).
 */
export function jobOptions(
  form: TranscriptionForm,
  resolved: { readonly hotwords: readonly Hotword[]; readonly speakers: readonly string[] },
): JobOptions {
  const { hotwords: _asked, ...asked } = transcriptionOptions(form);
  const redact = typeof form.redact === "string" ? form.redact : undefined;
  return {
    response_format: form.response_format,
    granularities: granularities(form),
    ...asked,
    ...(resolved.hotwords.length > 0 ? { hotwords: resolved.hotwords } : {}),
    ...(resolved.speakers.length > 0 ? { speakers: resolved.speakers } : {}),
    ...(form.itn !== undefined ? { itn: form.itn } : {}),
    ...(redact !== undefined && redact.trim() !== "" ? { redact } : {}),
  };
}

/** Validates a JSON request (422 with `body.*` fields). */
export function parseJobJson(body: unknown): v.InferOutput<typeof JobJsonRequestSchema> {
  // JSON may say `"itn": false` where a form says "false".
  const input =
    typeof body === "object" && body !== null && typeof (body as { itn?: unknown }).itn === "boolean"
      ? { ...body, itn: String((body as { itn: boolean }).itn) }
      : body;
  const result = v.safeParse(JobJsonRequestSchema, input);
  if (!result.success)
    throw new AppError("validation", Detail.validationFailed, { fields: fieldErrors(result.issues, BODY_FIELDS) });
  return result.output;
}

const STATUS = v.picklist(JOB_STATUSES);
const count = v.pipe(v.number(), v.integer());

/** One file of a job. */
const JobFileSchema = v.object({
  id: v.pipe(v.string(), v.examples(["file_0001"])),
  name: v.pipe(v.string(), v.description("The upload's file name, or the path as the request named it.")),
  status: STATUS,
  error: v.optional(v.pipe(v.string(), v.description("Why the file failed."))),
});

/** 202 of POST /v1/asr/jobs. */
export const JobCreatedSchema = v.object({
  id: v.pipe(
    v.string(),
    v.description("`job_<box>_…`: the box that owns the job (route its URLs there)."),
    v.examples(["job_box1_0mhxk2p3qa1b2c3d4e5f6"]),
  ),
  status: STATUS,
  files: v.array(JobFileSchema),
});

const COUNTS = v.object({ queued: count, running: count, completed: count, failed: count, cancelled: count });
const UNIX = (what: string) => v.pipe(v.number(), v.integer(), v.description(`${what}, Unix seconds.`));

/** GET /v1/asr/jobs/{id}. */
export const JobSchema = v.object({
  id: v.string(),
  status: STATUS,
  counts: COUNTS,
  files: v.array(JobFileSchema),
  created_at: UNIX("When the job was accepted"),
  completed_at: v.optional(UNIX("When its last file ended or it was cancelled")),
  callback_url: v.optional(v.string()),
});

/** A page of GET /v1/asr/jobs (newest first). */
export const JobListSchema = v.object({
  object: v.picklist(["list"]),
  data: v.array(v.object({ ...JobSchema.entries, files: v.optional(v.array(JobFileSchema)) })),
  has_more: v.boolean(),
  last_id: v.pipe(v.nullable(v.string()), v.description("Pass as `after` for the next page.")),
});

/** One webhook delivery of a job's log. */
export const DeliverySchema = v.object({
  id: v.pipe(v.string(), v.description("Also the `Idempotency-Key` header, the same on every retry.")),
  event: v.picklist(["file.completed", "file.failed", "job.completed"]),
  status: v.picklist(["pending", "delivered", "failed"]),
  attempts: count,
  last_error: v.optional(v.string()),
  created_at: UNIX("When the event happened"),
  delivered_at: v.optional(UNIX("When the receiver answered 2xx")),
});

/** GET /v1/asr/jobs/{id}/deliveries. */
export const DeliveryLogSchema = v.object({ object: v.picklist(["list"]), data: v.array(DeliverySchema) });

/** The job as GET answers it. */
export type JobView = v.InferOutput<typeof JobSchema>;
