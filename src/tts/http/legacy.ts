/**
 * The v1 speech endpoint (D16): POST /synthesize (`text`, `speaker`, WAV by default) still works,
 * translated onto the current speech route, and every response carries the deprecation headers.
 */
import { Elysia } from "elysia";
import type { AppContext } from "../../core/context.ts";
import { AppError } from "../../errors/taxonomy.ts";
import { authPlugin } from "../../http/auth.ts";
import { readJsonBody } from "../../http/body.ts";
import { deprecated, deprecationHeaders } from "../../http/deprecation.ts";
import { authedOperation, ref } from "../../http/openapi.ts";
import { textTooLong } from "../schema.ts";
import { parseSpeechBody, streamSpeech } from "./routes.ts";
import { parseSpeechRestFields } from "./stream.ts";

const SYNTHESIZE_HEADERS = deprecationHeaders("/synthesize", "/v1/tts/audio/speech");

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

/** The legacy v1 speech plugin. */
export function ttsLegacyRoutes(ctx: AppContext) {
  return new Elysia({ name: "tts-legacy-http" }).use(authPlugin(ctx)).post(
    "/synthesize",
    async ({ request, caller, set }) => {
      const body = fromV1Body(
        await readJsonBody(request, ctx.config.server.max_json_bytes, () => textTooLong(ctx.config)),
      );
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
  );
}
