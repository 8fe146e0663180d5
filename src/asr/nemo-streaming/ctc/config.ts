/**
 * Streaming NeMo CTC packs (sherpa-onnx's online NeMo CTC layout): `model.onnx` (or
 * `model.int8.onnx`), a cache-aware encoder with the CTC head, and `tokens.txt` with `<blk>`.
 * The encoder contract is in ../encoder.ts; the model's first output is log-probabilities
 * [1, T', vocab_size + 1].
 */
import { PackError } from "../../../models/errors.ts";
import type { PackFiles } from "../../../models/pack.ts";
import { parseCtcTokens } from "../../ctc/config.ts";
import { isStreamingEncoder, readStreamingMeta, type StreamingMeta } from "../encoder.ts";

/** A validated streaming CTC pack. */
export interface StreamingCtcConfig {
  readonly modelPath: string;
  readonly tokens: readonly string[];
  readonly blankId: number;
  readonly meta: StreamingMeta;
}

function modelFile(pack: PackFiles): string | undefined {
  return ["model.onnx", "model.int8.onnx"].find((f) => pack.has(f));
}

/** Whether the folder is a streaming CTC pack: model + tokens.txt and NeMo's cache inputs. */
export function claimsStreamingCtc(pack: PackFiles): boolean {
  const file = modelFile(pack);
  return file !== undefined && pack.has("tokens.txt") && isStreamingEncoder(pack.tryHeader(file));
}

/** Validates a claimed pack; throws {@link PackError} with every reason it is unusable. */
export function configureStreamingCtc(pack: PackFiles): StreamingCtcConfig {
  const file = modelFile(pack)!;
  const problems: string[] = [];
  const meta = readStreamingMeta(pack.header(file), file, problems);
  const tokens = parseCtcTokens(pack.text("tokens.txt"));
  const blankId = tokens.indexOf("<blk>");
  if (blankId < 0) problems.push("tokens.txt has no <blk>");
  if (tokens.length !== meta.vocabSize + 1)
    problems.push(`tokens.txt lists ${tokens.length} tokens but vocab_size is ${meta.vocabSize} (+ blank)`);
  if (problems.length > 0) throw new PackError(problems.join("; "));
  return Object.freeze({ modelPath: pack.path(file), tokens: Object.freeze(tokens), blankId, meta });
}
