/**
 * The transcription request's form fields, declared once (valibot) and reused as the type, by the
 * REST routes and by the API docs. The `file` part itself is received by ./upload.ts; these are the
 * small fields beside it. D14: `language` is `ar` or omitted; `response_format` picks the rendering.
 */
import * as v from "valibot";
import { fieldErrors, FORM_FIELDS } from "../errors/fields.ts";
import { AppError, Detail } from "../errors/taxonomy.ts";
import { TRANSCRIPT_FORMATS } from "./types.ts";

/** Form fields of POST /v1/asr/audio/transcriptions (besides `file`). Unknown fields are ignored. */
export const TranscriptionFormSchema = v.object({
  language: v.optional(
    v.pipe(
      v.picklist(["ar"], "Only ar is supported; the dialect is detected automatically"),
      v.description("Language of the audio: `ar` or omitted. There is no dialect parameter; the dialect is detected."),
      v.examples(["ar"]),
    ),
  ),
  response_format: v.optional(
    v.pipe(
      v.picklist(TRANSCRIPT_FORMATS, `Must be one of: ${TRANSCRIPT_FORMATS.join(", ")}`),
      v.description("json (default): {text, language, dialect, duration}; text; verbose_json (adds segments); srt; vtt."),
      v.examples(["json"]),
    ),
    "json",
  ),
  model: v.optional(v.pipe(v.string(), v.description("Accepted for OpenAI-client compatibility and ignored: the installed ASR packs decide."))),
});

/** The validated form fields, defaults applied (`response_format` json). */
export type TranscriptionForm = Readonly<v.InferOutput<typeof TranscriptionFormSchema>>;

/** Validates the form fields (empty values count as omitted). Throws AppError 422. */
export function parseTranscriptionForm(fields: Readonly<Record<string, string>>): TranscriptionForm {
  const present = Object.fromEntries(Object.entries(fields).filter(([, value]) => value.trim().length > 0).map(([k, value]) => [k, value.trim()]));
  const result = v.safeParse(TranscriptionFormSchema, present);
  if (!result.success) throw new AppError("validation", Detail.validationFailed, { fields: fieldErrors(result.issues, FORM_FIELDS) });
  return result.output;
}
