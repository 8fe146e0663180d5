/**
 * A constructed tashkeel pack in libtashkeel's current (three-input) shape, as its publisher's
 * code feeds it (mush42/libtashkeel crates/core): `char_inputs` int64 [1, N], `diac_inputs` int64
 * [1, N] (the written marks as `hint_id_map.json` ids), `input_lengths` int64 [1] → `output`
 * uint8 [1, N] class ids and a float score tensor [1, N, 15]; with the published id maps.
 *
 * Its "prediction" is a fixed table of classes by position (a test passes the classes of the
 * README's reference sentence), except that a character whose NEXT character carries a hint gets
 * that hint's class: so a test sees from the text alone that hints reach the model, at the right
 * positions, with the right ids.
 */
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { ROOT } from "../sawt.ts";
import { GraphBuilder } from "../onnx/builder.ts";

/** The published maps (as Sawt ships them, src/tts/tashkeel/builtin/; hint_id_map.json of libtashkeel's current release below). */
const REAL = join(ROOT, "src", "tts", "tashkeel", "builtin");
/** libtashkeel's hint_id_map.json: the target map plus a lone shadda. */
export const HINT_ID_MAP: Readonly<Record<string, number>> = {
  _: 0,
  "": 1,
  "\u064B": 2,
  "\u064C": 3,
  "\u064D": 4,
  "\u064E": 5,
  "\u064F": 6,
  "\u0650": 7,
  "\u0651\u064B": 8,
  "\u0651\u064C": 9,
  "\u0651\u064D": 10,
  "\u0651\u064E": 11,
  "\u0651\u064F": 12,
  "\u0651\u0650": 13,
  "\u0652": 14,
  "\u0651": 15,
};
const TABLE_LENGTH = 1024;

/** The model bytes: `classes` by position (padded with 1, "no mark"), overridden by the next character's hint. */
export function buildHintedTashkeelModel(classes: readonly number[]): Uint8Array {
  const g = new GraphBuilder("tashkeel-hints");
  const chars = g.input("char_inputs", "int64", [1, "n"]);
  const hints = g.input("diac_inputs", "int64", [1, "n"]);
  g.input("input_lengths", "int64", [1]);
  const table = g.int64([...classes, ...new Array(TABLE_LENGTH - classes.length).fill(1)], [1, TABLE_LENGTH]);
  const n = g.op("Slice", [g.op("Shape", [chars]), g.int64([1]), g.int64([2])]);
  const byPosition = g.op("Slice", [table, g.int64([0]), n, g.int64([1])]);
  const next = g.op(
    "Concat",
    [g.op("Slice", [hints, g.int64([1]), g.int64([1 << 30]), g.int64([1])]), g.int64([1], [1, 1])],
    { axis: 1 },
  );
  const classIds = g.op("Where", [g.op("Greater", [next, g.int64(1)]), next, byPosition]);
  g.output(g.op("Cast", [classIds], { to: 2 }), "output", "uint8", [1, "n"]);
  g.output(g.op("OneHot", [classIds, g.int64(15), g.float([0, 1])], { axis: -1 }), "scores", "float32", [1, "n", 15]);
  return g.toModel({ producerName: "sawt-test-tashkeel-hints" });
}

/** Writes `dir` as a three-input pack with the published input/target maps and hint map. */
export async function writeHintedTashkeelPack(dir: string, classes: readonly number[]): Promise<void> {
  await mkdir(dir, { recursive: true });
  await Bun.write(join(dir, "model.onnx"), buildHintedTashkeelModel(classes));
  await Bun.write(join(dir, "input_id_map.json"), Bun.file(join(REAL, "input_id_map.json")));
  await Bun.write(join(dir, "target_id_map.json"), Bun.file(join(REAL, "target_id_map.json")));
  await Bun.write(join(dir, "hint_id_map.json"), JSON.stringify(HINT_ID_MAP));
}

/** Copies the real published pack (2024 shape) into `dir`. */
export async function writeRealTashkeelPack(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true });
  for (const file of ["model.onnx", "input_id_map.json", "target_id_map.json"])
    await Bun.write(join(dir, file), Bun.file(join(REAL, file)));
}

/**
 * The class ids a diacritised text stands for under the published target map, one per character
 * the model sees (letters and punctuation of its input map): what libtashkeel would have output.
 */
export async function classesOf(diacritised: string): Promise<number[]> {
  const inputs = (await Bun.file(join(REAL, "input_id_map.json")).json()) as Record<string, number>;
  const targets = (await Bun.file(join(REAL, "target_id_map.json")).json()) as Record<string, number>;
  const classes: number[] = [];
  const chars = Array.from(diacritised);
  for (let i = 0; i < chars.length; i++) {
    if (/[\u064B-\u0652]/u.test(chars[i]!) || !(chars[i]! in inputs)) continue;
    let marks = "";
    while (i + 1 < chars.length && /[\u064B-\u0652]/u.test(chars[i + 1]!)) marks += chars[++i];
    // The map writes shadda first; the reference text is in canonical order (vowel first).
    const shaddaFirst = marks.includes("\u0651") ? "\u0651" + marks.replace("\u0651", "") : marks;
    const id = targets[marks] ?? targets[shaddaFirst];
    if (id === undefined) throw new Error(`no target class for marks ${JSON.stringify(marks)}`);
    classes.push(id);
  }
  return classes;
}
