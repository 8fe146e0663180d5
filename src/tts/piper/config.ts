/**
 * The Piper/VITS voice contract, read once into a frozen {@link VoiceConfig}: from a Piper
 * `<voice>.onnx.json`, or from a sherpa-onnx VITS model's metadata plus its `tokens.txt`. Both
 * describe the same graph (decisions §4), so everything after this file is family-blind.
 *
 * Required: sample rate, a phoneme → id map holding Piper's `^ _ $`, a supported phoneme type
 * and, for espeak phonemes, the espeak voice. Defaulted: inference scales (Piper's published
 * 0.667 / 1 / 0.8), speakers (1). Anything else wrong is a {@link PackError} naming the key.
 */
import { PackError } from "../../models/errors.ts";
import { parseTokensTxt } from "../../models/tokens.ts";

/** How text becomes model symbols: libespeak-ng IPA, or the text's own NFD code points. */
export type PhonemeType = "espeak" | "text";

/** A voice pack's validated contract. */
export interface VoiceConfig {
  readonly family: "piper" | "vits";
  readonly modelPath: string;
  readonly sampleRate: number;
  readonly phonemeType: PhonemeType;
  /** espeak-ng voice for phonemes ("ar", "en-us"); for text voices, the language's code. */
  readonly espeakVoice: string;
  /** Language the front-end reads numbers in. */
  readonly language: "ar" | "en";
  /** Symbol (one code point, or Piper's multi-code-point entries) → ids. */
  readonly phonemeIdMap: ReadonlyMap<string, readonly number[]>;
  /** Piper's optional phoneme substitutions, applied before the id map. */
  readonly phonemeMap: ReadonlyMap<string, readonly string[]>;
  readonly numSpeakers: number;
  /** Speaker name → sid (Piper); empty for sherpa-onnx packs, which number speakers only. */
  readonly speakerIdMap: Readonly<Record<string, number>>;
  readonly inference: { readonly noiseScale: number; readonly lengthScale: number; readonly noiseW: number };
}

const PIPER_SPECIALS = ["^", "_", "$"] as const;
const DEFAULT_INFERENCE = { noiseScale: 0.667, lengthScale: 1, noiseW: 0.8 } as const;

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  value !== null && typeof value === "object" && !Array.isArray(value);

function positiveNumber(value: unknown, key: string, fallback: number): number {
  if (value === undefined || value === null) return fallback;
  const n = typeof value === "string" ? Number(value) : value;
  if (typeof n !== "number" || !Number.isFinite(n) || n <= 0)
    throw new PackError(`${key} must be a positive number, got ${JSON.stringify(value)}`);
  return n;
}

function sampleRateOf(value: unknown, key: string): number {
  const n = typeof value === "string" ? Number(value) : value;
  if (typeof n !== "number" || !Number.isInteger(n) || n < 4000 || n > 192000)
    throw new PackError(`${key} must be an integer sample rate, got ${JSON.stringify(value)}`);
  return n;
}

function checkIdMap(
  map: Map<string, number[]>,
  numSymbols: number | undefined,
  source: string,
): ReadonlyMap<string, readonly number[]> {
  for (const special of PIPER_SPECIALS) {
    if (!map.has(special))
      throw new PackError(`${source} has no id for "${special}" (Piper's sequence is ^ _ (phoneme _)* $)`);
  }
  for (const [symbol, ids] of map) {
    if (
      ids.length === 0 ||
      ids.some((id) => !Number.isInteger(id) || id < 0 || (numSymbols !== undefined && id >= numSymbols))
    ) {
      throw new PackError(
        `${source}: ids of ${JSON.stringify(symbol)} must be integers in 0..${(numSymbols ?? Infinity) - 1}`,
      );
    }
  }
  return map;
}

function languageOf(code: string): "ar" | "en" {
  return /^en\b|^en[-_]|^english/i.test(code) ? "en" : "ar";
}

/** Parses and validates a Piper `.onnx.json` (already JSON-decoded) for the model at `modelPath`. */
export function parsePiperConfig(json: unknown, modelPath: string): VoiceConfig {
  if (!isObject(json)) throw new PackError("config is not a JSON object");
  const audio = isObject(json.audio) ? json.audio : {};
  const sampleRate = sampleRateOf(audio.sample_rate, "audio.sample_rate");
  const phonemeType = json.phoneme_type ?? "espeak";
  if (phonemeType !== "espeak" && phonemeType !== "text")
    throw new PackError(`phoneme_type ${JSON.stringify(phonemeType)} is not supported (espeak or text)`);
  const espeak = isObject(json.espeak) ? json.espeak : {};
  const language = isObject(json.language) ? json.language : {};
  const family =
    typeof language.family === "string"
      ? language.family
      : typeof language.code === "string"
        ? language.code
        : undefined;
  const espeakVoice = typeof espeak.voice === "string" && espeak.voice.trim() !== "" ? espeak.voice.trim() : undefined;
  if (phonemeType === "espeak" && espeakVoice === undefined)
    throw new PackError("espeak.voice is required for phoneme_type espeak");

  if (!isObject(json.phoneme_id_map)) throw new PackError("phoneme_id_map is missing");
  const ids = new Map<string, number[]>();
  for (const [symbol, value] of Object.entries(json.phoneme_id_map)) {
    const list = Array.isArray(value) ? value : [value];
    ids.set(symbol, list as number[]);
  }
  const numSymbols = json.num_symbols === undefined ? undefined : positiveNumber(json.num_symbols, "num_symbols", 1);
  const phonemeMap = new Map<string, string[]>();
  if (isObject(json.phoneme_map)) {
    for (const [from, to] of Object.entries(json.phoneme_map)) {
      if (!Array.isArray(to) || to.some((p) => typeof p !== "string"))
        throw new PackError(`phoneme_map[${JSON.stringify(from)}] must be a list of phonemes`);
      phonemeMap.set(from, to as string[]);
    }
  }
  const numSpeakers = Math.round(positiveNumber(json.num_speakers, "num_speakers", 1));
  const speakerIdMap: Record<string, number> = {};
  if (isObject(json.speaker_id_map)) {
    for (const [name, sid] of Object.entries(json.speaker_id_map)) {
      if (typeof sid !== "number" || !Number.isInteger(sid) || sid < 0 || sid >= numSpeakers)
        throw new PackError(
          `speaker_id_map[${JSON.stringify(name)}] must be a sid below num_speakers (${numSpeakers})`,
        );
      speakerIdMap[name] = sid;
    }
  }
  const inference = isObject(json.inference) ? json.inference : {};
  return freeze({
    family: "piper",
    modelPath,
    sampleRate,
    phonemeType,
    espeakVoice: espeakVoice ?? family ?? "ar",
    language: languageOf(phonemeType === "espeak" ? espeakVoice! : (family ?? "ar")),
    phonemeIdMap: checkIdMap(ids, numSymbols, "phoneme_id_map"),
    phonemeMap,
    numSpeakers,
    speakerIdMap,
    inference: {
      noiseScale: positiveNumber(inference.noise_scale, "inference.noise_scale", DEFAULT_INFERENCE.noiseScale),
      lengthScale: positiveNumber(inference.length_scale, "inference.length_scale", DEFAULT_INFERENCE.lengthScale),
      noiseW: positiveNumber(inference.noise_w, "inference.noise_w", DEFAULT_INFERENCE.noiseW),
    },
  });
}

/** `tokens.txt` as the phoneme id map. A repeated symbol keeps its first id, as sherpa-onnx does. */
export function parseTokens(text: string): Map<string, number[]> {
  const map = new Map<string, number[]>();
  for (const { symbol, id } of parseTokensTxt(text)) if (!map.has(symbol)) map.set(symbol, [id]);
  return map;
}

/** Validates a sherpa-onnx VITS pack: model metadata (`model_type=vits`, …) and tokens.txt text. */
export function parseSherpaVitsConfig(
  metadata: Readonly<Record<string, string>>,
  tokensText: string,
  modelPath: string,
): VoiceConfig {
  if (metadata.model_type !== "vits")
    throw new PackError(`metadata model_type is ${JSON.stringify(metadata.model_type ?? null)}, expected "vits"`);
  const sampleRate = sampleRateOf(metadata.sample_rate, "metadata sample_rate");
  const espeakVoice = metadata.voice?.trim() || undefined;
  // sherpa-onnx's Piper conversions say comment=piper and has_espeak=1; other VITS exports read characters.
  const phonemeType: PhonemeType = metadata.has_espeak === "1" || metadata.comment === "piper" ? "espeak" : "text";
  if (phonemeType === "espeak" && espeakVoice === undefined)
    throw new PackError("metadata voice (the espeak voice) is required for a Piper-style VITS model");
  const language = metadata.language ?? espeakVoice ?? "ar";
  return freeze({
    family: "vits",
    modelPath,
    sampleRate,
    phonemeType,
    espeakVoice: espeakVoice ?? (languageOf(language) === "en" ? "en" : "ar"),
    language: languageOf(phonemeType === "espeak" ? espeakVoice! : language),
    phonemeIdMap: checkIdMap(parseTokens(tokensText), undefined, "tokens.txt"),
    phonemeMap: new Map(),
    numSpeakers: Math.round(positiveNumber(metadata.n_speakers, "metadata n_speakers", 1)),
    speakerIdMap: {},
    inference: {
      noiseScale: positiveNumber(metadata.noise_scale, "metadata noise_scale", DEFAULT_INFERENCE.noiseScale),
      lengthScale: positiveNumber(metadata.length_scale, "metadata length_scale", DEFAULT_INFERENCE.lengthScale),
      noiseW: positiveNumber(
        metadata.noise_scale_w ?? metadata.noise_w,
        "metadata noise_scale_w",
        DEFAULT_INFERENCE.noiseW,
      ),
    },
  });
}

function freeze(config: VoiceConfig): VoiceConfig {
  Object.freeze(config.inference);
  Object.freeze(config.speakerIdMap);
  return Object.freeze(config);
}
