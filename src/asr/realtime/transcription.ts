/**
 * The transcription settings of a realtime session (GA `session.audio.input.transcription`, beta
 * `session.input_audio_transcription`): `model` (any name: the language and the dialect choose
 * Sawt's recogniser), `language`, `prompt`, and what newer OpenAI models take instead of
 * `language`, which clients such as LiveKit's plugin send for them: `languages` (one language
 * names it; none or several leave the default recogniser) and `keywords` (terms expected in the
 * audio: phrases to favour). A language may be a tag (`ar-SA`): its base language is served, the
 * dialect detected. Sawt extensions: `hotwords` (REST's entries) and `boost`.
 */
import * as v from "valibot";
import type { Hotword } from "../../core/asr.ts";
import { AppError } from "../../errors/taxonomy.ts";
import { HOTWORD_LIMITS, parseHotwords } from "../boost/hotwords.ts";
import { TranscriptionFormSchema } from "../schema.ts";
import { jsonObject, numberIn, OBJECT, ParamError, STRING } from "./fields.ts";

/** The session's transcription settings. */
export interface TranscriptionSettings {
  readonly model: string;
  readonly language: string;
  readonly prompt: string;
  /** Phrases to favour (the key's list is merged in when the call is configured). */
  readonly hotwords?: readonly Hotword[];
}

/** A language tag's base language (`ar-SA` → `ar`). */
const baseOf = (tag: string) => tag.split(/[-_]/)[0]!.toLowerCase();

/** Why `language` cannot be transcribed, in the REST form's words; an empty one means the default. */
function languageProblem(language: string): string | undefined {
  if (language === "") return undefined;
  const checked = v.safeParse(TranscriptionFormSchema.entries.language, baseOf(language));
  return checked.success ? undefined : checked.issues[0].message;
}

/** A language field: trimmed, checked, its base language kept. */
const LanguageSchema = v.pipe(
  v.string(STRING),
  v.trim(),
  v.check(
    (language) => languageProblem(language) === undefined,
    (issue) => languageProblem(issue.input) ?? "",
  ),
  v.transform(baseOf),
);

/** The transcription settings of either shape; null or absent fields keep their current value. */
export const TranscriptionSchema = v.optional(
  jsonObject(
    {
      language: v.nullish(LanguageSchema),
      languages: v.nullish(v.array(LanguageSchema, "must be an array of strings")),
      model: v.nullish(v.string(STRING)),
      prompt: v.nullish(v.string(STRING)),
      keywords: v.nullish(v.array(v.string(STRING), "must be an array of strings")),
      // Sawt extension (phrase boosting): entries as REST's `hotwords`, and their default boost.
      hotwords: v.nullish(v.array(v.string(STRING), "must be an array of strings")),
      boost: v.nullish(numberIn(HOTWORD_LIMITS.minBoost, HOTWORD_LIMITS.maxBoost)),
    },
    OBJECT,
  ),
);

type TranscriptionUpdate = NonNullable<v.InferOutput<typeof TranscriptionSchema>>;

/** The one language an update names (`language`, or a `languages` list of one), if any. */
export function namedLanguage(update: TranscriptionUpdate | undefined): string | undefined {
  if (update?.language) return update.language;
  const languages = [...new Set(update?.languages ?? [])];
  return languages.length === 1 ? languages[0] : undefined;
}

/** A transcription update applied to `current`; an empty language means Arabic. */
export function mergedTranscription(
  update: TranscriptionUpdate | undefined,
  current: TranscriptionSettings,
  path: string,
): TranscriptionSettings {
  if (!update) return current;
  const phrases = update.hotwords !== undefined || update.keywords !== undefined;
  const hotwords = phrases ? sessionHotwords(update, path) : current.hotwords;
  return {
    model: update.model ?? current.model,
    language: (namedLanguage(update) ?? current.language.trim()) || "ar",
    prompt: update.prompt ?? current.prompt,
    ...(hotwords && hotwords.length > 0 ? { hotwords } : {}),
  };
}

/**
 * An update's phrases, `hotwords` and OpenAI's `keywords` (null clears them); a bad entry is a
 * {@link ParamError} naming the field.
 */
function sessionHotwords(update: TranscriptionUpdate, path: string): Hotword[] {
  // A keyword is one literal term: the separators of hotword entries are spaces in it.
  const keywords = (update.keywords ?? []).map((k) => k.replace(/[,،\n\r]/g, " "));
  try {
    return parseHotwords([...(update.hotwords ?? []), ...keywords], `${path}.hotwords`, update.boost ?? undefined);
  } catch (error) {
    const field = error instanceof AppError ? error.fields?.[0] : undefined;
    if (field) throw new ParamError(field.field, field.message);
    throw error;
  }
}
