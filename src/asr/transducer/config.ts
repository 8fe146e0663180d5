/**
 * Offline NeMo transducer packs as sherpa-onnx exports them (Parakeet, FastConformer RNNT/TDT):
 * `encoder.onnx`, `decoder.onnx`, `joiner.onnx` (or their `.int8.onnx`) and `tokens.txt`
 * (`<token> <id>`, `<blk>` last). Read the way sherpa-onnx reads them — by input/output position,
 * since NeMo's exported names vary between versions:
 * - encoder: (features [1, feat_dim, T], length int64 [1]) → (encoder_out [1, dim, T'], length);
 * - decoder (prediction net): (targets int32 [1, 1], target_length int32 [1], states…
 *   [pred_rnn_layers, 1, pred_hidden]) → (decoder_out [1, dim, 1], length, next states…);
 * - joiner: (encoder frame [1, dim, 1], decoder_out) → logits […, vocab] — or vocab + durations
 *   for TDT, which sherpa-onnx recognises by "tdt" in the metadata `url`.
 * Encoder metadata: `vocab_size` (blank excluded), `subsampling_factor`, `normalize_type`,
 * `pred_rnn_layers`, `pred_hidden`, optional `feat_dim`. Packs whose encoder carries
 * `cache_last_channel` are the streaming family's (src/asr/nemo-streaming/).
 */
import { PackError } from "../../models/errors.ts";
import { MetadataReader, type OnnxModelInfo } from "../../models/header.ts";
import type { PackFiles } from "../../models/pack.ts";
import { parseCtcTokens } from "../ctc/config.ts";

/** A validated offline NeMo transducer pack. */
export interface TransducerConfig {
  readonly encoderPath: string;
  readonly decoderPath: string;
  readonly joinerPath: string;
  readonly tokens: readonly string[];
  /** The last id (`<blk>`). */
  readonly blankId: number;
  readonly featDim: number;
  readonly normalize: "per_feature" | "none";
  readonly subsamplingFactor: number;
  readonly predRnnLayers: number;
  readonly predHidden: number;
  /** Token-and-duration transducer: the joiner's outputs past the vocabulary are duration logits. */
  readonly tdt: boolean;
}

/** The first of `encoder.onnx`/`encoder.int8.onnx` (etc.) the pack holds. */
export function transducerFile(pack: PackFiles, part: "encoder" | "decoder" | "joiner"): string | undefined {
  return [`${part}.onnx`, `${part}.int8.onnx`].find((f) => pack.has(f));
}

/** Whether the encoder header declares NeMo's streaming caches. */
export function hasStreamingCaches(info: OnnxModelInfo | null): boolean {
  return info?.inputs.some((i) => i.name === "cache_last_channel") ?? false;
}

function parts(pack: PackFiles): [string, string, string] | null {
  const encoder = transducerFile(pack, "encoder");
  const decoder = transducerFile(pack, "decoder");
  const joiner = transducerFile(pack, "joiner");
  if (encoder === undefined || decoder === undefined || joiner === undefined || !pack.has("tokens.txt")) return null;
  return [encoder, decoder, joiner];
}

/** Whether the folder is an offline transducer: encoder/decoder/joiner + tokens.txt, no streaming caches. */
export function claimsTransducer(pack: PackFiles): boolean {
  const files = parts(pack);
  return files !== null && !hasStreamingCaches(pack.tryHeader(files[0]));
}

/** What the encoder metadata says, shared with the streaming transducer. */
export interface TransducerMeta {
  readonly vocabSize: number;
  readonly subsamplingFactor: number;
  readonly normalize: "per_feature" | "none";
  readonly predRnnLayers: number;
  readonly predHidden: number;
  readonly featDim: number;
  readonly tdt: boolean;
}

/** Reads the encoder metadata sherpa-onnx requires; problems land in `problems`. */
export function readTransducerMeta(info: OnnxModelInfo, file: string, problems: string[]): TransducerMeta {
  const meta = new MetadataReader(info.metadata, file);
  const vocabSize = meta.int("vocab_size");
  const subsamplingFactor = meta.int("subsampling_factor");
  const predRnnLayers = meta.int("pred_rnn_layers");
  const predHidden = meta.int("pred_hidden");
  const normalizeType = meta.stringOr("normalize_type", "").trim();
  if (!["per_feature", "", "NA"].includes(normalizeType))
    problems.push(`${file} metadata normalize_type ${JSON.stringify(normalizeType)} is not supported`);
  const declared = info.inputs[0]?.dims?.[1];
  const featDim = meta.intOr("feat_dim", typeof declared === "number" ? declared : 80);
  problems.push(...meta.problems);
  if (subsamplingFactor < 1 || predRnnLayers < 1 || predHidden < 1 || featDim < 1)
    problems.push(`${file} metadata has a non-positive size`);
  return {
    vocabSize,
    subsamplingFactor,
    normalize: normalizeType === "per_feature" ? "per_feature" : "none",
    predRnnLayers,
    predHidden,
    featDim,
    tdt: meta.stringOr("url", "").includes("tdt"),
  };
}

/** tokens.txt checked as sherpa-onnx checks it: `<blk>` is the last id and there are vocab_size + 1 lines. */
export function transducerTokens(pack: PackFiles, vocabSize: number, problems: string[]): string[] {
  const tokens = parseCtcTokens(pack.text("tokens.txt"));
  if (tokens[tokens.length - 1] !== "<blk>") problems.push("tokens.txt does not end with the blank <blk>");
  if (tokens.length !== vocabSize + 1)
    problems.push(`tokens.txt lists ${tokens.length} tokens but vocab_size is ${vocabSize} (+ blank)`);
  return tokens;
}

/** Validates a claimed pack; throws {@link PackError} with every reason it is unusable. */
export function configureTransducer(pack: PackFiles): TransducerConfig {
  const [encoder, decoder, joiner] = parts(pack)!;
  const problems: string[] = [];
  const meta = readTransducerMeta(pack.header(encoder), encoder, problems);
  const tokens = transducerTokens(pack, meta.vocabSize, problems);
  const decoderInfo = pack.header(decoder);
  if (decoderInfo.inputs.length !== 4 || decoderInfo.outputs.length !== 4) {
    problems.push(`${decoder} must take targets, target_length and two states and return as many`);
  }
  const outputs = pack.header(joiner).outputs[0]?.dims;
  const width = outputs?.[outputs.length - 1];
  if (typeof width === "number") {
    if (meta.tdt && width <= tokens.length)
      problems.push(`${joiner} has no duration outputs although the model is TDT`);
    if (!meta.tdt && width !== tokens.length)
      problems.push(`${joiner} gives ${width} logits but tokens.txt lists ${tokens.length}`);
  }
  if (problems.length > 0) throw new PackError(problems.join("; "));
  return Object.freeze({
    encoderPath: pack.path(encoder),
    decoderPath: pack.path(decoder),
    joinerPath: pack.path(joiner),
    tokens: Object.freeze(tokens),
    blankId: tokens.length - 1,
    featDim: meta.featDim,
    normalize: meta.normalize,
    subsamplingFactor: meta.subsamplingFactor,
    predRnnLayers: meta.predRnnLayers,
    predHidden: meta.predHidden,
    tdt: meta.tdt,
  });
}
