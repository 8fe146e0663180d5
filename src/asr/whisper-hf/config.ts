/**
 * Whisper packs in the Hugging Face layout (Optimum's `optimum-cli export onnx` and the
 * onnx-community uploads transformers.js runs): `encoder_model.onnx` (`input_features` [1, n_mels,
 * 3000] → `last_hidden_state`), `decoder_model_merged.onnx` or `decoder_model.onnx` +
 * `decoder_with_past_model.onnx` (the cache protocol of ../seq2seq/kv-decoder.ts), in any published
 * precision (../seq2seq/hf-files.ts), beside:
 * - `config.json`: `model_type` "whisper", `num_mel_bins`, `max_target_positions`, `vocab_size`;
 * - `generation_config.json`: `decoder_start_token_id`, `eos_token_id`, `lang_to_id` ("<|ar|>" →
 *   id), `task_to_id`, `no_timestamps_token_id` (timestamps follow it), `is_multilingual`,
 *   `suppress_tokens`, `begin_suppress_tokens`, `max_initial_timestamp_index`, `prev_sot_token_id`
 *   (transformers.js `src/models/whisper/modeling_whisper.js` _retrieve_init_tokens builds the
 *   prompt from exactly these);
 * - `preprocessor_config.json`: `feature_size` (80, or 128 for large-v3), `sampling_rate` 16000;
 * - `tokenizer.json`: byte-level BPE (./tokenizer.ts).
 * Language and task tokens come from the files: Arabic and transcribe. Timestamp tokens are
 * decoded when the vocabulary has them, for segment times.
 */
import { PackError } from "../../models/errors.ts";
import { missingIo } from "../../models/header.ts";
import type { PackFiles } from "../../models/pack.ts";
import { cacheGeometry, declaredInputs } from "../seq2seq/geometry.ts";
import { type HfDecoderFiles, hfDecoderFiles, hfJson, hfModelFile } from "../seq2seq/hf-files.ts";
import type { CacheGeometry } from "../seq2seq/kv-decoder.ts";
import type { WhisperMeta } from "../whisper/config.ts";
import type { WhisperDecoding } from "../whisper/pipeline.ts";
import { parseWhisperTokenizer } from "./tokenizer.ts";

/** A validated Hugging Face layout Whisper pack. */
export interface HfWhisperConfig extends WhisperDecoding {
  readonly encoderPath: string;
  readonly decoder: HfDecoderFiles;
  readonly decoderPaths: readonly string[];
  /** Inputs each decoder file declares, in {@link decoderPaths} order. */
  readonly decoderInputs: readonly ReadonlySet<string>[];
  readonly geometry: CacheGeometry;
  /** The files decoded with, for `models list` ("onnx/encoder_model_quantized.onnx + …"). */
  readonly files: readonly string[];
}

/** Whether the folder is a Whisper export in the Hugging Face layout (config.json says whisper). */
export function claimsHfWhisper(pack: PackFiles): boolean {
  if (hfModelFile(pack, "encoder_model") === undefined || hfDecoderFiles(pack) === undefined) return false;
  return hfJson(pack, "config.json")?.model_type === "whisper";
}

type Json = Record<string, unknown>;

const whole = (value: unknown): value is number => Number.isInteger(value) && (value as number) >= 0;

/** Reads the integer `key` of `json`, pushing a problem when it is not one. */
function int(json: Json, key: string, file: string, problems: string[]): number {
  const value = json[key];
  if (whole(value)) return value;
  problems.push(`${file} lacks ${key}`);
  return -1;
}

function ids(value: unknown): number[] {
  return Array.isArray(value) ? value.filter(whole) : [];
}

function required(pack: PackFiles, file: string): Json {
  const json = hfJson(pack, file);
  if (json === null) throw new PackError(`${file} is missing or not a JSON object`);
  return json;
}

/** The prompt's and suppression's token facts from generation_config.json and the tokenizer. */
function readMeta(
  config: Json,
  generation: Json,
  nMels: number,
  special: ReadonlyMap<string, number>,
  problems: string[],
) {
  const g = "generation_config.json";
  const langToId = (generation.lang_to_id ?? {}) as Record<string, unknown>;
  const taskToId = (generation.task_to_id ?? {}) as Record<string, unknown>;
  const languages = new Map<string, number>();
  for (const [token, id] of Object.entries(langToId)) {
    const code = /^<\|([a-z-]+)\|>$/i.exec(token)?.[1];
    if (code !== undefined && whole(id)) languages.set(code, id);
  }
  if (generation.is_multilingual === false || !languages.has("ar"))
    problems.push(
      "English-only Whisper model: it cannot transcribe Arabic (generation_config.json lang_to_id has no <|ar|>)",
    );
  const eos = Array.isArray(generation.eos_token_id) ? generation.eos_token_id[0] : generation.eos_token_id;
  const sot = int(generation, "decoder_start_token_id", g, problems);
  const transcribe = whole(taskToId.transcribe) ? taskToId.transcribe : -1;
  if (transcribe < 0) problems.push(`${g} task_to_id lacks transcribe`);
  const eot = whole(eos) ? eos : (special.get("<|endoftext|>") ?? -1);
  if (eot < 0) problems.push(`${g} lacks eos_token_id`);
  const noTimestamps = int(generation, "no_timestamps_token_id", g, problems);
  const beginSuppress = ids(generation.begin_suppress_tokens).filter((id) => id !== eot);
  const maybe = (value: unknown, token: string) => (whole(value) ? value : (special.get(token) ?? null));
  const meta: WhisperMeta = {
    nMels,
    nTextLayer: whole(config.decoder_layers) ? config.decoder_layers : 0,
    nTextCtx: whole(config.max_target_positions) ? config.max_target_positions : 448,
    nTextState: whole(config.d_model) ? config.d_model : 0,
    nVocab: whole(config.vocab_size) ? config.vocab_size : 0,
    sot,
    eot,
    noTimestamps,
    transcribe,
    sotSequence: [sot, languages.get("ar") ?? -1, transcribe],
    languages,
    blankId: beginSuppress[0] ?? null,
    noSpeech: maybe(undefined, "<|nospeech|>") ?? maybe(undefined, "<|nocaptions|>"),
    translate: whole(taskToId.translate) ? taskToId.translate : null,
    sotPrev: maybe(generation.prev_sot_token_id, "<|startofprev|>"),
    sotLm: maybe(undefined, "<|startoflm|>"),
    nonSpeechTokens: ids(generation.suppress_tokens),
  };
  return meta;
}

/** Validates a claimed pack; throws {@link PackError} with every reason it is unusable. */
export function configureHfWhisper(pack: PackFiles): HfWhisperConfig {
  const encoderFile = hfModelFile(pack, "encoder_model")!;
  const decoder = hfDecoderFiles(pack)!;
  const config = required(pack, "config.json");
  const generation = required(pack, "generation_config.json");
  const preprocessor = required(pack, "preprocessor_config.json");
  const problems: string[] = [];
  const nMels = int(preprocessor, "feature_size", "preprocessor_config.json", problems);
  if (whole(config.num_mel_bins) && config.num_mel_bins !== nMels)
    problems.push(
      `preprocessor_config.json feature_size ${nMels} differs from config.json num_mel_bins ${config.num_mel_bins}`,
    );
  if (preprocessor.sampling_rate !== undefined && preprocessor.sampling_rate !== 16000)
    problems.push(`preprocessor_config.json sampling_rate is ${preprocessor.sampling_rate}, not 16000`);
  const encoder = pack.header(encoderFile);
  problems.push(...missingIo(encoder, ["input_features"], ["last_hidden_state"], encoderFile));
  const features = encoder.inputs.find((i) => i.name === "input_features");
  if (features?.elemType !== undefined && features.elemType !== "float32" && features.elemType !== null)
    problems.push(`${encoderFile} takes ${features.elemType} input_features; use the fp32 or quantized export`);
  const bins = features?.dims?.[1];
  if (typeof bins === "number" && bins !== nMels)
    problems.push(`${encoderFile} takes ${bins} mel bins but preprocessor_config.json feature_size is ${nMels}`);
  const decoderFiles = decoder.kind === "merged" ? [decoder.merged] : [decoder.first, decoder.withPast];
  const headers = decoderFiles.map((file) => pack.header(file));
  const cached = decoder.kind === "merged" ? ["encoder_hidden_states", "use_cache_branch"] : [];
  const geometry = cacheGeometry(
    headers[headers.length - 1]!,
    decoderFiles[decoderFiles.length - 1]!,
    cached,
    problems,
  );
  if (decoder.kind === "split")
    problems.push(...missingIo(headers[0]!, ["input_ids", "encoder_hidden_states"], ["logits"], decoder.first));
  const tokenizer = parseWhisperTokenizer(pack.text("tokenizer.json"));
  const meta = readMeta(config, generation, nMels, tokenizer.special, problems);
  if (problems.length > 0) throw new PackError(problems.join("; "));
  // Timestamp tokens follow <|notimestamps|>; a vocabulary without them decodes text only.
  const begin = meta.noTimestamps + 1;
  const hasTimestamps = meta.nVocab === 0 ? tokenizer.special.has("<|0.00|>") : meta.nVocab > begin;
  const maxInitial = generation.max_initial_timestamp_index;
  const timestamps = hasTimestamps ? { begin, maxInitialIndex: whole(maxInitial) ? maxInitial : null } : null;
  const prompt = [meta.sot, meta.languages.get("ar")!, meta.transcribe, ...(timestamps ? [] : [meta.noTimestamps])];
  return Object.freeze({
    meta: Object.freeze(meta),
    prompt: Object.freeze(prompt),
    tokenBytes: tokenizer.tokenBytes,
    timestamps,
    encoderPath: pack.path(encoderFile),
    decoder,
    decoderPaths: decoderFiles.map((file) => pack.path(file)),
    decoderInputs: headers.map(declaredInputs),
    geometry,
    files: [encoderFile, ...decoderFiles],
  });
}
