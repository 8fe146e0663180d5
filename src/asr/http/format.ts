/**
 * POST /v1/asr/format: text in, text out. The written forms and redaction Sawt applies to its
 * transcripts, applied to a transcript from elsewhere (a legacy recorder, an agent's notes):
 * `{"text", "language"?, "dialect"?, "itn"?, "redact"?}` → `{"text", "text_spoken", "redactions"}`.
 * Same auth, rate limit and JSON body limit as every JSON route; needs no model, so it answers
 * while the ASR engine is still loading. The text is never logged (the request log has no body).
 */
import { Elysia } from "elysia";
import type { OpenAPIV3 } from "openapi-types";
import * as v from "valibot";
import type { AppContext } from "../../core/context.ts";
import { AppError, Detail } from "../../errors/taxonomy.ts";
import { BODY_FIELDS, fieldErrors } from "../../errors/fields.ts";
import { authPlugin } from "../../http/auth.ts";
import { readJsonBody } from "../../http/body.ts";
import { authedOperation, AUTHED_HEADERS } from "../../http/openapi.ts";
import { formatText, guessLanguage } from "../../text/format.ts";
import { parseRedactClasses, REDACTION_CLASSES, REDACTION_TYPES } from "../../text/redact/classes.ts";

/** The request body; `redact` is checked by {@link parseRedactClasses} for its own message. */
const FormatBodySchema = v.object({
  text: v.string(),
  language: v.optional(v.picklist(["ar", "en"])),
  dialect: v.optional(v.string()),
  itn: v.optional(v.boolean()),
  redact: v.optional(v.unknown()),
});

const EXAMPLE_REQUEST = {
  text: "رقمي صفر خمسة خمسة واحد اثنان ثلاثة أربعة خمسة ستة سبعة والمبلغ مية وخمسين ريال",
  language: "ar",
  redact: "pci,pii",
};
const EXAMPLE_RESPONSE = {
  text: "رقمي [REDACTED:phone] والمبلغ 150 ريال",
  text_spoken: "رقمي [REDACTED:phone] والمبلغ مية وخمسين ريال",
  redactions: [{ type: "phone", start: 5, end: 21 }],
};

const OPERATION: OpenAPIV3.OperationObject = authedOperation({
  operationId: "formatTranscript",
  summary: "Written forms and redaction for a transcript's text",
  description:
    "Applies Sawt's inverse text normalisation (numbers, digits, money, percentages, times and dates written as digits; " +
    "Arabic in MSA and the Gulf, Hijazi, Egyptian and Levantine forms, and English) and redaction (`redact`: classes " +
    `${Object.keys(REDACTION_CLASSES).join(", ")} or types ${REDACTION_TYPES.join(", ")}) to plain text. ` +
    "`text` is the written form (the spoken words when `itn` is false), `text_spoken` the spoken words; both are redacted, " +
    "and `redactions` gives each hidden span's type and UTF-16 offsets into `text_spoken`. White space is normalised to single spaces. " +
    "Arabic digits follow the `asr.digits` setting.",
  tags: ["ASR"],
  requestBody: {
    required: true,
    content: {
      "application/json": {
        schema: {
          type: "object",
          required: ["text"],
          properties: {
            text: { type: "string" },
            language: {
              type: "string",
              enum: ["ar", "en"],
              description: "Default: Arabic if the text has Arabic letters.",
            },
            dialect: {
              type: "string",
              description: "Accepted for symmetry with transcription; every dialect's forms are read.",
            },
            itn: { type: "boolean", default: true },
            redact: {
              oneOf: [{ type: "string" }, { type: "array", items: { type: "string" } }],
              description: "Comma-separated classes or types; an unknown one is 422.",
            },
          },
        },
        example: EXAMPLE_REQUEST,
      },
    },
  },
  success: {
    "200": {
      description: "The written and spoken forms and the redacted spans.",
      headers: AUTHED_HEADERS,
      content: { "application/json": { example: EXAMPLE_RESPONSE } },
    },
  },
  errors: [400, 413, 422],
});

/** Validates a format body into the options {@link formatText} takes. */
function parseFormatBody(body: unknown, digits: "western" | "arabic-indic") {
  if (body === null || typeof body !== "object" || Array.isArray(body)) {
    throw new AppError("validation", Detail.validationFailed, {
      fields: [{ field: BODY_FIELDS.root, message: "Expected a JSON object" }],
    });
  }
  const result = v.safeParse(FormatBodySchema, body);
  if (!result.success)
    throw new AppError("validation", Detail.validationFailed, { fields: fieldErrors(result.issues, BODY_FIELDS) });
  const { text, language, itn, redact } = result.output;
  return {
    text,
    options: {
      language: language ?? guessLanguage(text),
      itn: itn ?? true,
      redact: parseRedactClasses(redact, "body.redact"),
      digits,
    },
  };
}

/** The `POST /v1/asr/format` plugin. */
export function asrFormatRoutes(ctx: AppContext) {
  return new Elysia({ name: "asr-format" }).use(authPlugin(ctx)).post(
    "/v1/asr/format",
    async ({ request }) => {
      const body = await readJsonBody(request, ctx.config.server.max_json_bytes);
      const { text, options } = parseFormatBody(body, ctx.config.asr.digits);
      return new Response(JSON.stringify(formatText(text, options)), {
        headers: { "content-type": "application/json", "cache-control": "no-store" },
      });
    },
    { auth: true, parse: "none", detail: OPERATION },
  );
}
