/**
 * The v1 transcription endpoint (D16): POST /transcribe still works, translated onto the current
 * transcription route, and every response carries the deprecation headers.
 */
import { Elysia } from "elysia";
import type { AppContext } from "../../core/context.ts";
import { authPlugin } from "../../http/auth.ts";
import { deprecated, deprecationHeaders } from "../../http/deprecation.ts";
import { authedOperation, ref } from "../../http/openapi.ts";
import { TRANSCRIPTION_BODY, transcribeRequest } from "./routes.ts";

const TRANSCRIBE_HEADERS = deprecationHeaders("/transcribe", "/v1/asr/audio/transcriptions");

/** The legacy v1 transcription plugin. */
export function asrLegacyRoutes(ctx: AppContext) {
  return new Elysia({ name: "asr-legacy-http" })
    .use(authPlugin(ctx))
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
