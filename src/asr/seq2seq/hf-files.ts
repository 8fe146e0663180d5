/**
 * File names of the Hugging Face ONNX layout (Optimum's export and onnx-community's uploads for
 * transformers.js): models at the top of the folder or under `onnx/`, each in the precisions the
 * publisher converted (`<name>.onnx` fp32, `<name>_quantized.onnx` / `_int8` / `_uint8` 8-bit,
 * `_fp16`, `_q4`, `_q4f16`, `_bnb4`). Sawt takes the first present in that order: full precision
 * when published, else the 8-bit files onnxruntime runs fastest on CPU.
 */
import type { PackFiles } from "../../models/pack.ts";

/** Precision suffixes in the order Sawt prefers them. */
export const HF_VARIANTS = ["", "_quantized", "_int8", "_uint8", "_fp16", "_q4", "_q4f16", "_bnb4"] as const;

/** Folders a layout keeps its models in. */
const FOLDERS = ["", "onnx/"] as const;

/** The preferred file of model `name` (e.g. `encoder_model`), or undefined when none is present. */
export function hfModelFile(pack: PackFiles, name: string): string | undefined {
  for (const folder of FOLDERS)
    for (const variant of HF_VARIANTS) {
      const file = `${folder}${name}${variant}.onnx`;
      if (pack.has(file)) return file;
    }
  return undefined;
}

/** Seq2seq decoder files: a merged decoder, else the decoder + with-past pair (same precision when published). */
export type HfDecoderFiles =
  | { readonly kind: "merged"; readonly merged: string }
  | { readonly kind: "split"; readonly first: string; readonly withPast: string };

/** The decoder files of a seq2seq pack, or undefined when it has none. */
export function hfDecoderFiles(pack: PackFiles): HfDecoderFiles | undefined {
  const merged = hfModelFile(pack, "decoder_model_merged");
  if (merged !== undefined) return { kind: "merged", merged };
  for (const folder of FOLDERS)
    for (const variant of HF_VARIANTS) {
      const first = `${folder}decoder_model${variant}.onnx`;
      const withPast = `${folder}decoder_with_past_model${variant}.onnx`;
      if (pack.has(first) && pack.has(withPast)) return { kind: "split", first, withPast };
    }
  return undefined;
}

/** A JSON file of the pack as an object, null when absent; throws PackError-worded text via `fail`. */
export function hfJson(pack: PackFiles, file: string): Record<string, unknown> | null {
  if (!pack.has(file)) return null;
  try {
    const value = JSON.parse(pack.text(file)) as unknown;
    return value !== null && typeof value === "object" && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}
