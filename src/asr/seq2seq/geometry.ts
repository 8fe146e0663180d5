/**
 * Cache geometry of a Hugging Face seq2seq decoder (./kv-decoder.ts), read from its declared
 * `past_key_values.<i>.decoder.key` inputs: the number of them is the layer count, their dims
 * [batch, heads, past_len, head_dim] give heads and head size.
 */
import { missingIo, type OnnxModelInfo } from "../../models/header.ts";
import type { CacheGeometry } from "./kv-decoder.ts";

/** The geometry of a decoder that takes past caches; every problem is pushed onto `problems`. */
export function cacheGeometry(
  info: OnnxModelInfo,
  file: string,
  requiredInputs: readonly string[],
  problems: string[],
): CacheGeometry {
  const layers = info.inputs.filter((i) => /^past_key_values\.\d+\.decoder\.key$/.test(i.name)).length;
  const dims = info.inputs.find((i) => i.name === "past_key_values.0.decoder.key")?.dims;
  const heads = dims?.[1];
  const headDim = dims?.[3];
  if (layers === 0) problems.push(`${file} lacks input past_key_values.0.decoder.key`);
  problems.push(...missingIo(info, ["input_ids", ...requiredInputs], ["logits", "present.0.decoder.key"], file));
  if (typeof heads !== "number" || typeof headDim !== "number") {
    if (layers > 0) problems.push(`${file} does not declare the cache's heads and head size`);
    return { layers, heads: 0, headDim: 0 };
  }
  return { layers, heads, headDim };
}

/** The names a model declares as inputs. */
export function declaredInputs(info: OnnxModelInfo): ReadonlySet<string> {
  return new Set(info.inputs.map((i) => i.name));
}
