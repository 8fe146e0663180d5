/**
 * The transcription response bodies as valibot schemas (D14 json, OpenAI's verbose_json and
 * diarized_json, with Sawt's extensions): ./formats.ts renders them with these types and the API
 * docs show them. Every door that answers a transcript (REST, jobs, the call API) renders one.
 */
import * as v from "valibot";
import { TRANSCRIPTION_LANGUAGES } from "../core/asr.ts";

const seconds = (description: string) => v.pipe(v.number(), v.description(description));

/** A split channel's label on a segment or word (issue #27). */
const CHANNEL_LABEL = {
  channel: v.optional(
    v.pipe(v.number(), v.integer(), v.description("Extension, with split channels: the channel (0-based).")),
  ),
  speaker: v.optional(
    v.pipe(v.string(), v.description("Extension, with split channels: the channel's speaker label.")),
  ),
};

/** A timed word as the JSON bodies carry it. */
const TimedWordJsonSchema = v.strictObject({
  word: v.string(),
  start: seconds("Seconds from the start of the audio."),
  end: seconds("Seconds from the start of the audio."),
  ...CHANNEL_LABEL,
});

/**
 * The `json` transcription body (D14): `{text, language, dialect, duration}` plus the extension
 * `dialect_confidence`. ./formats.ts renders it with this type and the API docs show this schema.
 */
export const TranscriptionJsonSchema = v.pipe(
  v.strictObject({
    text: v.pipe(v.string(), v.description("The transcript, in dialectal spelling.")),
    language: v.picklist(TRANSCRIPTION_LANGUAGES),
    dialect: v.nullable(
      v.pipe(
        v.string(),
        v.description(
          "Detected dialect (ar-najdi, ar-hijazi, ar-qassimi, ar-egyptian, ar-levantine), or null without a dialect-id pack.",
        ),
      ),
    ),
    duration: seconds("Seconds of audio."),
    dialect_confidence: v.optional(
      v.pipe(
        v.number(),
        v.description(
          "Extension, present with a dialect: its softmax probability under the call's mean dialect logits (first asr.dialect_seconds of speech).",
        ),
      ),
    ),
  }),
  v.examples([{ text: "السلام عليكم، أبي أعرف وين وصل طلبي", language: "ar", dialect: "ar-najdi", duration: 3.2 }]),
);

/** The `json` transcription body. */
export type TranscriptionJson = v.InferOutput<typeof TranscriptionJsonSchema>;

const whisper = (description: string) => v.optional(v.pipe(v.number(), v.description(`Whisper: ${description}`)));

/** A verbose_json segment: OpenAI's fields, with Sawt's extensions (its dialect and words). */
const SegmentJsonSchema = v.strictObject({
  id: v.pipe(v.number(), v.integer()),
  seek: v.pipe(v.number(), v.integer(), v.description("Start in 10 ms frames.")),
  start: seconds("Seconds from the start of the audio."),
  end: seconds("Seconds from the start of the audio."),
  text: v.string(),
  text_spoken: v.optional(
    v.pipe(v.string(), v.description("Extension: the segment's spoken words (`text` has the written forms).")),
  ),
  temperature: whisper("temperature of the decode kept."),
  avg_logprob: whisper("mean token log-probability."),
  compression_ratio: whisper("UTF-8 bytes over gzip bytes of the text."),
  dialect: v.optional(
    v.pipe(v.string(), v.description("Extension: the segment's own dialect, with a dialect-id pack.")),
  ),
  ...CHANNEL_LABEL,
  words: v.optional(
    v.pipe(
      v.array(TimedWordJsonSchema),
      v.description("Extension: the segment's timed words, when the recogniser times words."),
    ),
  ),
});

/** The `verbose_json` transcription body: the json fields plus `task`, `model`, `segments`, `words`. */
export const VerboseTranscriptionJsonSchema = v.strictObject({
  task: v.picklist(["transcribe"]),
  ...TranscriptionJsonSchema.pipe[0].entries,
  text_spoken: v.optional(
    v.pipe(
      v.string(),
      v.description("Extension: the spoken words, redacted too; `text` has the written forms (unless `itn=false`)."),
    ),
  ),
  redactions: v.optional(
    v.pipe(
      v.array(
        v.strictObject({
          type: v.string(),
          start: seconds("Start of the first hidden word, seconds."),
          end: seconds("End of the last hidden word, seconds."),
          ...CHANNEL_LABEL,
        }),
      ),
      v.description("Extension, with redaction: each hidden span's type and its words' times (to mute the audio)."),
    ),
  ),
  model: v.optional(v.pipe(v.string(), v.description("Extension: the recogniser pack that answered."))),
  segments: v.optional(
    v.pipe(
      v.array(SegmentJsonSchema),
      v.description("Utterances; left out when only `word` granularity was asked for."),
    ),
  ),
  words: v.optional(
    v.pipe(
      v.array(TimedWordJsonSchema),
      v.description("With `timestamp_granularities[]=word`: every timed word (empty for Whisper packs)."),
    ),
  ),
  channels: v.optional(
    v.pipe(
      v.array(
        v.strictObject({
          channel: v.pipe(v.number(), v.integer()),
          speaker: v.string(),
          text: v.string(),
          dialect: v.nullable(v.string()),
          dialect_confidence: v.optional(v.number()),
          model: v.optional(v.string()),
        }),
      ),
      v.description("Extension, with split channels: each channel's own text, dialect and pack."),
    ),
  ),
});

/** A diarized_json segment: OpenAI's `transcript.text.segment` (speakers are channels in Sawt). */
const DiarizedSegmentJsonSchema = v.strictObject({
  type: v.picklist(["transcript.text.segment"]),
  id: v.pipe(v.string(), v.description("`seg_<n>`, n the segment's position.")),
  start: seconds("Seconds from the start of the audio."),
  end: seconds("Seconds from the start of the audio."),
  text: v.string(),
  speaker: v.pipe(v.string(), v.description("The channel's speaker label (`speakers`, asr.speakers, `ch<n>`).")),
  channel: v.pipe(v.number(), v.integer(), v.description("Extension: the channel (0-based).")),
});

/** The `diarized_json` transcription body (OpenAI's shape). */
export const DiarizedTranscriptionJsonSchema = v.strictObject({
  task: v.picklist(["transcribe"]),
  duration: seconds("Seconds of audio."),
  text: v.pipe(v.string(), v.description("Every segment's text in time order.")),
  segments: v.array(DiarizedSegmentJsonSchema),
  usage: v.strictObject({ type: v.picklist(["duration"]), seconds: v.number() }),
});

/** The `diarized_json` transcription body. */
export type DiarizedTranscriptionJson = v.InferOutput<typeof DiarizedTranscriptionJsonSchema>;

/** The `verbose_json` transcription body. */
export type VerboseTranscriptionJson = v.InferOutput<typeof VerboseTranscriptionJsonSchema>;
