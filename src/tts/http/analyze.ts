/**
 * POST /v1/tts/analyze: how a prompt will be read, before it goes live. Same body, auth, rate
 * limit and validation as POST /v1/tts/audio/speech; answers per sentence the normalised text
 * (lexicon applied, numbers, dates and currency read out), the diacritised text, the phonemes the
 * voice will be fed, and the voice, dialect and engine that would speak it (SSML `<lang>` parts
 * name their own voice; `<break>`s appear as breaks). Nothing is synthesised.
 */
import { Elysia } from "elysia";
import type { OpenAPIV3 } from "openapi-types";
import type { AppContext } from "../../core/context.ts";
import { readyService } from "../../edge/readiness.ts";
import { authPlugin } from "../../http/auth.ts";
import { readJsonBody } from "../../http/body.ts";
import { textTooLong } from "../schema.ts";
import { authedOperation, AUTHED_HEADERS, ref } from "../../http/openapi.ts";
import { parseSpeechBody } from "./routes.ts";

const EXAMPLE = {
  voice: "Yara",
  dialect: "ar-najdi",
  engine: "espeak-ng",
  ssml: false,
  tashkeel: "built-in",
  sentences: [
    {
      type: "sentence",
      voice: "Yara",
      dialect: "ar-najdi",
      engine: "espeak-ng",
      speed: 1,
      normalized: "إن روعة اللغة العربية لا تتبدى إلا لعشاقها",
      diacritized: "إِنَّ رَوْعَةَ اللُّغَةِ الْعَرَبِيَّةِ لَا تَتَبَدَّى إِلَّا لِعُشَّاقِهَا",
      phonemes: "ʔinna rawʕata ...",
    },
  ],
};

const OPERATION: OpenAPIV3.OperationObject = authedOperation({
  operationId: "analyzeSpeech",
  summary: "Preview how a prompt will be read",
  description:
    "Takes the speech body (plain text or SSML, lexicon of the key applied) and answers, per sentence, the normalised text, the " +
    "diacritised text and the phonemes the voice will be fed, with the voice, dialect and engine that would speak it. " +
    "Counts against the rate limit like a speech request; nothing is synthesised.",
  tags: ["TTS"],
  requestBody: {
    required: true,
    content: {
      "application/json": {
        schema: ref("schemas", "SpeechRequest"),
        example: { input: "إن روعة اللغة العربية لا تتبدى إلا لعشاقها" },
      },
    },
  },
  success: {
    "200": {
      description: "The reading, sentence by sentence.",
      headers: AUTHED_HEADERS,
      content: { "application/json": { example: EXAMPLE } },
    },
  },
  errors: [400, 413, 422, 503, 504],
});

/** The analyze REST plugin. */
export function ttsAnalyzeRoutes(ctx: AppContext) {
  return new Elysia({ name: "tts-analyze" }).use(authPlugin(ctx)).post(
    "/v1/tts/analyze",
    async ({ request, caller }) => {
      const body = await readJsonBody(request, ctx.config.server.max_json_bytes, () => textTooLong(ctx.config));
      const speech = parseSpeechBody(ctx, body, request.headers.get("x-tts-dialect"));
      const analysis = await readyService(ctx, "tts").analyze(speech, { signal: request.signal, keyId: caller.key.id });
      const headers: Record<string, string> = {
        "content-type": "application/json",
        "cache-control": "no-store",
        "x-tts-voice": analysis.voice,
        "x-tts-dialect": analysis.dialect,
        "x-tts-engine": analysis.engine,
      };
      if (analysis.fallback) headers["x-tts-fallback"] = analysis.fallback;
      return new Response(JSON.stringify(analysis), { headers });
    },
    { auth: true, parse: "none", detail: OPERATION },
  );
}
