/**
 * REST front door of the per-key phrase list (phrase boosting): GET/PUT/DELETE /v1/asr/phrases.
 * Phrases are private to the calling key (another key sees none), stored in SQLite
 * (../boost/store.ts) and merged with the `hotwords` of every transcription of that key, on
 * every door.
 */
import { json } from "../../http/json.ts";
import { Elysia } from "elysia";
import type { OpenAPIV3 } from "openapi-types";
import type { AppContext } from "../../core/context.ts";
import { AppError, Detail } from "../../errors/taxonomy.ts";
import { authPlugin } from "../../http/auth.ts";
import { readJsonBody } from "../../http/body.ts";
import { authedOperation, AUTHED_HEADERS } from "../../http/openapi.ts";
import { DEFAULT_BOOST, HOTWORD_LIMITS, normalizePhrase } from "../boost/hotwords.ts";
import { parsePhrasePut, PHRASES_FULL_DETAIL } from "../boost/schema.ts";
import { phraseStoreOf } from "../boost/store.ts";

const EXAMPLE = {
  phrases: [
    { phrase: "مصرف الراجحي", boost: 3 },
    { phrase: "بطاقة مدى", boost: 2 },
  ],
};

/** PUT's body for the API docs (the valibot schema in ../boost/schema.ts is what validates it). */
const PUT_SCHEMA: OpenAPIV3.SchemaObject = {
  type: "object",
  required: ["phrases"],
  properties: {
    phrases: {
      type: "array",
      minItems: 1,
      maxItems: HOTWORD_LIMITS.maxPhrases,
      items: {
        type: "object",
        required: ["phrase"],
        properties: {
          phrase: { type: "string", maxLength: HOTWORD_LIMITS.maxPhraseChars, description: "Words to favour." },
          boost: {
            type: "number",
            minimum: HOTWORD_LIMITS.minBoost,
            maximum: HOTWORD_LIMITS.maxBoost,
            default: DEFAULT_BOOST,
            description: "Per-token boost (log-probability).",
          },
        },
      },
    },
  },
};

const listResponse = (description: string) => ({
  description,
  headers: AUTHED_HEADERS,
  content: { "application/json": { example: { ...EXAMPLE, max_phrases: HOTWORD_LIMITS.maxPhrases } } },
});

const PATH = "/v1/asr/phrases";

/** The phrase list REST plugin. */
export function phraseRoutes(ctx: AppContext) {
  const store = phraseStoreOf(ctx.db);
  const listing = (keyId: string) => json({ phrases: store.list(keyId), max_phrases: HOTWORD_LIMITS.maxPhrases });
  return new Elysia({ name: "asr-phrases" })
    .use(authPlugin(ctx))
    .get(PATH, ({ caller }) => listing(caller.key.id), {
      auth: true,
      detail: authedOperation({
        operationId: "getPhrases",
        summary: "List the key's boosted phrases",
        description:
          "Phrases are private to the key and merged with the `hotwords` of each of its transcriptions (REST, gRPC, realtime, jambonz). See docs/transcripts.md, Phrase boosting.",
        tags: ["ASR"],
        success: { "200": listResponse("The key's phrases.") },
        errors: [],
      }),
    })
    .put(
      PATH,
      async ({ request, caller }) => {
        const phrases = parsePhrasePut(await readJsonBody(request, ctx.config.server.max_json_bytes));
        if (store.countAfter(caller.key.id, phrases) > HOTWORD_LIMITS.maxPhrases)
          throw new AppError("bad_request", PHRASES_FULL_DETAIL);
        store.upsert(caller.key.id, phrases);
        return listing(caller.key.id);
      },
      {
        auth: true,
        parse: "none",
        detail: authedOperation({
          operationId: "putPhrases",
          summary: "Add boosted phrases or change their boosts",
          description:
            `Adds the phrases, replacing the boost of any already listed. Bounds: ${HOTWORD_LIMITS.maxPhrases} phrases per key, ` +
            `${HOTWORD_LIMITS.maxPhraseChars} characters per phrase, boost ${HOTWORD_LIMITS.minBoost}–${HOTWORD_LIMITS.maxBoost} (default ${DEFAULT_BOOST}).`,
          tags: ["ASR"],
          requestBody: { required: true, content: { "application/json": { schema: PUT_SCHEMA, example: EXAMPLE } } },
          success: { "200": listResponse("The key's phrases after the change.") },
          errors: [400, 413, 422],
        }),
      },
    )
    .delete(
      PATH,
      ({ caller, query }) => {
        const phrase = typeof query.phrase === "string" ? normalizePhrase(query.phrase) : undefined;
        if (phrase === "")
          throw new AppError("validation", Detail.validationFailed, {
            fields: [{ field: "query.phrase", message: "phrase cannot be empty" }],
          });
        return json({ deleted: store.delete(caller.key.id, phrase) });
      },
      {
        auth: true,
        detail: authedOperation({
          operationId: "deletePhrases",
          summary: "Delete boosted phrases",
          description: "`?phrase=…` deletes that phrase; no parameter deletes every phrase of the key.",
          tags: ["ASR"],
          parameters: [{ name: "phrase", in: "query", required: false, schema: { type: "string" } }],
          success: {
            "200": {
              description: "How many phrases were deleted.",
              headers: AUTHED_HEADERS,
              content: { "application/json": { example: { deleted: 1 } } },
            },
          },
          errors: [422],
        }),
      },
    );
}
