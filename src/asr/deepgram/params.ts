/**
 * The query parameters of Deepgram's `/v1/listen` (the live WebSocket and the pre-recorded POST),
 * read into Sawt's terms, field for field as developers.deepgram.com documents them. What Sawt
 * does with each (docs/voice-bots.md lists the same):
 *
 * - served: `model` (any name; the call's language and dialect pick Sawt's recogniser), `language`
 *   (`ar`, `ar-SA`, `ar-EG`, … → Arabic, whose dialect Sawt detects; `en`), `encoding` (linear16,
 *   mulaw, alaw), `sample_rate`, `channels` with `multichannel` (apart, or one mean stream),
 *   `interim_results`, `endpointing` (ms of silence, at least {@link MIN_ENDPOINTING_MS}; `false`:
 *   the file rule's utterances, no speech_final), `utterance_end_ms`, `vad_events`, `punctuate` /
 *   `smart_format` / `numerals` (any of them: written forms), `redact` (→ Sawt's redaction types),
 *   `keywords` / `keyterm` (→ phrase boosting), `diarize` (→ each channel a speaker);
 * - accepted and ignored, since they would not change the transcript: `tag`, `extra`,
 *   `mip_opt_out`, `no_delay`, `version`, `search`, `detect_entities`, `topics`, `intents`,
 *   `sentiment`, `summarize`, `paragraphs`, `utt_split`, `diarize_model`, `dictation=false`, and
 *   any parameter Sawt does not know; and two that clients send by default (LiveKit's Python
 *   plugin `filler_words=true`, Pipecat `profanity_filter=true`), accepted and not applied: Sawt
 *   writes the words its recogniser hears, neither adding nor removing fillers, and masks no word
 *   but what redaction hides (docs/voice-bots.md says so);
 * - refused (400, naming the parameter), since they ask for what Sawt cannot do: other encodings,
 *   languages other than Arabic and English (`multi` included), `detect_language=true`,
 *   `callback`, `replace`, `dictation=true`, `measurements=true`, `redact=numbers` (or `true`,
 *   `phi`, names and places), negative keyword intensifiers, and `diarize=true` on a stream
 *   without separate channels.
 */
import { G711_RATE, liveFormatProblem, type LiveAudioFormat } from "../../audio/live-input.ts";
import { MAX_CHANNELS, type Hotword, type TranscriptFormattingRequest } from "../../core/asr.ts";
import { AppError, toAppError } from "../../errors/taxonomy.ts";
import { DEFAULT_BOOST, HOTWORD_LIMITS, parseHotwords } from "../boost/hotwords.ts";
import { formattingRequest } from "../format/request.ts";

/**
 * Shortest endpointing silence served. Deepgram's default is 10 ms and LiveKit's plugin asks for
 * 25: a streaming model keeps its context across such cuts, but Sawt decodes each utterance on its
 * own, so a cut at every short pause between words would lose them context. Shorter values are
 * served as this (docs/voice-bots.md).
 */
export const MIN_ENDPOINTING_MS = 300;
/** Longest `utterance_end_ms`: the live core counts at most 10 s of missing audio as silence. */
export const MAX_UTTERANCE_END_MS = 5000;

/** The encodings Sawt takes, and what each is. */
const ENCODINGS: Readonly<Record<string, LiveAudioFormat["encoding"]>> = {
  linear16: "pcm_s16le",
  mulaw: "pcm_mulaw",
  alaw: "pcm_alaw",
};

/**
 * Deepgram's redaction names and the Sawt types they hide (its own type names pass as they are).
 * `pii` is Sawt's pii (IBAN, national ID, phone, e-mail): names and places are not redacted.
 */
const REDACT_NAMES: Readonly<Record<string, readonly string[]>> = {
  pci: ["pci"],
  pii: ["pii"],
  ssn: ["national_id"],
  credit_card: ["card"],
  credit_card_expiration: ["expiry"],
  cvv: ["cvv"],
  phone_number: ["phone"],
  email_address: ["email"],
  card: ["card"],
  expiry: ["expiry"],
  iban: ["iban"],
  national_id: ["national_id"],
  phone: ["phone"],
  email: ["email"],
};

/** Parameters that ask for what Sawt cannot do when true. */
const REFUSED_WHEN_TRUE: Readonly<Record<string, string>> = {
  detect_language: "Sawt does not detect the language: name it (ar or en), or leave it out for the default recogniser",
  dictation: "Sawt does not turn spoken punctuation commands into marks",
  measurements: "Sawt does not convert spoken measurements",
};

/** What a `/v1/listen` request asked, in Sawt's terms. */
export interface ListenParams {
  /** The model name asked for (echoed in metadata; it does not choose the recogniser). */
  readonly model: string;
  /** The transcription language; absent: Sawt's default recogniser. */
  readonly language?: "ar" | "en";
  /** Raw audio (`encoding` and `sample_rate`); absent: a container the decoder reads. */
  readonly format?: LiveAudioFormat;
  /** Interleaved channels of raw audio (1 when absent). */
  readonly channels: number;
  /** Channels transcribed apart (`multichannel=true`); otherwise one mean stream. */
  readonly multichannel: boolean;
  readonly interimResults: boolean;
  /** Milliseconds of silence that end an utterance, or false (the file rule's utterances). */
  readonly endpointing: number | false;
  readonly utteranceEndMs?: number;
  readonly vadEvents: boolean;
  /** Words carry their channel as `speaker`. */
  readonly diarize: boolean;
  /** `utterances=true` (pre-recorded): the response lists its utterances. */
  readonly utterances: boolean;
  readonly formatting: TranscriptFormattingRequest;
  readonly hotwords: readonly Hotword[];
}

/** A parameter Sawt cannot serve: 400, answered as Deepgram's INVALID_QUERY_PARAMETER. */
export function invalidParameter(param: string, message: string): AppError {
  return new AppError("bad_request", `${param}: ${message}`, { fields: [{ field: `query.${param}`, message }] });
}

/** Whether an error names a query parameter (Deepgram answers those as INVALID_QUERY_PARAMETER). */
export function isParameterError(error: AppError): boolean {
  return error.fields.some((f) => f.field.startsWith("query."));
}

/** The query's reader: last value wins for single parameters, every value for lists. */
class Query {
  constructor(private readonly params: URLSearchParams) {}

  text(name: string): string | undefined {
    const values = this.params.getAll(name);
    const value = values[values.length - 1]?.trim();
    return value === "" ? undefined : value;
  }

  list(name: string): string[] {
    return [...this.params.getAll(name), ...this.params.getAll(`${name}[]`)]
      .map((v) => v.trim())
      .filter((v) => v !== "");
  }

  flag(name: string, fallback = false): boolean {
    const value = this.text(name)?.toLowerCase();
    if (value === undefined) return fallback;
    if (value === "true") return true;
    if (value === "false") return false;
    throw invalidParameter(name, "must be true or false");
  }

  whole(name: string, min: number, max: number): number | undefined {
    const value = this.text(name);
    if (value === undefined) return undefined;
    const n = /^\d+$/.test(value) ? Number(value) : NaN;
    if (!(n >= min && n <= max)) throw invalidParameter(name, `must be a whole number from ${min} to ${max}`);
    return n;
  }
}

/** `language` → Sawt's language (its region or dialect tag is left to the dialect rule). */
function languageOf(query: Query): "ar" | "en" | undefined {
  const tag = query.text("language");
  if (tag === undefined) return undefined;
  const base = tag.split(/[-_]/)[0]!.toLowerCase();
  if (base === "ar" || base === "en") return base;
  throw invalidParameter(
    "language",
    `${tag.slice(0, 32)} is not served: Sawt transcribes ar (ar-SA, ar-EG and so on: the dialect is detected) and en`,
  );
}

/** `encoding`, `sample_rate`: raw audio, or undefined for a container. */
function formatOf(query: Query): LiveAudioFormat | undefined {
  const name = query.text("encoding")?.toLowerCase();
  if (name === undefined) return undefined;
  const encoding = ENCODINGS[name];
  if (!encoding) throw invalidParameter("encoding", `${name.slice(0, 32)} is not served: use linear16, mulaw or alaw`);
  const rate = query.whole("sample_rate", 1, 1_000_000) ?? (encoding === "pcm_s16le" ? undefined : G711_RATE);
  if (rate === undefined) throw invalidParameter("sample_rate", "is required with encoding=linear16");
  const format = { encoding, sampleRate: rate };
  const problem = liveFormatProblem(format);
  if (problem) throw invalidParameter("sample_rate", problem);
  return format;
}

/** `endpointing`: milliseconds (raised to the floor), or false. */
function endpointingOf(query: Query): number | false {
  const value = query.text("endpointing")?.toLowerCase();
  if (value === "false") return false;
  if (value === undefined || value === "true") return MIN_ENDPOINTING_MS;
  const ms = query.whole("endpointing", 0, 60_000);
  return Math.max(MIN_ENDPOINTING_MS, ms ?? 0);
}

/** `redact` values (repeated or comma-separated) as Sawt's classes and types. */
function redactionsOf(query: Query): string[] {
  const names = query.list("redact").flatMap((v) => v.split(","));
  const classes: string[] = [];
  for (const raw of names) {
    const name = raw.trim().toLowerCase();
    if (name === "" || name === "false") continue;
    const mapped = REDACT_NAMES[name];
    if (!mapped)
      throw invalidParameter(
        "redact",
        `${name.slice(0, 32)} is not served: Sawt redacts pci, pii (IBAN, national ID, phone, e-mail), ssn and the types ` +
          "card, cvv, expiry, iban, national_id, phone, email; not every number, names or places",
      );
    classes.push(...mapped);
  }
  return classes;
}

/** `keywords` (`phrase:intensifier`) and `keyterm` as phrases to favour. */
function hotwordsOf(query: Query): Hotword[] {
  const entries: string[] = [];
  for (const keyword of query.list("keywords")) {
    const parts = /^(.*?):\s*([+-]?(?:\d+\.?\d*|\.\d+))$/s.exec(keyword);
    const intensifier = parts ? Number(parts[2]) : 1;
    if (intensifier < 0)
      throw invalidParameter("keywords", "a negative intensifier asks to suppress a word, which Sawt cannot do");
    const boost = Math.min(HOTWORD_LIMITS.maxBoost, DEFAULT_BOOST * intensifier);
    entries.push(`${(parts ? parts[1]! : keyword).replace(/[,،\n\r]/g, " ")}:${boost}`);
  }
  for (const term of query.list("keyterm")) entries.push(`${term.replace(/[,،\n\r]/g, " ")}:${DEFAULT_BOOST}`);
  return asParameter("keywords", () => parseHotwords(entries, "keywords"));
}

/** Runs `read`, answering a validation failure as a problem with `param`. */
function asParameter<T>(param: string, read: () => T): T {
  try {
    return read();
  } catch (error) {
    const appError = toAppError(error);
    if (appError.kind !== "validation") throw error;
    throw invalidParameter(param, appError.fields.map((f) => f.message).join("; "));
  }
}

/** Reads a `/v1/listen` query; `live` for the WebSocket (raw audio only). Throws the 400. */
export function listenParams(params: URLSearchParams, live: boolean): ListenParams {
  const query = new Query(params);
  for (const [name, why] of Object.entries(REFUSED_WHEN_TRUE)) if (query.flag(name)) throw invalidParameter(name, why);
  if (query.text("callback") !== undefined)
    throw invalidParameter("callback", "Sawt does not call back: keep the connection and read the answer");
  if (query.list("replace").length > 0) throw invalidParameter("replace", "Sawt does not find and replace terms");
  const format = formatOf(query);
  if (live && format === undefined)
    throw invalidParameter(
      "encoding",
      "the live door takes raw audio: give encoding (linear16, mulaw, alaw) and sample_rate",
    );
  const channels = query.whole("channels", 1, MAX_CHANNELS) ?? 1;
  const multichannel = query.flag("multichannel");
  const diarize = query.flag("diarize");
  // Raw audio names its channels; a container split into too few is refused when it is decoded.
  if (diarize && (!multichannel || (format !== undefined && channels < 2)))
    throw invalidParameter(
      "diarize",
      "Sawt tells speakers apart by channel: send them as channels with multichannel=true",
    );
  const itn = query.flag("punctuate") || query.flag("smart_format") || query.flag("numerals");
  const utteranceEndMs = query.whole("utterance_end_ms", 1, MAX_UTTERANCE_END_MS);
  const language = languageOf(query);
  return {
    model: query.text("model") ?? "general",
    ...(language ? { language } : {}),
    ...(format ? { format } : {}),
    channels,
    multichannel,
    interimResults: query.flag("interim_results"),
    endpointing: endpointingOf(query),
    ...(utteranceEndMs !== undefined ? { utteranceEndMs } : {}),
    vadEvents: query.flag("vad_events"),
    diarize,
    utterances: query.flag("utterances"),
    formatting: asParameter("redact", () => formattingRequest({ itn, redact: redactionsOf(query) }, "redact")),
    hotwords: hotwordsOf(query),
  };
}
