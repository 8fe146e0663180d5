/**
 * Tashkeel (Arabic diacritisation) before phonemisation, as Piper does for `espeak.voice = ar`
 * with libtashkeel: espeak reads undiacritised Arabic poorly, so a small model restores the
 * harakat first.
 *
 * Pack contract (`models/tashkeel/`):
 * - `model.onnx`: first input the character ids, float32 or int64 [1, L] (L fixed, e.g.
 *   libtashkeel's 315, or dynamic); first output either probabilities float32 [1, L, K] (argmax
 *   per character) or target ids int64 [1, L].
 * - `input_id_map.json`: `{"<char>": id}`; id 0 pads, id 1 stands for an unknown character.
 * - `target_id_map.json`: `{"<id>": "<harakat>"}`; ids absent or mapped to "" add nothing.
 * Existing harakat are stripped first (the model predicts them afresh); text longer than L is
 * processed in windows of L characters.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Tensor } from "onnxruntime-node";
import { PackError } from "../../models/errors.ts";
import { readModelHeader } from "../../models/header.ts";
import { loadOrt } from "../../runtime/ort.ts";
import { createSession, type CreatedSession } from "../../runtime/sessions.ts";

/** Files of a tashkeel pack. */
export const TASHKEEL_FILES = { model: "model.onnx", inputMap: "input_id_map.json", targetMap: "target_id_map.json" } as const;

const PAD_ID = 0;
const UNKNOWN_ID = 1;
/** Fathatan … sukun: the marks the model predicts. */
const HARAKAT = /[\u064B-\u0652]/gu;

/** A loaded diacritiser. */
export interface Tashkeel {
  /** Adds harakat to Arabic text. */
  diacritize(text: string): Promise<string>;
  release(): Promise<void>;
}

function readMap(path: string): Record<string, unknown> {
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    throw new PackError(`${path} is not JSON: ${(error as Error).message}`);
  }
  if (json === null || typeof json !== "object" || Array.isArray(json)) throw new PackError(`${path} must be a JSON object`);
  return json as Record<string, unknown>;
}

/** Loads and validates a tashkeel pack; throws {@link PackError}. */
export async function loadTashkeel(dir: string): Promise<Tashkeel> {
  const inputIds = new Map<string, number>();
  for (const [char, id] of Object.entries(readMap(join(dir, TASHKEEL_FILES.inputMap)))) {
    if (typeof id !== "number" || !Number.isInteger(id) || id < 0) throw new PackError(`input_id_map[${JSON.stringify(char)}] must be a non-negative integer`);
    inputIds.set(char, id);
  }
  const targets = new Map<number, string>();
  for (const [id, marks] of Object.entries(readMap(join(dir, TASHKEEL_FILES.targetMap)))) {
    if (!/^\d+$/.test(id) || typeof marks !== "string") throw new PackError(`target_id_map entry ${JSON.stringify(id)} must map an integer id to a string`);
    targets.set(Number(id), marks);
  }
  const modelPath = join(dir, TASHKEEL_FILES.model);
  const info = readModelHeader(modelPath);
  const input = info.inputs[0];
  const output = info.outputs[0];
  if (!input || info.inputs.length !== 1) throw new PackError("tashkeel model must take exactly one input (character ids)");
  if (!output) throw new PackError("tashkeel model has no output");
  if (input.elemType !== "float32" && input.elemType !== "int64") throw new PackError(`tashkeel input "${input.name}" is ${input.elemType}, expected float32 or int64 ids`);
  const fixed = input.dims?.[1];
  const window = typeof fixed === "number" && fixed > 0 ? fixed : 400;
  const created = await createSession(modelPath);
  const ort = await loadOrt();
  return new OnnxTashkeel(created.session, ort, { input: input.name, inputType: input.elemType, output: output.name, window, padTo: typeof fixed === "number" }, inputIds, targets);
}

interface Shape {
  readonly input: string;
  readonly inputType: "float32" | "int64";
  readonly output: string;
  readonly window: number;
  readonly padTo: boolean;
}

class OnnxTashkeel implements Tashkeel {
  constructor(
    private readonly session: CreatedSession["session"],
    private readonly ort: typeof import("onnxruntime-node"),
    private readonly shape: Shape,
    private readonly inputIds: ReadonlyMap<string, number>,
    private readonly targets: ReadonlyMap<number, string>,
  ) {}

  async diacritize(text: string): Promise<string> {
    const chars = Array.from(text.replace(HARAKAT, ""));
    let out = "";
    for (let from = 0; from < chars.length; from += this.shape.window) {
      const piece = chars.slice(from, from + this.shape.window);
      const marks = await this.predict(piece);
      piece.forEach((char, i) => (out += char + (marks[i] ?? "")));
    }
    return out;
  }

  private async predict(chars: readonly string[]): Promise<string[]> {
    const length = this.shape.padTo ? this.shape.window : chars.length;
    const ids = new Array<number>(length).fill(PAD_ID);
    chars.forEach((char, i) => (ids[i] = this.inputIds.get(char) ?? UNKNOWN_ID));
    const data = this.shape.inputType === "float32" ? Float32Array.from(ids) : BigInt64Array.from(ids, BigInt);
    const feeds = { [this.shape.input]: new this.ort.Tensor(this.shape.inputType, data, [1, length]) };
    const result = ((await this.session.run(feeds)) as Record<string, Tensor | undefined>)[this.shape.output];
    if (!result) throw new Error("tashkeel model returned no output");
    const dims = result.dims.map(Number);
    const predicted: number[] = [];
    if (result.data instanceof Float32Array && dims.length === 3) {
      const classes = dims[2]!;
      for (let i = 0; i < Math.min(chars.length, dims[1]!); i++) {
        let best = 0;
        for (let k = 1; k < classes; k++) if (result.data[i * classes + k]! > result.data[i * classes + best]!) best = k;
        predicted.push(best);
      }
    } else if (result.data instanceof BigInt64Array) {
      for (let i = 0; i < Math.min(chars.length, result.data.length); i++) predicted.push(Number(result.data[i]));
    } else throw new Error(`tashkeel output has an unsupported shape [${dims.join(", ")}]`);
    return predicted.map((id) => (id === UNKNOWN_ID ? "" : (this.targets.get(id) ?? "")));
  }

  release(): Promise<void> {
    return this.session.release();
  }
}
