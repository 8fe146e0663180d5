/**
 * The v1 endpoints (D16): POST /synthesize (`text`, `speaker`, WAV by default) and POST /transcribe
 * still work, translated onto the current services, and every response — errors included — says
 * they are deprecated: `Deprecation` (RFC 9745), `Sunset` (RFC 8594), `Link` to the successor and
 * the spec's `X-Deprecation-Warning`.
 */
import { Elysia } from "elysia";
import { TRANSCRIPTION_BODY, transcribeRequest } from "../asr/http.ts";
import type { AppContext } from "../core/context.ts";
import { AppError } from "../errors/taxonomy.ts";
import { authPlugin } from "../http/auth.ts";
import { readJsonBody } from "../http/body.ts";
import { authedOperation, ref } from "../http/openapi.ts";
import { parseSpeechBody, streamSpeech } from "../tts/http.ts";
import { parseSpeechRestFields } from "../tts/http/stream.ts";

/** When v1 was deprecated (release 2.1.0, 2026-07) and when it goes (six months later, per the deprecation policy). */
const DEPRECATED_AT = Date.UTC(2026, 6, 1);
const SUNSET_AT = Date.UTC(2027, 0, 1);

/** The deprecation headers of the v1 route `POST <route>` whose successor is `POST <successor>`. */
export function deprecationHeaders(route: string, successor: string): Record<string, string> {
  const sunset = new Date(SUNSET_AT).toUTCString();
  return {
    deprecation: `@${DEPRECATED_AT / 1000}`,
    sunset,
    link: `<${successor}>; rel="successor-version"`,
    "x-deprecation-warning": `POST ${route} is deprecated and will be removed after ${sunset}; use POST ${successor}`,
  };
}

const SYNTHESIZE_HEADERS = deprecationHeaders("/synthesize", "/v1/tts/audio/speech");
const TRANSCRIBE_HEADERS = deprecationHeaders("/transcribe", "/v1/asr/audio/transcriptions");

/** Maps a v1 body (`text`, `speaker`, WAV default) onto the current speech body. */
export function fromV1Body(body: unknown): unknown {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return body;
  const { text, speaker, response_format, ...rest } = body as Record<string, unknown>;
  return {
    ...rest,
    input: text ?? rest.input,
    voice: speaker ?? rest.voice,
    response_format: response_format ?? "wav",
  };
}

/** Reports 422 fields under their v1 names. */
function v1Fields(error: unknown): unknown {
  if (!(error instanceof AppError) || error.kind !== "validation") return error;
  const names: Record<string, string> = { "body.input": "body.text", "body.voice": "body.speaker" };
  return new AppError("validation", error.detail, {
    fields: error.fields.map((f) => ({ field: names[f.field] ?? f.field, message: f.message })),
  });
}

/** Puts a route's deprecation headers on its response; a transform, so before auth and on every error too. */
function deprecated(headers: Record<string, string>) {
  return ({ set }: { set: { headers: Record<string, unknown> } }) => void Object.assign(set.headers, headers);
}

/** The legacy v1 plugin. */
export function legacyRoutes(ctx: AppContext) {
  return new Elysia({ name: "legacy-http" })
    .use(authPlugin(ctx))
    .post(
      "/synthesize",
      async ({ request, caller, set }) => {
        const body = fromV1Body(await readJsonBody(request, ctx.config.server.max_json_bytes));
        let speech;
        try {
          speech = parseSpeechBody(ctx, body, request.headers.get("x-tts-dialect"));
        } catch (error) {
          throw v1Fields(error);
        }
        return await streamSpeech(
          ctx,
          request,
          speech,
          parseSpeechRestFields(body),
          caller.key.id,
          set.headers["x-request-id"] as string | undefined,
        );
      },
      {
        transform: deprecated(SYNTHESIZE_HEADERS),
        auth: true,
        parse: "none",
        detail: authedOperation({
          operationId: "synthesizeV1",
          summary: "Generate speech (v1, deprecated)",
          description:
            "Deprecated v1 endpoint; use POST /v1/tts/audio/speech. Takes `text` and `speaker` (any field of the current body is accepted too) and answers WAV unless `response_format` says otherwise. Responses carry `Deprecation`, `Sunset`, `Link` and `X-Deprecation-Warning`.",
          tags: ["Legacy v1"],
          deprecated: true,
          requestBody: {
            required: true,
            content: {
              "application/json": {
                schema: ref("schemas", "SynthesizeV1Request"),
                example: { text: "مرحبا بكم", speaker: "Yara" },
              },
            },
          },
          success: {
            "200": {
              description: "The audio (WAV by default).",
              content: { "audio/wav": { schema: { type: "string", format: "binary" } } },
            },
          },
          errors: [400, 413, 422, 503, 504],
        }),
      },
    )
    .post(
      "/transcribe",
      ({ request, caller }) =>
        transcribeRequest(ctx, request, caller, { fileFields: ["file", "audio"], format: "json" }),
      {
        transform: deprecated(TRANSCRIBE_HEADERS),
        auth: true,
        parse: "none",
        detail: authedOperation({
          operationId: "transcribeV1",
          summary: "Transcribe audio (v1, deprecated)",
          description:
            "Deprecated v1 endpoint; use POST /v1/asr/audio/transcriptions. Multipart with the audio in `file` (or `audio`); answers json. Responses carry `Deprecation`, `Sunset`, `Link` and `X-Deprecation-Warning`.",
          tags: ["Legacy v1"],
          deprecated: true,
          requestBody: TRANSCRIPTION_BODY,
          success: {
            "200": {
              description: "The transcript.",
              content: { "application/json": { schema: ref("schemas", "Transcription") } },
            },
          },
          errors: [400, 413, 422, 503, 504],
        }),
      },
    );
}
