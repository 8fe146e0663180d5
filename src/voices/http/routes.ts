/**
 * REST front door of the voice library (D17): GET/POST /v1/tts/voices, GET/DELETE
 * /v1/tts/voices/{voice_id}. Cloned voices are private to the creating key: any other key gets 404.
 * POST is refused with 501 before its upload is read when cloning is unavailable.
 */
import { json } from "../../http/json.ts";
import { Elysia } from "elysia";
import type { OpenAPIV3 } from "openapi-types";
import { receiveAudioUpload } from "../../http/audio-upload.ts";
import type { AppContext } from "../../core/context.ts";
import { AppError } from "../../errors/taxonomy.ts";
import { authPlugin } from "../../http/auth.ts";
import { authedOperation, AUTHED_HEADERS } from "../../http/openapi.ts";
import { STATIC_BUILTINS, voicesFor } from "../../edge/voice-listing.ts";
import { CLONING_LIMITS } from "../service.ts";

const VOICE_EXAMPLE = {
  voice_id: "voice_Q2x9bL0aZk1m",
  name: "وكيلة خدمة العملاء",
  type: "cloned",
  status: "training",
  created_at: "2026-11-22T09:00:00.000Z",
};

const voiceIdParameter: OpenAPIV3.ParameterObject = {
  name: "voice_id",
  in: "path",
  required: true,
  schema: { type: "string" },
  example: VOICE_EXAMPLE.voice_id,
};
const voiceResponse = (description: string): OpenAPIV3.ResponseObject => ({
  description,
  headers: AUTHED_HEADERS,
  content: { "application/json": { example: VOICE_EXAMPLE } },
});

const PACK_EXAMPLE = {
  voice: "Yara",
  name: "Yara",
  family: "piper",
  size_bytes: 63_511_038,
  provider: "cpu",
  warm_up_ms: 412,
};

/** The voices REST plugin. */
export function voicesRoutes(ctx: AppContext) {
  return new Elysia({ name: "voices-http" })
    .use(authPlugin(ctx))
    .get(
      "/v1/tts/voices",
      ({ caller }) => {
        // `packs`: which model pack serves each built-in voice (docs/models.md), beside the list.
        return json({ voices: voicesFor(ctx, caller.key.id), packs: ctx.tts?.voicePacks?.() ?? [] });
      },
      {
        auth: true,
        detail: authedOperation({
          operationId: "listVoices",
          summary: "List voices",
          description:
            "Built-in voices followed by the caller's cloned voices. Each `voice_id` can be sent as `voice` in a speech request. `packs` names the model pack serving each built-in voice that has one: its folder `name`, `family`, `size_bytes`, `provider` and `warm_up_ms` (load plus warm-up).",
          tags: ["Voices"],
          success: {
            "200": {
              description: "Voices available to this key.",
              headers: AUTHED_HEADERS,
              content: {
                "application/json": { example: { voices: [STATIC_BUILTINS[0], VOICE_EXAMPLE], packs: [PACK_EXAMPLE] } },
              },
            },
          },
          errors: [],
        }),
      },
    )
    .post(
      "/v1/tts/voices",
      async ({ request, set, caller }) => {
        const unavailable = ctx.voices.unavailableReason();
        if (unavailable) throw new AppError("not_implemented", unavailable);
        const upload = await receiveAudioUpload(request, {
          dataDir: ctx.config.paths.data_dir,
          maxUploadMb: ctx.config.asr.max_upload_mb,
          fileFields: ["files", "file", "samples"],
          maxFiles: CLONING_LIMITS.maxSamples,
        });
        try {
          // The library owns the sample files from here and deletes them once processed.
          const voice = ctx.voices.create(
            caller.key.id,
            upload.fields.name ?? "",
            upload.files.map((f) => f.path),
          );
          set.headers["location"] = `/v1/tts/voices/${voice.voice_id}`;
          return json(voice, 202);
        } catch (error) {
          await upload.remove();
          throw error;
        }
      },
      {
        auth: true,
        parse: "none",
        detail: authedOperation({
          operationId: "createVoice",
          summary: "Clone a voice",
          description: `Multipart: \`name\` and 1–${CLONING_LIMITS.maxSamples} audio samples (\`files\`), ${CLONING_LIMITS.minSeconds}–${CLONING_LIMITS.maxSeconds} s in all. Answers 202 with status \`training\`; poll until \`ready\` or \`failed\` (with a reason). 501 when no speaker-encoder pack or no TTS pack taking a speaker embedding is installed. Samples are deleted once processed.`,
          tags: ["Voices"],
          requestBody: {
            required: true,
            content: {
              "multipart/form-data": {
                schema: {
                  type: "object",
                  required: ["name", "files"],
                  properties: {
                    name: { type: "string", example: "وكيلة خدمة العملاء" },
                    files: { type: "array", items: { type: "string", format: "binary" } },
                  },
                },
              },
            },
          },
          success: { "202": voiceResponse("Training started.") },
          errors: [400, 413, 501],
        }),
      },
    )
    .get(
      "/v1/tts/voices/:voice_id",
      ({ caller, params }) => {
        return json(ctx.voices.get(caller.key.id, params.voice_id));
      },
      {
        auth: true,
        detail: authedOperation({
          operationId: "getVoice",
          summary: "Poll a cloned voice",
          description: "Status `training`, `ready` or `failed` (with `reason`). Another key's voice is 404.",
          tags: ["Voices"],
          parameters: [voiceIdParameter],
          success: { "200": voiceResponse("The voice.") },
          errors: [404],
        }),
      },
    )
    .delete(
      "/v1/tts/voices/:voice_id",
      ({ caller, params }) => {
        ctx.voices.delete(caller.key.id, params.voice_id);
        return json({ voice_id: params.voice_id, deleted: true });
      },
      {
        auth: true,
        detail: authedOperation({
          operationId: "deleteVoice",
          summary: "Delete a cloned voice",
          description: "Removes the voice; it can no longer be used. Another key's voice is 404.",
          tags: ["Voices"],
          parameters: [voiceIdParameter],
          success: {
            "200": {
              description: "Deleted.",
              headers: AUTHED_HEADERS,
              content: { "application/json": { example: { voice_id: VOICE_EXAMPLE.voice_id, deleted: true } } },
            },
          },
          errors: [404],
        }),
      },
    );
}
