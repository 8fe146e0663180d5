/**
 * REST front door of the pronunciation lexicon: GET/PUT/DELETE /v1/tts/lexicon. Entries are
 * private to the calling key (another key sees none), stored in SQLite (./store.ts) and applied
 * to every speech request of that key — REST, WebSocket, gRPC — and to POST /v1/tts/analyze,
 * before numbers, diacritisation and phonemes.
 */
import { json } from "../../http/json.ts";
import { Elysia } from "elysia";
import type { AppContext } from "../../core/context.ts";
import { DIALECTS, knownDialect } from "../../core/tts.ts";
import { AppError, Detail } from "../../errors/taxonomy.ts";
import { authPlugin } from "../../http/auth.ts";
import { readJsonBody } from "../../http/body.ts";
import type { OpenAPIV3 } from "openapi-types";
import { authedOperation, AUTHED_HEADERS } from "../../http/openapi.ts";
import { contentFilterFor } from "../schema.ts";
import { LEXICON_FULL_DETAIL, parseLexiconPut } from "../lexicon/schema.ts";
import { LEXICON_LIMITS, LexiconStore } from "../lexicon/store.ts";

const EXAMPLE = {
  entries: [
    { grapheme: "STC", alias: "إس تي سي" },
    { grapheme: "سوق", alias: "سوء", dialect: "ar-egyptian" },
    { grapheme: "Sawt", ipa: "sawt" },
  ],
};

/** PUT's body for the API docs (the valibot schema in ./schema.ts is what validates it). */
const PUT_SCHEMA: OpenAPIV3.SchemaObject = {
  type: "object",
  required: ["entries"],
  properties: {
    entries: {
      type: "array",
      minItems: 1,
      maxItems: LEXICON_LIMITS.maxEntries,
      items: {
        type: "object",
        required: ["grapheme"],
        description: "Exactly one of alias and ipa.",
        properties: {
          grapheme: {
            type: "string",
            maxLength: LEXICON_LIMITS.maxGraphemeChars,
            description: "The written form, matched as a whole word (harakat ignored).",
          },
          alias: { type: "string", maxLength: LEXICON_LIMITS.maxAliasChars, description: "Text said instead." },
          ipa: {
            type: "string",
            maxLength: LEXICON_LIMITS.maxIpaChars,
            description:
              "IPA said instead, by voices fed espeak phonemes; espeak-ng itself and text voices read the grapheme.",
          },
          dialect: {
            type: "string",
            enum: [...DIALECTS],
            description: "Only when this dialect speaks; beats a general entry.",
          },
        },
      },
    },
  },
};

const listResponse = (description: string) => ({
  description,
  headers: AUTHED_HEADERS,
  content: { "application/json": { example: { ...EXAMPLE, max_entries: LEXICON_LIMITS.maxEntries } } },
});

/** The lexicon REST plugin. */
export function lexiconRoutes(ctx: AppContext) {
  const store = new LexiconStore(ctx.db);
  const listing = (keyId: string) => json({ entries: store.list(keyId), max_entries: LEXICON_LIMITS.maxEntries });
  return new Elysia({ name: "tts-lexicon" })
    .use(authPlugin(ctx))
    .get("/v1/tts/lexicon", ({ caller }) => listing(caller.key.id), {
      auth: true,
      detail: authedOperation({
        operationId: "getLexicon",
        summary: "List the key's pronunciation lexicon",
        description:
          "Entries are private to the key. Each says how a written form (matched as a whole word, harakat ignored) is said: `alias` text, or `ipa` for voices fed espeak phonemes; `dialect` limits it to one dialect.",
        tags: ["Lexicon"],
        success: { "200": listResponse("The key's entries.") },
        errors: [],
      }),
    })
    .put(
      "/v1/tts/lexicon",
      async ({ request, caller }) => {
        const entries = parseLexiconPut(
          await readJsonBody(request, ctx.config.server.max_json_bytes),
          contentFilterFor(ctx.config.tts.blocked_patterns),
        );
        if (store.countAfter(caller.key.id, entries) > LEXICON_LIMITS.maxEntries)
          throw new AppError("bad_request", LEXICON_FULL_DETAIL);
        store.upsert(caller.key.id, entries);
        return listing(caller.key.id);
      },
      {
        auth: true,
        parse: "none",
        detail: authedOperation({
          operationId: "putLexicon",
          summary: "Add or replace lexicon entries",
          description:
            `Adds the entries, replacing any with the same grapheme and dialect. Bounds: ${LEXICON_LIMITS.maxEntries} entries per key, ` +
            `grapheme ≤ ${LEXICON_LIMITS.maxGraphemeChars}, alias ≤ ${LEXICON_LIMITS.maxAliasChars}, ipa ≤ ${LEXICON_LIMITS.maxIpaChars} characters. ` +
            "Applied to every speech request of this key (REST, WebSocket, gRPC) and to /v1/tts/analyze, before numbers, diacritisation and phonemes.",
          tags: ["Lexicon"],
          requestBody: { required: true, content: { "application/json": { schema: PUT_SCHEMA, example: EXAMPLE } } },
          success: { "200": listResponse("The key's entries after the change.") },
          errors: [400, 413, 422],
        }),
      },
    )
    .delete(
      "/v1/tts/lexicon",
      ({ caller, query }) => {
        const grapheme = typeof query.grapheme === "string" ? query.grapheme.trim() : undefined;
        const dialectParam = typeof query.dialect === "string" ? query.dialect : undefined;
        const dialect = knownDialect(dialectParam);
        if (dialectParam !== undefined && dialect === undefined) {
          throw new AppError("validation", Detail.validationFailed, {
            fields: [{ field: "query.dialect", message: `Expected one of ${DIALECTS.join(", ")}` }],
          });
        }
        if (grapheme === "")
          throw new AppError("validation", Detail.validationFailed, {
            fields: [{ field: "query.grapheme", message: "grapheme cannot be empty" }],
          });
        return json({ deleted: store.delete(caller.key.id, grapheme, dialect) });
      },
      {
        auth: true,
        detail: authedOperation({
          operationId: "deleteLexicon",
          summary: "Delete lexicon entries",
          description:
            "`?grapheme=…` deletes that grapheme's entries (`&dialect=…`: only that dialect's); no parameter deletes every entry of the key.",
          tags: ["Lexicon"],
          parameters: [
            { name: "grapheme", in: "query", required: false, schema: { type: "string" }, example: "STC" },
            { name: "dialect", in: "query", required: false, schema: { type: "string", enum: [...DIALECTS] } },
          ],
          success: {
            "200": {
              description: "How many entries were deleted.",
              headers: AUTHED_HEADERS,
              content: { "application/json": { example: { deleted: 1 } } },
            },
          },
          errors: [422],
        }),
      },
    );
}
