/**
 * The lexicon's request bodies, declared once (valibot): PUT's entries and their bounds. Type
 * problems are 422 in the validation shape with each field named (`body.entries.0.alias`); a
 * lexicon over its size bound is 400; an alias holding blocked content is 400 (D7, it is spoken).
 */
import * as v from "valibot";
import { DIALECTS } from "../../core/tts.ts";
import { BODY_FIELDS, fieldErrors, type FieldNaming } from "../../errors/fields.ts";
import { AppError, Detail } from "../../errors/taxonomy.ts";
import { assertAllowedContent, type ContentFilter } from "../frontend/blocked.ts";
import { IPA_TEXT, stripSpanMarkers } from "../frontend/phoneme-span.ts";
import { LEXICON_LIMITS, type LexiconEntry } from "./store.ts";

const text = (max: number, what: string) =>
  v.pipe(
    v.string("Expected a string"),
    v.trim(),
    v.minLength(1, `${what} cannot be empty`),
    v.maxLength(max, `${what} is longer than ${max} characters`),
  );

/** One entry as sent. */
export const LexiconEntrySchema = v.pipe(
  v.object(
    {
      grapheme: v.pipe(
        text(LEXICON_LIMITS.maxGraphemeChars, "grapheme"),
        v.description("The written form, matched as a whole word (harakat ignored)."),
      ),
      alias: v.optional(v.pipe(text(LEXICON_LIMITS.maxAliasChars, "alias"), v.description("Text said instead."))),
      ipa: v.optional(
        v.pipe(
          text(LEXICON_LIMITS.maxIpaChars, "ipa"),
          v.regex(IPA_TEXT, "Expected IPA without punctuation"),
          v.description("IPA said instead, by voices fed espeak phonemes (others read the grapheme)."),
        ),
      ),
      dialect: v.optional(
        v.pipe(v.picklist(DIALECTS, `Expected one of ${DIALECTS.join(", ")}`), v.description("Only for this dialect.")),
      ),
    },
    "Expected an object",
  ),
  v.check((entry) => (entry.alias === undefined) !== (entry.ipa === undefined), "Give exactly one of alias and ipa"),
);

/** PUT /v1/tts/lexicon's body: entries added or replaced (same grapheme and dialect). */
export const LexiconPutSchema = v.object(
  {
    entries: v.pipe(
      v.array(LexiconEntrySchema, "Expected an array"),
      v.minLength(1, "Give at least one entry"),
      v.maxLength(LEXICON_LIMITS.maxEntries, `At most ${LEXICON_LIMITS.maxEntries} entries`),
    ),
  },
  "Expected a JSON object",
);

/** Validates a PUT body into entries; throws AppError 422 (fields named as `naming` says) or 400. */
export function parseLexiconPut(
  body: unknown,
  filter: ContentFilter,
  naming: FieldNaming = BODY_FIELDS,
): LexiconEntry[] {
  const result = v.safeParse(LexiconPutSchema, body ?? {});
  if (!result.success)
    throw new AppError("validation", Detail.validationFailed, { fields: fieldErrors(result.issues, naming) });
  return result.output.entries.map((entry) => {
    if (entry.alias !== undefined) assertAllowedContent(entry.alias, filter);
    assertAllowedContent(entry.grapheme, filter);
    return {
      grapheme: stripSpanMarkers(entry.grapheme),
      ...(entry.alias !== undefined ? { alias: stripSpanMarkers(entry.alias) } : {}),
      ...(entry.ipa !== undefined ? { ipa: entry.ipa } : {}),
      ...(entry.dialect !== undefined ? { dialect: entry.dialect } : {}),
    };
  });
}

/** The 400 detail when an upsert would grow a key's lexicon beyond its bound. */
export const LEXICON_FULL_DETAIL = `Lexicon exceeds maximum of ${LEXICON_LIMITS.maxEntries} entries`;
