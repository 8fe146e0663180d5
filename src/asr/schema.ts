/**
 * The transcription request's form fields, declared once (valibot) and reused as the type, by the
 * REST routes and by the API docs. The `file` part itself is received by ./upload.ts; these are the
 * small fields beside it. D14 (extended by issue #32): `language` is `ar`, `en` (the built-in
 * recogniser) or omitted; `response_format` picks the rendering.
 * The OpenAI options: `model` names a recogniser pack, `prompt` and `temperature` steer Whisper,
 * `timestamp_granularities[]` asks verbose_json for `segment` and/or `word` times.
 */
import * as v from "valibot";
import { fieldErrors, FORM_FIELDS } from "../errors/fields.ts";
import { AppError, Detail } from "../errors/taxonomy.ts";
import { MAX_CHANNELS, TRANSCRIPT_FORMATS, TRANSCRIPTION_LANGUAGES, type TranscriptionOptions } from "./types.ts";
import { speakerList, SpeakersSchema } from "../transcripts/labels.ts";
import { DEFAULT_BOOST, HOTWORD_LIMITS, parseHotwords } from "./boost/hotwords.ts";

/** Timestamp granularities of verbose_json (OpenAI). */
export const TIMESTAMP_GRANULARITIES = ["segment", "word"] as const;
/** One timestamp granularity. */
export type TimestampGranularity = (typeof TIMESTAMP_GRANULARITIES)[number];

/** Longest `prompt` accepted, in characters (Whisper keeps only its last 223 tokens anyway). */
export const MAX_PROMPT_CHARS = 4096;

/** The repeated form of `hotwords`, one entry per field. */
const HOTWORDS_FIELD = "hotwords[]";

/** The form field OpenAI clients repeat for each granularity. */
const GRANULARITIES_FIELD = "timestamp_granularities[]";

/** Form fields of POST /v1/asr/audio/transcriptions (besides `file`). Unknown fields are ignored. */
export const TranscriptionFormSchema = v.object({
  language: v.optional(
    v.pipe(
      v.picklist(TRANSCRIPTION_LANGUAGES, "Must be ar or en (or omitted); the dialect is detected automatically"),
      v.description(
        "Language of the audio: `ar` (installed recogniser packs), `en` (the built-in English recogniser) or omitted (the default recogniser: an installed pack, else the built-in one). A language no installed recogniser serves is 400. There is no dialect parameter; the dialect is detected.",
      ),
      v.examples(["ar"]),
    ),
  ),
  response_format: v.optional(
    v.pipe(
      v.picklist(TRANSCRIPT_FORMATS, `Must be one of: ${TRANSCRIPT_FORMATS.join(", ")}`),
      v.description(
        "json (default): {text, language, dialect, duration}; text; verbose_json (adds segments); srt; vtt; " +
          "diarized_json (OpenAI's: segments with `speaker`; speakers are channels, see `channels`).",
      ),
      v.examples(["json"]),
    ),
    "json",
  ),
  model: v.optional(
    v.pipe(
      v.string(),
      v.description(
        "A recogniser pack by folder name (see /v1/asr/health `packs`). A name that is not installed, such as " +
          "`whisper-1`, uses the default pack (asr.pack, or the dialect route). The pack that answered is in the " +
          "`X-ASR-Model` header and verbose_json `model`.",
      ),
      v.examples(["whisper-1"]),
    ),
  ),
  prompt: v.optional(
    v.pipe(
      v.string(),
      v.maxLength(MAX_PROMPT_CHARS, `Must be at most ${MAX_PROMPT_CHARS} characters`),
      v.description(
        "Text the audio continues (names, spelling, style). Whisper packs decode after it as previous-text " +
          "context (`<|startofprev|>`, its last 223 tokens); other recognisers ignore it.",
      ),
    ),
  ),
  temperature: v.optional(
    v.pipe(
      v.number("Must be a number between 0 and 1"),
      v.minValue(0, "Must be between 0 and 1"),
      v.maxValue(1, "Must be between 0 and 1"),
      v.description(
        "Whisper packs: 0 (default) decodes greedily and falls back to sampling at 0.2, 0.4, … 1.0 when the text " +
          "repeats itself (compression ratio > 2.4) or is improbable (mean log-probability < −1); a higher value " +
          "starts the fallback there. Other recognisers ignore it.",
      ),
      v.examples([0]),
    ),
  ),
  hotwords: v.optional(
    v.pipe(
      v.array(v.string()),
      v.description(
        "Phrase boosting (extension): phrases to favour, `phrase` or `phrase:boost`, separated by commas or " +
          `new lines, or one per repeated \`hotwords[]\` field; at most ${HOTWORD_LIMITS.maxPhrases} (with the key's ` +
          `list, /v1/asr/phrases), ${HOTWORD_LIMITS.maxPhraseChars} characters each. CTC and transducer packs ` +
          "bias their search towards them; Whisper packs read them as prompt context.",
      ),
      v.examples([["مصرف الراجحي:3", "بطاقة مدى"]]),
    ),
  ),
  boost: v.optional(
    v.pipe(
      v.number(`Must be a number from ${HOTWORD_LIMITS.minBoost} to ${HOTWORD_LIMITS.maxBoost}`),
      v.minValue(HOTWORD_LIMITS.minBoost, `Must be from ${HOTWORD_LIMITS.minBoost} to ${HOTWORD_LIMITS.maxBoost}`),
      v.maxValue(HOTWORD_LIMITS.maxBoost, `Must be from ${HOTWORD_LIMITS.minBoost} to ${HOTWORD_LIMITS.maxBoost}`),
      v.description(`Per-token boost of the \`hotwords\` that give none (default ${DEFAULT_BOOST}).`),
    ),
  ),
  [GRANULARITIES_FIELD]: v.optional(
    v.pipe(
      v.array(v.picklist(TIMESTAMP_GRANULARITIES, `Must be one of: ${TIMESTAMP_GRANULARITIES.join(", ")}`)),
      v.description(
        "verbose_json only, repeat the field per value: `segment` (default) gives `segments`, `word` gives " +
          "`words` (timed by CTC, transducer and Moonshine packs; empty for Whisper, whose export cannot time words).",
      ),
    ),
  ),
  channels: v.optional(
    v.pipe(
      v.picklist(["split", "mix"], "Must be one of: split, mix"),
      v.description(
        `\`split\`: each channel of a 2- to ${MAX_CHANNELS}-channel recording is transcribed apart; segments and words ` +
          "carry `channel` and `speaker`, merged in time order (a mono file, or more channels, is 400). `mix`: one " +
          'mono mix, as OpenAI answers. Omitted: the server\'s asr.split_channels ("off" mixes; "auto" splits 2-channel files).',
      ),
      v.examples(["split"]),
    ),
  ),
  speakers: v.optional(
    v.pipe(
      SpeakersSchema,
      v.description(
        "Speaker labels by channel, comma-separated (`agent,customer`) or repeated; default asr.speakers, then " +
          "`ch0`, `ch1`, …. Labels: 1-32 letters, digits, `_`, `-`, `.`; distinct.",
      ),
      v.examples([["agent", "customer"]]),
    ),
  ),
  itn: v.optional(
    v.pipe(
      v.picklist(["true", "false"], "Must be true or false"),
      v.examples(["false"]),
      v.transform((value) => value === "true"),
      v.description(
        "Extension: written forms (inverse text normalisation: numbers, digit runs, money, percentages, times, dates " +
          "as digits) in `text`, segments, words, SRT/VTT and stream deltas; default true. verbose_json keeps the " +
          "spoken words in `text_spoken`. Arabic digits follow asr.digits.",
      ),
    ),
  ),
  redact: v.optional(
    v.pipe(
      v.string(),
      v.description(
        "Extension: redaction, comma-separated classes (`pci`: card, cvv, expiry; `pii`: iban, national_id, phone, " +
          "email) or types, added to the server's asr.redact; each hidden span becomes `[REDACTED:<type>]` in every " +
          "output and verbose_json lists `redactions` with their words' times. An unknown name is 422.",
      ),
      v.examples(["pci,pii"]),
    ),
  ),
});

/** The validated form fields, defaults applied (`response_format` json). */
export type TranscriptionForm = Readonly<v.InferOutput<typeof TranscriptionFormSchema>>;

/** The form's values as the schema takes them: trimmed, empty ones dropped, numbers and lists read. */
function formInput(
  fields: Readonly<Record<string, string>>,
  values: Readonly<Record<string, readonly string[]>>,
): Record<string, unknown> {
  const present: Record<string, unknown> = Object.fromEntries(
    Object.entries(fields)
      .filter(([, value]) => value.trim().length > 0)
      .map(([k, value]) => [k, value.trim()]),
  );
  const temperature = present.temperature;
  if (typeof temperature === "string" && /^[+-]?(\d+\.?\d*|\.\d+)$/.test(temperature))
    present.temperature = Number(temperature);
  // OpenAI clients send `timestamp_granularities[]` once per value; a bare comma list is read too.
  const all = (name: string) => values[name] ?? (fields[name] === undefined ? [] : [fields[name]]);
  const listed = [...all(GRANULARITIES_FIELD), ...all("timestamp_granularities")]
    .flatMap((value) => value.split(","))
    .map((value) => value.trim())
    .filter((value) => value.length > 0);
  const hotwords = [...all(HOTWORDS_FIELD), ...all("hotwords")];
  delete present[HOTWORDS_FIELD];
  if (hotwords.length > 0) present.hotwords = hotwords;
  if (typeof present.boost === "string" && /^[+-]?(\d+\.?\d*|\.\d+)$/.test(present.boost))
    present.boost = Number(present.boost);
  delete present.timestamp_granularities;
  if (listed.length > 0) present[GRANULARITIES_FIELD] = listed;
  else delete present[GRANULARITIES_FIELD];
  // `speakers=agent,customer`, or the field once per label; a blank item is kept for the schema to refuse.
  const speakers = all("speakers").filter((value) => value.trim().length > 0);
  if (speakers.length > 0) present.speakers = speakers.flatMap(speakerList);
  return present;
}

/**
 * Validates the form fields (empty values count as omitted); `values` holds every value of a
 * repeated field. Throws AppError 422.
 */
export function parseTranscriptionForm(
  fields: Readonly<Record<string, string>>,
  values: Readonly<Record<string, readonly string[]>> = {},
): TranscriptionForm {
  const result = v.safeParse(TranscriptionFormSchema, formInput(fields, values));
  if (!result.success)
    throw new AppError("validation", Detail.validationFailed, { fields: fieldErrors(result.issues, FORM_FIELDS) });
  return result.output;
}

/** The granularities a form asked for (`segment` when it named none). */
export function granularities(form: TranscriptionForm): readonly TimestampGranularity[] {
  const asked = form[GRANULARITIES_FIELD];
  return asked && asked.length > 0 ? [...new Set(asked)] : ["segment"];
}

/** The service options a form asks for (`model`, `prompt`, `temperature`, `language`, `channels`, `speakers`, `hotwords`). Throws 422 for ill-formed hotwords. */
export function transcriptionOptions(
  form: TranscriptionForm,
): Pick<TranscriptionOptions, "model" | "prompt" | "temperature" | "language" | "channels" | "speakers" | "hotwords"> {
  const hotwords = form.hotwords ? parseHotwords(form.hotwords, "form.hotwords", form.boost) : [];
  return {
    ...(form.language !== undefined ? { language: form.language } : {}),
    ...(hotwords.length > 0 ? { hotwords } : {}),
    ...(form.channels !== undefined ? { channels: form.channels } : {}),
    ...(form.speakers !== undefined ? { speakers: form.speakers } : {}),
    ...(form.model !== undefined ? { model: form.model } : {}),
    ...(form.prompt !== undefined ? { prompt: form.prompt } : {}),
    ...(form.temperature !== undefined ? { temperature: form.temperature } : {}),
  };
}
