/**
 * REST front door of ASR: POST /v1/asr/audio/transcriptions, POST /v1/asr/transcribe (the same,
 * D14) and the alias /v1/audio/transcriptions (D16). The upload streams to a private temp file
 * (src/http/audio-upload.ts), the form fields are validated by the one schema, the engine gate admits, the
 * service transcribes, the result is rendered in the requested format. The temp file is deleted
 * in every outcome (D18).
 */
import { Elysia } from "elysia";
import type { OpenAPIV3 } from "openapi-types";
import type { AppContext } from "../../core/context.ts";
import { readyService } from "../../edge/readiness.ts";
import { authPlugin, type Caller } from "../../http/auth.ts";
import { authedOperation, AUTHED_HEADERS, ref } from "../../http/openapi.ts";
import { renderTranscript } from "../../transcripts/formats.ts";
import { granularities, parseTranscriptionForm, transcriptionOptions } from "../schema.ts";
import type { TranscriptFormat } from "../types.ts";
import { receiveAudioUpload } from "../../http/audio-upload.ts";
import { sweepStaleUploads } from "../../audio/upload.ts";
import { streamTranscription } from "./sse.ts";

/** Form fields holding hotword lists, which may be longer than other fields. */
const HOTWORD_FIELDS = ["hotwords", "hotwords[]"];
import { formattingRequest } from "../format/request.ts";

/** Response header naming the recogniser pack that answered (absent when no speech was recognised). */
export const ASR_MODEL_HEADER = "X-ASR-Model";

/** How a transcription route reads its request. */
export interface TranscribeOptions {
  /** Names the file part may have (legacy v1 also accepts `audio`). */
  readonly fileFields?: readonly string[];
  /** Format to answer in regardless of the form (legacy v1 answers json). */
  readonly format?: TranscriptFormat;
}

/**
 * Handles one authenticated transcription request end to end; shared by the current and legacy
 * routes (whose `auth: true` checked the key before the upload is read).
 */
export async function transcribeRequest(
  ctx: AppContext,
  request: Request,
  caller: Caller,
  options: TranscribeOptions = {},
): Promise<Response> {
  const upload = await receiveAudioUpload(request, {
    dataDir: ctx.config.paths.data_dir,
    maxUploadMb: ctx.config.asr.max_upload_mb,
    fileFields: options.fileFields,
    listFields: HOTWORD_FIELDS,
  });
  let handedOver = false;
  try {
    const { stream, ...fields } = upload.fields;
    const form = parseTranscriptionForm(fields, upload.fieldValues);
    // What the form asked; the engine adds the key's phrase list and the redaction floor.
    const callOptions = {
      signal: request.signal,
      keyId: caller.key.id,
      ...transcriptionOptions(form),
      formatting: formattingRequest(form, "form.redact"),
    };
    if (options.format === undefined && stream?.trim().toLowerCase() === "true") {
      const asr = readyService(ctx, "asr");
      handedOver = true;
      const speakers = form.speakers ?? ctx.config.asr.speakers;
      return streamTranscription(asr, upload, callOptions, {
        diarized: form.response_format === "diarized_json",
        speakers,
      });
    }
    const transcript = await readyService(ctx, "asr").transcribeFile(upload.path, callOptions);
    const rendered = renderTranscript(transcript, options.format ?? form.response_format, {
      granularities: granularities(form),
      speakers: form.speakers ?? ctx.config.asr.speakers,
    });
    const headers: Record<string, string> = { "content-type": rendered.contentType, "cache-control": "no-store" };
    if (transcript.model !== undefined) headers[ASR_MODEL_HEADER] = transcript.model;
    return new Response(rendered.body, { headers });
  } finally {
    if (!handedOver) await upload.remove();
  }
}

const EXAMPLE_TRANSCRIPT = {
  text: "السلام عليكم، أبي أعرف وين وصل طلبي",
  language: "ar",
  dialect: "ar-najdi",
  duration: 3.2,
};

/** The multipart request body of the transcription routes. */
export const TRANSCRIPTION_BODY: OpenAPIV3.RequestBodyObject = {
  required: true,
  content: {
    "multipart/form-data": {
      schema: ref("schemas", "TranscriptionRequest"),
      encoding: { file: { contentType: "audio/*" } },
    },
  },
};

const TRANSCRIPTION_SUCCESS: OpenAPIV3.ResponseObject = {
  description: "The transcript in the requested format (json by default). Dialectal spelling is kept.",
  headers: {
    ...AUTHED_HEADERS,
    [ASR_MODEL_HEADER]: {
      description: "The recogniser pack (folder name) that answered; absent when the audio held no speech.",
      schema: { type: "string" },
    },
  },
  content: {
    "application/json": {
      schema: {
        oneOf: [
          ref("schemas", "Transcription"),
          ref("schemas", "VerboseTranscription"),
          ref("schemas", "DiarizedTranscription"),
        ],
      },
      example: EXAMPLE_TRANSCRIPT,
    },
    "text/plain": { schema: { type: "string" }, example: `${EXAMPLE_TRANSCRIPT.text}\n` },
    "application/x-subrip": {
      schema: { type: "string" },
      example: `1\n00:00:00,000 --> 00:00:03,200\n${EXAMPLE_TRANSCRIPT.text}\n`,
    },
    "text/vtt": {
      schema: { type: "string" },
      example: `WEBVTT\n\n00:00:00.000 --> 00:00:03.200\n${EXAMPLE_TRANSCRIPT.text}\n`,
    },
    "text/event-stream": {
      schema: {
        type: "string",
        description:
          "With `stream=true`: Server-Sent Events, `transcript.text.delta` per segment, then `transcript.text.done`. " +
          "Split channels: each delta carries `channel` and `speaker` (deltas add up per channel), and with " +
          "response_format=diarized_json a `transcript.text.segment` event per segment, in time order, precedes the done event.",
      },
      example: `data: {"type":"transcript.text.delta","delta":"السلام عليكم"}\n\ndata: {"type":"transcript.text.done","text":"السلام عليكم","usage":{"type":"duration","seconds":3.2}}\n\n`,
    },
  },
};

function transcriptionOperation(operationId: string, summary: string, note: string): OpenAPIV3.OperationObject {
  return authedOperation({
    operationId,
    summary,
    description:
      `${note}Upload one audio file (${"flac, mp3, mp4, mpeg, mpga, m4a, ogg, wav, webm"}; at most 100 MB, refused with 413 while it streams). ` +
      "The dialect (Najdi, Hejazi, Qassimi, Egyptian, Levantine) is detected; `language` may only be `ar`. " +
      "Corrupt or unreadable audio is 400 `Couldn't transcribe the file: <reason>`. Audio is deleted after processing.",
    tags: ["ASR"],
    requestBody: TRANSCRIPTION_BODY,
    success: { "200": TRANSCRIPTION_SUCCESS },
    errors: [400, 413, 422, 503, 504],
  });
}

/** The ASR REST plugin. Deletes uploads a previous process left behind. */
export function asrRoutes(ctx: AppContext) {
  const removed = sweepStaleUploads(ctx.config.paths.data_dir);
  if (removed > 0) ctx.log.warn("removed stale uploads", { count: removed });
  return new Elysia({ name: "asr-http" })
    .use(authPlugin(ctx))
    .post("/v1/asr/audio/transcriptions", ({ request, caller }) => transcribeRequest(ctx, request, caller), {
      auth: true,
      parse: "none",
      detail: transcriptionOperation("createTranscription", "Transcribe audio", ""),
    })
    .post("/v1/asr/transcribe", ({ request, caller }) => transcribeRequest(ctx, request, caller), {
      auth: true,
      parse: "none",
      detail: transcriptionOperation(
        "transcribe",
        "Transcribe audio (second route)",
        "Behaves exactly like POST /v1/asr/audio/transcriptions.\n\n",
      ),
    })
    .post("/v1/audio/transcriptions", ({ request, caller }) => transcribeRequest(ctx, request, caller), {
      auth: true,
      parse: "none",
      detail: transcriptionOperation(
        "createTranscriptionAlias",
        "Transcribe audio (released v2 path, alias)",
        "Alias of POST /v1/asr/audio/transcriptions.\n\n",
      ),
    });
}
