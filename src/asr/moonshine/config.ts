/**
 * Moonshine packs in the Hugging Face onnx-community layout: `encoder_model.onnx` (or `.ort`),
 * `decoder_model_merged.onnx` (or `.ort`) and `tokenizer.json`.
 *
 * - Encoder: `input_values` float [1, samples] (raw 16 kHz audio) → `last_hidden_state`
 *   [1, frames, hidden].
 * - Merged decoder: `input_ids` int64 [1, n], `encoder_hidden_states`, `use_cache_branch` bool
 *   [1] and `past_key_values.<layer>.{decoder,encoder}.{key,value}` [1, heads, len, head_dim] →
 *   `logits` [1, n, vocab] and `present.<layer>.…` of the same names.
 *
 * Layers, heads and head size come from the decoder's declared inputs; an `.ort` decoder (whose
 * header Sawt cannot read) needs the layout's `config.json` (`decoder_num_hidden_layers`,
 * `decoder_num_key_value_heads` or `decoder_num_attention_heads`, `hidden_size`). The language
 * (for the token-rate cap) is the folder name's last part (`moonshine-base-ar` → `ar`), or
 * config.json's `language` when it has one.
 */
import { PackError } from "../../models/errors.ts";
import { missingIo } from "../../models/header.ts";
import type { PackFiles } from "../../models/pack.ts";
import { cacheGeometry, declaredInputs } from "../seq2seq/geometry.ts";
import type { CacheGeometry } from "../seq2seq/kv-decoder.ts";
import { parseMoonshineTokenizer, type MoonshineVocabulary } from "./tokenizer.ts";

/** A validated Moonshine pack. */
export interface MoonshineConfig {
  readonly encoderPath: string;
  readonly decoderPath: string;
  readonly vocabulary: MoonshineVocabulary;
  readonly layers: number;
  readonly heads: number;
  readonly headDim: number;
  /** Inputs the decoder declares (null for an `.ort` file, whose header is not read). */
  readonly decoderInputs: ReadonlySet<string> | null;
  /** ISO 639-1 code, or null when the pack does not say. */
  readonly language: string | null;
}

const ENCODERS = ["encoder_model.onnx", "encoder_model.ort"] as const;
const DECODERS = ["decoder_model_merged.onnx", "decoder_model_merged.ort"] as const;

function firstPresent(pack: PackFiles, names: readonly string[]): string | undefined {
  return names.find((name) => pack.has(name));
}

/** Whether the folder holds a Moonshine encoder, merged decoder and tokenizer.json. */
export function claimsMoonshine(pack: PackFiles): boolean {
  return (
    firstPresent(pack, ENCODERS) !== undefined &&
    firstPresent(pack, DECODERS) !== undefined &&
    pack.has("tokenizer.json")
  );
}

interface HfConfig {
  readonly decoder_num_hidden_layers?: number;
  readonly decoder_num_key_value_heads?: number;
  readonly decoder_num_attention_heads?: number;
  readonly hidden_size?: number;
  readonly language?: string;
}

function readHfConfig(pack: PackFiles): HfConfig | null {
  if (!pack.has("config.json")) return null;
  try {
    return JSON.parse(pack.text("config.json")) as HfConfig;
  } catch {
    throw new PackError("config.json is not valid JSON");
  }
}

/** Cache geometry from config.json, for decoders whose header cannot be read (`.ort`). */
function shapeFromHfConfig(config: HfConfig | null, file: string): CacheGeometry {
  const layers = config?.decoder_num_hidden_layers;
  const heads = config?.decoder_num_key_value_heads ?? config?.decoder_num_attention_heads;
  const attentionHeads = config?.decoder_num_attention_heads ?? heads;
  const hidden = config?.hidden_size;
  const whole = (n: unknown): n is number => Number.isInteger(n) && (n as number) > 0;
  if (!whole(layers) || !whole(heads) || !whole(attentionHeads) || !whole(hidden) || hidden % attentionHeads !== 0) {
    throw new PackError(
      `${file} needs a config.json giving decoder_num_hidden_layers, decoder_num_attention_heads and hidden_size`,
    );
  }
  return { layers, heads, headDim: hidden / attentionHeads };
}

/** The pack's language: config.json's `language`, else a two-letter last part of the folder name. */
function languageOf(pack: PackFiles, config: HfConfig | null): string | null {
  if (typeof config?.language === "string" && /^[a-z]{2}$/.test(config.language)) return config.language;
  const last = /[-_]([a-z]{2})$/i.exec(pack.name)?.[1];
  return last === undefined ? null : last.toLowerCase();
}

/** Validates a claimed pack; throws {@link PackError} with every reason it is unusable. */
export function configureMoonshine(pack: PackFiles): MoonshineConfig {
  const encoder = firstPresent(pack, ENCODERS)!;
  const decoder = firstPresent(pack, DECODERS)!;
  const problems: string[] = [];
  if (encoder.endsWith(".onnx"))
    problems.push(...missingIo(pack.header(encoder), ["input_values"], ["last_hidden_state"], encoder));
  const hf = readHfConfig(pack);
  const header = decoder.endsWith(".onnx") ? pack.header(decoder) : null;
  const shape = header
    ? cacheGeometry(header, decoder, ["encoder_hidden_states", "use_cache_branch"], problems)
    : shapeFromHfConfig(hf, decoder);
  const vocabulary = parseMoonshineTokenizer(pack.text("tokenizer.json"));
  if (problems.length > 0) throw new PackError(problems.join("; "));
  return Object.freeze({
    encoderPath: pack.path(encoder),
    decoderPath: pack.path(decoder),
    vocabulary,
    ...shape,
    decoderInputs: header ? declaredInputs(header) : null,
    language: languageOf(pack, hf),
  });
}
