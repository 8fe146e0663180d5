/**
 * PUT /v1/asr/phrases's body, declared once (valibot): `{"phrases": [{"phrase", "boost"?}]}`.
 * Type and bound problems are 422 with each field named (`body.phrases.0.boost`); a key's list
 * growing past its bound is 400.
 */
import * as v from "valibot";
import type { Hotword } from "../../core/asr.ts";
import { BODY_FIELDS, fieldErrors, type FieldNaming } from "../../errors/fields.ts";
import { AppError, Detail } from "../../errors/taxonomy.ts";
import { DEFAULT_BOOST, HOTWORD_LIMITS, normalizePhrase, phraseProblem } from "./hotwords.ts";

const boostMessage = `Expected a number from ${HOTWORD_LIMITS.minBoost} to ${HOTWORD_LIMITS.maxBoost}`;

/** One phrase as sent. */
export const PhraseEntrySchema = v.object(
  {
    phrase: v.pipe(
      v.string("Expected a string"),
      v.transform(normalizePhrase),
      v.check(
        (phrase) => phraseProblem(phrase) === null,
        (issue) => phraseProblem(String(issue.input)) ?? "Invalid phrase",
      ),
      v.description("Words to favour, spelt as the transcript should spell them."),
    ),
    boost: v.optional(
      v.pipe(
        v.number(boostMessage),
        v.minValue(HOTWORD_LIMITS.minBoost, boostMessage),
        v.maxValue(HOTWORD_LIMITS.maxBoost, boostMessage),
        v.description(`Per-token boost (log-probability); default ${DEFAULT_BOOST}.`),
      ),
    ),
  },
  "Expected an object",
);

/** PUT's body: phrases added, or their boosts replaced. */
export const PhrasePutSchema = v.object(
  {
    phrases: v.pipe(
      v.array(PhraseEntrySchema, "Expected an array"),
      v.minLength(1, "Give at least one phrase"),
      v.maxLength(HOTWORD_LIMITS.maxPhrases, `At most ${HOTWORD_LIMITS.maxPhrases} phrases`),
    ),
  },
  "Expected a JSON object",
);

/** The 400 detail when an upsert would grow a key's list past its bound. */
export const PHRASES_FULL_DETAIL = `A key's phrase list holds at most ${HOTWORD_LIMITS.maxPhrases} phrases`;

/** Validates a PUT body into hotwords (a phrase given twice keeps its last boost). Throws AppError 422. */
export function parsePhrasePut(body: unknown, naming: FieldNaming = BODY_FIELDS): Hotword[] {
  const result = v.safeParse(PhrasePutSchema, body ?? {});
  if (!result.success)
    throw new AppError("validation", Detail.validationFailed, { fields: fieldErrors(result.issues, naming) });
  const byPhrase = new Map(result.output.phrases.map((entry) => [entry.phrase, entry.boost ?? DEFAULT_BOOST]));
  return [...byPhrase].map(([phrase, boost]) => ({ phrase, boost }));
}
