/**
 * NeMo CTC packs as sherpa-onnx publishes them: `model.onnx` (or `model.int8.onnx`) + `tokens.txt`
 * (`<token> <id>` per line, blank last). Graph: `audio_signal` float [N, feat_dim, T] + `length`
 * int64 [N] → `logprobs` [N, T', vocab]. Metadata (all optional): `normalize_type` (per_feature,
 * or empty/NA for none; NeMo's default is per_feature), `subsampling_factor` (else derived from
 * T / T'), `feat_dim`/`n_mels` (else the input's fixed dim, else 80).
 */
import type { OnnxModelInfo } from "../../onnx/metadata.ts";
import { PackError } from "../../models/errors.ts";
import { MetadataReader, missingIo } from "../../models/header.ts";
import type { PackFiles } from "../../models/pack.ts";
import { parseTokensTxt } from "../../models/tokens.ts";

/** A validated NeMo CTC pack. */
export interface CtcConfig {
  readonly modelPath: string;
  /** Token text by id. */
  readonly tokens: readonly string[];
  readonly blankId: number;
  readonly featDim: number;
  readonly normalize: "per_feature" | "none";
  /** Encoder frames per output frame; null means derive it from each run. */
  readonly subsamplingFactor: number | null;
  readonly modelType: string;
}

const MODEL_FILES = ["model.onnx", "model.int8.onnx"] as const;

function modelFile(pack: PackFiles): string | undefined {
  return MODEL_FILES.find((f) => pack.has(f));
}

/**
 * Whether the folder is a CTC recogniser pack: model + tokens.txt and a graph taking
 * `audio_signal` or a NeMo `EncDec…` model_type. An unreadable model counts when tokens.txt looks
 * like a CTC vocabulary. (Voice folders never reach this claim: see src/models/registry.ts.)
 */
export function claimsCtc(pack: PackFiles): boolean {
  const file = modelFile(pack);
  if (file === undefined || !pack.has("tokens.txt")) return false;
  const info = pack.tryHeader(file);
  if (info === null) {
    try {
      return /(^|\n)<blk> \d+/.test(pack.text("tokens.txt"));
    } catch {
      return false;
    }
  }
  return info.inputs.some((i) => i.name === "audio_signal") || (info.metadata.model_type ?? "").startsWith("EncDec");
}

/** tokens.txt as an id-indexed table: every id from 0 once, at least two tokens. */
export function parseCtcTokens(text: string): string[] {
  const table: string[] = [];
  for (const { symbol, id } of parseTokensTxt(text)) {
    if (table[id] !== undefined) throw new PackError(`tokens.txt lists id ${id} twice`);
    table[id] = symbol;
  }
  if (table.length < 2) throw new PackError("tokens.txt has fewer than two tokens");
  for (let id = 0; id < table.length; id++)
    if (table[id] === undefined) throw new PackError(`tokens.txt lacks id ${id}`);
  return table;
}

function featureDim(info: OnnxModelInfo, meta: MetadataReader): number {
  const declared = info.inputs.find((i) => i.name === "audio_signal")?.dims?.[1];
  const fromMeta = meta.intOr("feat_dim", meta.intOr("n_mels", null));
  if (fromMeta !== null) return fromMeta;
  return typeof declared === "number" ? declared : 80;
}

/** Validates a claimed pack; throws {@link PackError} with the reason it is unusable. */
export function configureCtc(pack: PackFiles): CtcConfig {
  const file = modelFile(pack)!;
  const info = pack.header(file);
  const problems = missingIo(info, ["audio_signal", "length"], ["logprobs"], file);
  const meta = new MetadataReader(info.metadata, file);
  const normalizeType = meta.stringOr("normalize_type", "per_feature").trim();
  if (!["per_feature", "", "NA", "none"].includes(normalizeType))
    problems.push(`${file} metadata normalize_type ${JSON.stringify(normalizeType)} is not supported`);
  const subsampling = meta.intOr("subsampling_factor", null);
  const featDim = featureDim(info, meta);
  problems.push(...meta.problems);
  const tokens = parseCtcTokens(pack.text("tokens.txt"));
  const vocab = info.outputs.find((o) => o.name === "logprobs")?.dims?.[2];
  if (typeof vocab === "number" && vocab !== tokens.length)
    problems.push(`logprobs has ${vocab} classes but tokens.txt lists ${tokens.length}`);
  if (subsampling !== null && subsampling < 1) problems.push(`${file} metadata subsampling_factor must be at least 1`);
  if (featDim < 1) problems.push(`${file} feature dimension must be positive`);
  if (problems.length > 0) throw new PackError(problems.join("; "));
  return Object.freeze({
    modelPath: pack.path(file),
    tokens: Object.freeze(tokens),
    blankId: tokens.length - 1,
    featDim,
    normalize: normalizeType === "per_feature" ? "per_feature" : "none",
    subsamplingFactor: subsampling,
    modelType: meta.stringOr("model_type", "EncDecCTCModel"),
  });
}
