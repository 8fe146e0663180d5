/**
 * The tashkeel pack contract, as mush42/libtashkeel publishes it, read into a frozen
 * {@link TashkeelConfig}:
 * - `model.onnx`: `char_inputs` int64 [1, N] (+ `input_lengths` int64 [1]) → `output`, one class
 *   per character (uint8 or int64 [1, N]) or scores float32 [1, N, K] (argmax). Releases since
 *   2024 add `diac_inputs` int64 [1, N]: the marks already written, as hint ids. Older Keras
 *   exports took one float32 [1, 315] input; that shape still loads (the window is processed in turn).
 * - `input_id_map.json`: `{"<char>": id}`, `"_"` = 0 pads.
 * - `target_id_map.json`: `{"<marks>": id}` (`""` = no mark, `"_"` = padding). A map written the
 *   other way round (`{"<id>": "<marks>"}`) is read too.
 * - `hint_id_map.json` (with `diac_inputs` only): `{"<marks>": id}` for the hints.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { PackError } from "../../models/errors.ts";
import { readModelHeader, type OnnxModelInfo } from "../../models/header.ts";

/** Files of a tashkeel pack; `hintMap` only for graphs taking `diac_inputs`. */
export const TASHKEEL_FILES = {
  model: "model.onnx",
  inputMap: "input_id_map.json",
  targetMap: "target_id_map.json",
} as const;
/** The hint map of the three-input shape. */
export const HINT_MAP_FILE = "hint_id_map.json";

/** libtashkeel's limit on one run's characters; longer text runs in windows of this size. */
const CHAR_LIMIT = 12000;

/** The graph's inputs and output. */
export interface TashkeelGraph {
  readonly chars: string;
  readonly charType: "float32" | "int64";
  /** `input_lengths`, when the graph takes it. */
  readonly lengths: string | undefined;
  /** `diac_inputs`, when the graph takes the written marks as hints. */
  readonly hints: string | undefined;
  readonly output: string;
  /** Characters one run takes. */
  readonly window: number;
  /** True when the graph's length is fixed: every run is padded to {@link window}. */
  readonly padTo: boolean;
}

/** A validated tashkeel model. */
export interface TashkeelConfig {
  /** A path, or the model's bytes (the built-in model). */
  readonly model: string | Uint8Array;
  readonly inputIds: ReadonlyMap<string, number>;
  /** Class id → marks. */
  readonly targets: ReadonlyMap<number, string>;
  /** Marks → hint id (three-input shape only). */
  readonly hints: ReadonlyMap<string, number> | undefined;
  readonly graph: TashkeelGraph;
}

/** The JSON maps of a tashkeel model, as parsed objects. */
export interface TashkeelMapsJson {
  readonly inputMap: unknown;
  readonly targetMap: unknown;
  readonly hintMap?: unknown;
}

function readJson(path: string): unknown {
  try {
    return JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    throw new PackError(`${path} is not JSON: ${(error as Error).message}`);
  }
}

function objectOf(json: unknown, name: string): Record<string, unknown> {
  if (json === null || typeof json !== "object" || Array.isArray(json))
    throw new PackError(`${name} must be a JSON object`);
  return json as Record<string, unknown>;
}

const isId = (value: unknown): value is number => typeof value === "number" && Number.isInteger(value) && value >= 0;

/** `{"<key>": id}` with integer ids. */
function idMap(json: unknown, name: string): Map<string, number> {
  const map = new Map<string, number>();
  for (const [key, id] of Object.entries(objectOf(json, name))) {
    if (!isId(id)) throw new PackError(`${name}[${JSON.stringify(key)}] must be a non-negative integer`);
    map.set(key, id);
  }
  return map;
}

/** The target map as class id → marks, whichever way round it is written. */
function targetMap(json: unknown): Map<number, string> {
  const entries = Object.entries(objectOf(json, "target_id_map"));
  if (entries.length > 0 && entries.every(([key, marks]) => /^\d+$/.test(key) && typeof marks === "string")) {
    return new Map(entries.map(([id, marks]) => [Number(id), marks as string]));
  }
  const targets = new Map<number, string>();
  for (const [marks, id] of idMap(json, "target_id_map")) targets.set(id, marks === "_" ? "" : marks);
  return targets;
}

/** Reads the graph's inputs and output from its header; throws PackError naming what is wrong. */
export function tashkeelGraph(info: OnnxModelInfo, hasHintMap: boolean): TashkeelGraph {
  const named = (name: string) => info.inputs.find((input) => input.name === name);
  const chars = named("char_inputs") ?? info.inputs[0];
  const output = info.outputs.find((o) => o.name === "output") ?? info.outputs[0];
  if (!chars) throw new PackError("tashkeel model has no input");
  if (!output) throw new PackError("tashkeel model has no output");
  if (chars.elemType !== "float32" && chars.elemType !== "int64") {
    throw new PackError(
      `tashkeel input "${chars.name}" is ${chars.elemType}, expected int64 (or float32) character ids`,
    );
  }
  const lengths = named("input_lengths")?.name;
  const hints = named("diac_inputs")?.name;
  const known = new Set([chars.name, lengths, hints]);
  const unknown = info.inputs.filter((input) => !known.has(input.name)).map((input) => input.name);
  if (unknown.length > 0)
    throw new PackError(
      `tashkeel model takes unknown input(s) ${unknown.join(", ")}; expected char_inputs, input_lengths, diac_inputs`,
    );
  if (hints !== undefined && !hasHintMap)
    throw new PackError(`tashkeel model takes diac_inputs but the pack has no ${HINT_MAP_FILE}`);
  const fixed = chars.dims?.[1];
  const padTo = typeof fixed === "number" && fixed > 0;
  return {
    chars: chars.name,
    charType: chars.elemType,
    lengths,
    hints,
    output: output.name,
    window: padTo ? fixed : CHAR_LIMIT,
    padTo,
  };
}

/** Validates a model and its parsed maps into a frozen config; throws {@link PackError}. */
export function tashkeelConfig(
  model: string | Uint8Array,
  info: OnnxModelInfo,
  maps: TashkeelMapsJson,
): TashkeelConfig {
  const inputIds = idMap(maps.inputMap, "input_id_map");
  const targets = targetMap(maps.targetMap);
  const hints = maps.hintMap === undefined ? undefined : idMap(maps.hintMap, "hint_id_map");
  const graph = tashkeelGraph(info, hints !== undefined);
  return Object.freeze({ model, inputIds, targets, hints: graph.hints ? hints : undefined, graph });
}

/** Reads and validates the pack in `dir`; throws {@link PackError}. */
export function readTashkeelConfig(dir: string): TashkeelConfig {
  const modelPath = join(dir, TASHKEEL_FILES.model);
  const hintPath = join(dir, HINT_MAP_FILE);
  const hintMap = existsSync(hintPath) ? readJson(hintPath) : undefined;
  return tashkeelConfig(modelPath, readModelHeader(modelPath), {
    inputMap: readJson(join(dir, TASHKEEL_FILES.inputMap)),
    targetMap: readJson(join(dir, TASHKEEL_FILES.targetMap)),
    hintMap,
  });
}
