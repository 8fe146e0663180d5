/**
 * A constructed tashkeel pack honouring libtashkeel's contract: float32 character ids [1, 315]
 * in, per-character probabilities [1, 315, K] out. Its "prediction" is arithmetic — target id
 * = 2 + (character id mod 3), one-hot — so a test knows exactly which haraka each letter gets.
 */
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { GraphBuilder } from "../support/onnx/builder.ts";

/** libtashkeel's fixed input length. */
export const TASHKEEL_LENGTH = 315;
/** Target id → harakat: fatha, damma, kasra. */
export const TASHKEEL_TARGETS: Readonly<Record<number, string>> = { 2: "\u064E", 3: "\u064F", 4: "\u0650" };
const CLASSES = 6;

/** Builds the model bytes. */
export function buildTashkeelModel(): Uint8Array {
  const g = new GraphBuilder("tashkeel");
  const ids = g.input("embedding_7_input", "float32", [1, TASHKEEL_LENGTH]);
  const target = g.op("Add", [g.op("Mod", [g.op("Cast", [ids], { to: 7 }), g.int64(3)]), g.int64(2)]);
  const probs = g.op("OneHot", [target, g.int64(CLASSES), g.float([0, 1])], { axis: -1 });
  g.output(probs, "dense_7", "float32", [1, TASHKEEL_LENGTH, CLASSES]);
  return g.toModel({ producerName: "sawt-test-tashkeel" });
}

/** The harakat the model gives `char` under `inputIds` (what a test expects after it). */
export function expectedHaraka(char: string, inputIds: Readonly<Record<string, number>>): string {
  const id = inputIds[char] ?? 1;
  return TASHKEEL_TARGETS[2 + (id % 3)] ?? "";
}

/** Writes `models/tashkeel/` with the model and its two id maps. */
export async function writeTashkeelPack(dir: string, inputIds: Readonly<Record<string, number>>): Promise<void> {
  await mkdir(dir, { recursive: true });
  await Bun.write(join(dir, "model.onnx"), buildTashkeelModel());
  await Bun.write(join(dir, "input_id_map.json"), JSON.stringify(inputIds));
  await Bun.write(join(dir, "target_id_map.json"), JSON.stringify({ 0: "", ...TASHKEEL_TARGETS }));
}
