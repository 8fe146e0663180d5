/**
 * The tashkeel pack contract (`models/tashkeel/`), read into a frozen {@link TashkeelConfig}:
 * - `model.onnx`: first input the character ids, float32 or int64 [1, L] (L fixed, e.g.
 *   libtashkeel's 315, or dynamic); first output either probabilities float32 [1, L, K] (argmax
 *   per character) or target ids int64 [1, L].
 * - `input_id_map.json`: `{"<char>": id}`; id 0 pads, id 1 stands for an unknown character.
 * - `target_id_map.json`: `{"<id>": "<harakat>"}`; ids absent or mapped to "" add nothing.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { PackError } from "../../models/errors.ts";
import { readModelHeader } from "../../models/header.ts";

/** Files of a tashkeel pack. */
export const TASHKEEL_FILES = { model: "model.onnx", inputMap: "input_id_map.json", targetMap: "target_id_map.json" } as const;

/** The graph's ids input and output, and the window of characters one run takes. */
export interface TashkeelShape {
  readonly input: string;
  readonly inputType: "float32" | "int64";
  readonly output: string;
  readonly window: number;
  readonly padTo: boolean;
}

/** A validated tashkeel pack. */
export interface TashkeelConfig {
  readonly modelPath: string;
  readonly inputIds: ReadonlyMap<string, number>;
  readonly targets: ReadonlyMap<number, string>;
  readonly shape: TashkeelShape;
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

/** Reads and validates the maps and the graph of the pack in `dir`; throws {@link PackError}. */
export function readTashkeelConfig(dir: string): TashkeelConfig {
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
  const shape = { input: input.name, inputType: input.elemType, output: output.name, window, padTo: typeof fixed === "number" } as const;
  return Object.freeze({ modelPath, inputIds, targets, shape });
}
