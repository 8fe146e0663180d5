/**
 * Whisper packs in sherpa-onnx's export layout: `<p>-encoder.onnx`, `<p>-decoder.onnx` (or their
 * `.int8.onnx` versions) and `<p>-tokens.txt`. The encoder carries the model's settings as
 * metadata (scripts/whisper/export-onnx.py): n_mels, n_text_layer, n_text_ctx, n_text_state,
 * n_vocab, sot, eot, no_timestamps, transcribe, sot_sequence, is_multilingual, all_language_tokens,
 * all_language_codes (required) and blank_id, no_speech, translate, sot_prev, sot_lm,
 * non_speech_tokens (optional). Arabic needs a multilingual model.
 */
import { PackError } from "../../models/errors.ts";
import { MetadataReader, missingIo } from "../../models/header.ts";
import type { PackFiles } from "../../models/pack.ts";
import { parseWhisperTokens } from "./tokens.ts";

/** Encoder metadata as a typed, frozen object. */
export interface WhisperMeta {
  readonly nMels: number;
  readonly nTextLayer: number;
  readonly nTextCtx: number;
  readonly nTextState: number;
  readonly nVocab: number;
  readonly sot: number;
  readonly eot: number;
  readonly noTimestamps: number;
  readonly transcribe: number;
  readonly sotSequence: readonly number[];
  readonly languages: ReadonlyMap<string, number>;
  readonly blankId: number | null;
  readonly noSpeech: number | null;
  readonly translate: number | null;
  readonly sotPrev: number | null;
  readonly sotLm: number | null;
  readonly nonSpeechTokens: readonly number[];
}

/** A validated Whisper pack. */
export interface WhisperConfig {
  readonly encoderPath: string;
  readonly decoderPath: string;
  readonly meta: WhisperMeta;
  /** Token bytes by id (ids below eot). */
  readonly tokenBytes: ReadonlyMap<number, Uint8Array>;
  /** Decoder prompt: sot, Arabic, transcribe, no_timestamps. */
  readonly prompt: readonly number[];
}

const ENCODER = /^(.*)-encoder(\.int8)?\.onnx$/;

interface Files {
  readonly encoder: string;
  readonly decoder: string;
  readonly tokens: string;
}

/** Picks the encoder/decoder/tokens trio of one prefix, preferring full precision. */
function whisperFiles(pack: PackFiles): Files | string {
  const encoders = pack.files
    .filter((f) => ENCODER.test(f))
    .sort((a, b) => Number(a.includes(".int8.")) - Number(b.includes(".int8.")));
  const first = encoders[0];
  if (first === undefined) return "no *-encoder.onnx";
  const [, prefix, int8] = ENCODER.exec(first)!;
  const decoder = [`${prefix}-decoder${int8 ?? ""}.onnx`, `${prefix}-decoder.onnx`, `${prefix}-decoder.int8.onnx`].find(
    (f) => pack.has(f),
  );
  if (decoder === undefined) return `missing ${prefix}-decoder.onnx`;
  const tokens = `${prefix}-tokens.txt`;
  if (!pack.has(tokens)) return `missing ${tokens}`;
  return { encoder: first, decoder, tokens };
}

/** Whether the folder is a Whisper pack (an `*-encoder.onnx` is enough to claim it). */
export function claimsWhisper(pack: PackFiles): boolean {
  return pack.files.some((f) => ENCODER.test(f));
}

function readMeta(
  metadata: Readonly<Record<string, string>>,
  label: string,
): { meta: WhisperMeta; problems: string[] } {
  const m = new MetadataReader(metadata, label);
  const codes = m.stringList("all_language_codes");
  const ids = m.intList("all_language_tokens");
  if (codes.length !== ids.length)
    m.problems.push(`${label} metadata all_language_codes and all_language_tokens differ in length`);
  const meta: WhisperMeta = {
    nMels: m.int("n_mels"),
    nTextLayer: m.int("n_text_layer"),
    nTextCtx: m.int("n_text_ctx"),
    nTextState: m.int("n_text_state"),
    nVocab: m.int("n_vocab"),
    sot: m.int("sot"),
    eot: m.int("eot"),
    noTimestamps: m.int("no_timestamps"),
    transcribe: m.int("transcribe"),
    sotSequence: Object.freeze(m.intList("sot_sequence")),
    languages: new Map(codes.map((code, i) => [code, ids[i]!] as const)),
    blankId: m.intOr("blank_id", null),
    noSpeech: m.intOr("no_speech", null),
    translate: m.intOr("translate", null),
    sotPrev: m.intOr("sot_prev", null),
    sotLm: m.intOr("sot_lm", null),
    nonSpeechTokens: Object.freeze(m.intListOr("non_speech_tokens")),
  };
  if (!m.has("is_multilingual")) m.problems.push(`${label} metadata is_multilingual is missing`);
  else if (m.int("is_multilingual") !== 1 || !meta.languages.has("ar"))
    m.problems.push("English-only Whisper model: it cannot transcribe Arabic");
  return { meta: Object.freeze(meta), problems: m.problems };
}

/** The prompt Sawt decodes with: the model's sot_sequence with Arabic as language, then no_timestamps. */
export function arabicPrompt(meta: WhisperMeta): number[] {
  const ar = meta.languages.get("ar")!;
  const sequence = [...meta.sotSequence];
  // sot_sequence is [sot, <language>, <task>] for multilingual models; force Arabic and transcribe.
  if (sequence.length >= 2) sequence[1] = ar;
  else sequence.push(ar);
  if (sequence.length >= 3) sequence[2] = meta.transcribe;
  else sequence.push(meta.transcribe);
  return [...sequence.slice(0, 3), meta.noTimestamps];
}

/** Validates a claimed pack; throws {@link PackError} with every reason it is unusable. */
export function configureWhisper(pack: PackFiles): WhisperConfig {
  const files = whisperFiles(pack);
  if (typeof files === "string") throw new PackError(files);
  const encoder = pack.header(files.encoder);
  const decoder = pack.header(files.decoder);
  const { meta, problems } = readMeta(encoder.metadata, files.encoder);
  problems.push(...missingIo(encoder, ["mel"], ["n_layer_cross_k", "n_layer_cross_v"], files.encoder));
  problems.push(
    ...missingIo(
      decoder,
      ["tokens", "in_n_layer_self_k_cache", "in_n_layer_self_v_cache", "n_layer_cross_k", "n_layer_cross_v", "offset"],
      ["logits", "out_n_layer_self_k_cache", "out_n_layer_self_v_cache"],
      files.decoder,
    ),
  );
  const mels = encoder.inputs.find((i) => i.name === "mel")?.dims?.[1];
  if (typeof mels === "number" && mels !== meta.nMels)
    problems.push(`encoder mel input has ${mels} bins but metadata n_mels is ${meta.nMels}`);
  if (meta.nTextCtx < 8) problems.push(`${files.encoder} metadata n_text_ctx ${meta.nTextCtx} is too small`);
  if (problems.length > 0) throw new PackError(problems.join("; "));
  const tokenBytes = parseWhisperTokens(pack.text(files.tokens), files.tokens);
  return Object.freeze({
    encoderPath: pack.path(files.encoder),
    decoderPath: pack.path(files.decoder),
    meta,
    tokenBytes,
    prompt: Object.freeze(arabicPrompt(meta)),
  });
}
