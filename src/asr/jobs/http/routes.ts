/**
 * REST front door of transcription jobs (issue #28): POST/GET /v1/asr/jobs, GET/DELETE
 * /v1/asr/jobs/{id}, POST …/cancel, GET …/files/{file_id}/result, GET …/deliveries. A job is
 * private to the key that created it (another key gets 404); an admin key sees every job.
 *
 * Routes only: the wiring (src/app/jobs.ts) builds and starts the process's {@link JobsService}
 * (its store, worker process, webhooks and sweeper) and hands it to this door.
 */
import { json } from "../../../http/json.ts";
import { Elysia } from "elysia";
import type { AppContext } from "../../../core/context.ts";
import { allowedExtension, UPLOAD_PREFIX, uploadDir, uploadTooLarge } from "../../../audio/upload.ts";
import { AppError, Detail } from "../../../errors/taxonomy.ts";
import { authPlugin, type Caller } from "../../../http/auth.ts";
import { readJsonBody } from "../../../http/body.ts";
import { receiveUpload } from "../../../http/upload.ts";
import { parseTranscriptionForm, transcriptionOptions, type TranscriptionForm } from "../../schema.ts";
import { TRANSCRIPT_FORMATS, type TranscriptFormat } from "../../types.ts";
import { JOB_ID } from "../ids.ts";
import { jobOptions, parseJobJson } from "../schema.ts";
import type { JobCaller, JobsService } from "../service.ts";
import { expandSourcePath, SourcePathError, TooManyFilesError } from "../sources.ts";
import { JOB_STATUSES, type JobStatus } from "../types.ts";
import { jobOperations } from "./openapi.ts";
import { formattingRequest } from "../../format/request.ts";

/** Response header naming the recogniser pack that answered (as the synchronous route sends it). */
const ASR_MODEL_HEADER = "X-ASR-Model";

const whoIs = (caller: Caller): JobCaller => ({ keyId: caller.key.id, admin: caller.key.admin });

const invalid = (field: string, message: string) =>
  new AppError("validation", Detail.validationFailed, { fields: [{ field, message }] });

/** POST /v1/asr/jobs: multipart uploads or JSON paths. */
async function createJob(ctx: AppContext, jobs: JobsService, request: Request, caller: Caller): Promise<Response> {
  const type = request.headers.get("content-type") ?? "";
  if (/^\s*multipart\/form-data/i.test(type)) {
    const maxMb = ctx.config.jobs.max_upload_mb;
    const upload = await receiveUpload(request, {
      dir: uploadDir(ctx.config.paths.data_dir),
      prefix: UPLOAD_PREFIX,
      maxBytes: maxMb * 1024 * 1024,
      tooLarge: () => uploadTooLarge(maxMb),
      extensionOf: allowedExtension,
      maxFiles: ctx.config.jobs.max_files,
      tooManyFiles: () => jobs.tooMany(ctx.config.jobs.max_files + 1)!,
    });
    try {
      const { stream: _stream, callback_url, ...fields } = upload.fields;
      const form = parseTranscriptionForm(fields, upload.fieldValues);
      const options = resolvedOptions(ctx, form, "form");
      const callback = jobs.webhookUrl(callback_url, "form.callback_url");
      const files = upload.files.map((f) => ({ name: f.filename.slice(0, 255), path: f.path, spooled: true }));
      return json(created(jobs.create(whoIs(caller), options, callback, files)), 202);
    } finally {
      await upload.remove(); // what was moved into the job is no longer there
    }
  }
  if (!/^\s*application\/json/i.test(type))
    throw new AppError("bad_request", "Content-Type must be multipart/form-data or application/json");
  const body = parseJobJson(await readJsonBody(request, ctx.config.server.max_json_bytes));
  const tooMany = jobs.tooMany(body.paths.length);
  if (tooMany) throw tooMany;
  const callback = jobs.webhookUrl(body.callback_url, "body.callback_url");
  const { paths, callback_url: _c, timestamp_granularities, ...fields } = body;
  const form = { ...fields, "timestamp_granularities[]": timestamp_granularities };
  const options = resolvedOptions(ctx, form, "body");
  const files = paths.flatMap((path, index) => {
    try {
      return expandSourcePath(path, ctx.config.jobs.source_dirs, ctx.config.jobs.max_files);
    } catch (error) {
      if (error instanceof SourcePathError) throw invalid(`body.paths[${index}]`, error.message);
      if (error instanceof TooManyFilesError) throw jobs.tooMany(ctx.config.jobs.max_files + 1)!;
      throw error;
    }
  });
  if (files.length === 0) throw invalid("body.paths", "Names no audio file");
  const job = jobs.create(
    whoIs(caller),
    options,
    callback,
    files.map((f) => ({ ...f, spooled: false })),
  );
  return json(created(job), 202);
}

/** The 202 body: id, status and the files (the wire shape of issue #28). */
function created(job: ReturnType<JobsService["view"]>) {
  return { id: job.id, status: job.status, files: job.files };
}

function jobId(id: string): string {
  // Not one of ours: 404 as for an unknown job (no store lookup for arbitrary text).
  if (!JOB_ID.test(id)) throw new AppError("not_found", "Job not found");
  return id;
}

/** The jobs REST plugin over the process's jobs service. */
export function jobsRoutes(ctx: AppContext, jobs: JobsService) {
  const ops = jobOperations();
  return new Elysia({ name: "asr-jobs-http" })
    .use(authPlugin(ctx))
    .post("/v1/asr/jobs", ({ request, caller }) => createJob(ctx, jobs, request, caller), {
      auth: true,
      parse: "none",
      detail: ops.create,
    })
    .get(
      "/v1/asr/jobs",
      ({ caller, query }) => {
        const status = query.status;
        if (status !== undefined && !(JOB_STATUSES as readonly string[]).includes(status))
          throw invalid("query.status", `Must be one of: ${JOB_STATUSES.join(", ")}`);
        const after = query.after;
        if (after !== undefined && !JOB_ID.test(after)) throw invalid("query.after", "Must be a job id");
        const limit = query.limit === undefined ? 20 : Number(query.limit);
        if (!Number.isInteger(limit) || limit < 1 || limit > 100)
          throw invalid("query.limit", "Must be an integer between 1 and 100");
        const filter = { ...(status ? { status: status as JobStatus } : {}), ...(after ? { after } : {}), limit };
        return json(jobs.list(whoIs(caller), filter));
      },
      { auth: true, detail: ops.list },
    )
    .get("/v1/asr/jobs/:id", ({ caller, params }) => json(jobs.view(jobs.job(whoIs(caller), jobId(params.id)))), {
      auth: true,
      detail: ops.get,
    })
    .delete(
      "/v1/asr/jobs/:id",
      ({ caller, params }) => {
        jobs.delete(whoIs(caller), jobId(params.id));
        return json({ id: params.id, object: "job", deleted: true });
      },
      { auth: true, detail: ops.delete },
    )
    .post("/v1/asr/jobs/:id/cancel", ({ caller, params }) => json(jobs.cancel(whoIs(caller), jobId(params.id))), {
      auth: true,
      parse: "none",
      detail: ops.cancel,
    })
    .get(
      "/v1/asr/jobs/:id/deliveries",
      ({ caller, params }) => json(jobs.deliveries(whoIs(caller), jobId(params.id))),
      { auth: true, detail: ops.deliveries },
    )
    .get(
      "/v1/asr/jobs/:id/files/:file_id/result",
      ({ caller, params, query }) => {
        const format = query.response_format;
        if (format !== undefined && !(TRANSCRIPT_FORMATS as readonly string[]).includes(format))
          throw invalid("query.response_format", `Must be one of: ${TRANSCRIPT_FORMATS.join(", ")}`);
        const rendered = jobs.result(whoIs(caller), jobId(params.id), params.file_id, format as TranscriptFormat);
        const headers: Record<string, string> = { "content-type": rendered.contentType, "cache-control": "no-store" };
        if (rendered.model !== undefined) headers[ASR_MODEL_HEADER] = rendered.model;
        return new Response(rendered.body, { headers });
      },
      { auth: true, detail: ops.result },
    );
}

/**
 * A request's job options as the synchronous route would take them: its own phrases (the engine
 * adds the key's list when each file runs), the server's speaker labels when it names none, and
 * its redaction names checked now (422 naming `<where>.redact`) rather than when a file runs.
 */
function resolvedOptions(ctx: AppContext, form: TranscriptionForm, where: "form" | "body") {
  const asked = transcriptionOptions(form);
  formattingRequest(form, `${where}.redact`);
  return jobOptions(form, { hotwords: asked.hotwords ?? [], speakers: form.speakers ?? ctx.config.asr.speakers });
}
