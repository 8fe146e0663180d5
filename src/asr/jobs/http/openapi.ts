/**
 * The OpenAPI operations of the jobs door. Request and response schemas are converted from the
 * valibot schemas the door validates and answers with (../schema.ts), so the docs follow the code.
 */
import type { OpenAPIV3 } from "openapi-types";
import { authedOperation, AUTHED_HEADERS, ref, toOpenApiSchema } from "../../../http/openapi.ts";
import {
  DeliveryLogSchema,
  JobCreatedSchema,
  JobFormRequestSchema,
  JobJsonRequestSchema,
  JobListSchema,
  JobSchema,
} from "../schema.ts";
import { JOB_STATUSES } from "../types.ts";

const jsonResponse = (description: string, schema: OpenAPIV3.SchemaObject): OpenAPIV3.ResponseObject => ({
  description,
  headers: AUTHED_HEADERS,
  content: { "application/json": { schema } },
});

const pathParam = (name: string, example: string): OpenAPIV3.ParameterObject => ({
  name,
  in: "path",
  required: true,
  schema: { type: "string" },
  example,
});

const JOB_ID_PARAM = pathParam("id", "job_box1_0mhxk2p3qa1b2c3d4e5f6");

/** Every operation of the jobs door, by route. */
export function jobOperations() {
  const job = toOpenApiSchema(JobSchema);
  const op = (spec: Parameters<typeof authedOperation>[0]) => authedOperation({ ...spec, tags: ["ASR jobs"] });
  return {
    create: op({
      operationId: "createTranscriptionJob",
      summary: "Create a transcription job",
      description:
        "Transcribes many files in the background, in slots live work leaves free. Either multipart (repeat `file`, plus the " +
        "transcription fields) or JSON `{paths, …fields, callback_url}` naming files or folders under `jobs.source_dirs`. " +
        "Answers 202 once the job is stored (uploads spooled to disk): it survives a restart. More files than `jobs.max_files` is 413; " +
        "a path outside the source folders (`..`, a symlink out, an absolute path elsewhere) or a callback host not in " +
        "`jobs.callback_hosts` is 422.",
      tags: [],
      requestBody: {
        required: true,
        content: {
          "multipart/form-data": {
            schema: toOpenApiSchema(JobFormRequestSchema),
            encoding: { file: { contentType: "audio/*" } },
          },
          "application/json": { schema: toOpenApiSchema(JobJsonRequestSchema) },
        },
      },
      success: { "202": jsonResponse("The job was accepted.", toOpenApiSchema(JobCreatedSchema)) },
      errors: [400, 413, 422],
    }),
    list: op({
      operationId: "listTranscriptionJobs",
      summary: "List transcription jobs",
      description: "The key's jobs (an admin key: every job), newest first, without their file lists.",
      tags: [],
      parameters: [
        { name: "status", in: "query", required: false, schema: { type: "string", enum: [...JOB_STATUSES] } },
        {
          name: "after",
          in: "query",
          required: false,
          schema: { type: "string" },
          description: "`last_id` of the previous page.",
        },
        {
          name: "limit",
          in: "query",
          required: false,
          schema: { type: "integer", minimum: 1, maximum: 100, default: 20 },
        },
      ],
      success: { "200": jsonResponse("A page of jobs.", toOpenApiSchema(JobListSchema)) },
      errors: [422],
    }),
    get: op({
      operationId: "getTranscriptionJob",
      summary: "Get a transcription job",
      description: "Status, counts by state and each file's state. Another key's job is 404.",
      tags: [],
      parameters: [JOB_ID_PARAM],
      success: { "200": jsonResponse("The job.", job) },
      errors: [404],
    }),
    cancel: op({
      operationId: "cancelTranscriptionJob",
      summary: "Cancel a transcription job",
      description: "Files not yet finished are cancelled (a running one is stopped); finished results stay.",
      tags: [],
      parameters: [JOB_ID_PARAM],
      success: { "200": jsonResponse("The job, cancelled.", job) },
      errors: [404],
    }),
    delete: op({
      operationId: "deleteTranscriptionJob",
      summary: "Delete a transcription job",
      description: "Cancels it, then removes its results, delivery log and spooled audio.",
      tags: [],
      parameters: [JOB_ID_PARAM],
      success: {
        "200": jsonResponse("Deleted.", {
          type: "object",
          properties: { id: { type: "string" }, object: { type: "string" }, deleted: { type: "boolean" } },
        }),
      },
      errors: [404],
    }),
    deliveries: op({
      operationId: "listTranscriptionJobDeliveries",
      summary: "A job's webhook delivery log",
      description: "Every webhook of the job: event, state, attempts, last error.",
      tags: [],
      parameters: [JOB_ID_PARAM],
      success: { "200": jsonResponse("The delivery log.", toOpenApiSchema(DeliveryLogSchema)) },
      errors: [404],
    }),
    result: op({
      operationId: "getTranscriptionJobResult",
      summary: "A file's transcript",
      description:
        "Exactly what the synchronous transcription of that file answers, in `response_format` (default: the job's). " +
        "A failed file answers its 400; a file not finished yet is 404.",
      tags: [],
      parameters: [
        JOB_ID_PARAM,
        pathParam("file_id", "file_0001"),
        {
          name: "response_format",
          in: "query",
          required: false,
          schema: { type: "string", enum: ["json", "text", "verbose_json", "srt", "vtt"] },
        },
      ],
      success: {
        "200": {
          description: "The transcript.",
          headers: AUTHED_HEADERS,
          content: {
            "application/json": {
              schema: { oneOf: [ref("schemas", "Transcription"), ref("schemas", "VerboseTranscription")] },
            },
            "text/plain": { schema: { type: "string" } },
            "application/x-subrip": { schema: { type: "string" } },
            "text/vtt": { schema: { type: "string" } },
          },
        },
      },
      errors: [400, 404, 422],
    }),
  };
}
