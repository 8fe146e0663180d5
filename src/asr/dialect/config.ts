/**
 * Dialect-identification packs: `model.onnx` (or `model.int8.onnx`) + `labels.txt`. Contract
 * (Sawt's own; no public export format exists): one float input taking 16 kHz log-mel filterbank
 * features as NeMo computes them, either per frame [1, feat_dim, T] or mean-pooled over time
 * [1, feat_dim]; the first output holds one logit per label ([1, n_labels] or [n_labels]).
 * labels.txt lists the labels in logit order, one per line (`<label>` or `<label> <index>`);
 * labels are dialect codes such as `ar-egyptian` (a bare `egyptian` is read as `ar-egyptian`).
 * Optional metadata: `feat_dim` (else the input's fixed dim, else 80), `normalize_type`
 * (per_feature, or empty/none; default none), `max_seconds` (audio looked at; default 30).
 */
import { DIALECTS } from "../../core/tts.ts";
import { PackError } from "../../models/errors.ts";
import { MetadataReader } from "../../models/header.ts";
import type { PackFiles } from "../../models/pack.ts";

/** A validated dialect-id pack. */
export interface DialectConfig {
  readonly modelPath: string;
  readonly inputName: string;
  readonly pooled: boolean;
  readonly featDim: number;
  readonly normalize: "per_feature" | "none";
  readonly maxSeconds: number;
  readonly outputName: string;
  readonly labels: readonly string[];
}

const MODEL_FILES = ["model.onnx", "model.int8.onnx"] as const;

/** Whether the folder is a dialect-id pack. */
export function claimsDialect(pack: PackFiles): boolean {
  return pack.has("labels.txt") && MODEL_FILES.some((f) => pack.has(f));
}

/** A label as Sawt reports it: spec dialect codes as is, bare dialect names prefixed `ar-`. */
export function dialectLabel(label: string): string {
  const lower = label.trim().toLowerCase();
  const prefixed = `ar-${lower}`;
  return (DIALECTS as readonly string[]).includes(prefixed) ? prefixed : label.trim();
}

/** Parses labels.txt. */
export function parseLabels(text: string): string[] {
  const labels: string[] = [];
  for (const [index, raw] of text.split("\n").entries()) {
    const line = raw.trim();
    if (line === "") continue;
    const match = /^(\S+)(?:\s+(\d+))?$/.exec(line);
    if (!match) throw new PackError(`labels.txt line ${index + 1} is not "<label> [index]"`);
    const at = match[2] === undefined ? labels.length : Number(match[2]);
    if (labels[at] !== undefined) throw new PackError(`labels.txt lists index ${at} twice`);
    labels[at] = dialectLabel(match[1]!);
  }
  if (labels.length === 0) throw new PackError("labels.txt is empty");
  for (let i = 0; i < labels.length; i++)
    if (labels[i] === undefined) throw new PackError(`labels.txt lacks index ${i}`);
  return labels;
}

/** Validates a claimed pack; throws {@link PackError} with the reason it is unusable. */
export function configureDialect(pack: PackFiles): DialectConfig {
  const file = MODEL_FILES.find((f) => pack.has(f))!;
  const info = pack.header(file);
  const problems: string[] = [];
  const floats = info.inputs.filter((i) => i.elemType === "float32");
  const input = floats[0];
  if (info.inputs.length !== 1 || input === undefined)
    problems.push(`${file} must take exactly one float input (features)`);
  const rank = input?.dims?.length;
  if (input !== undefined && rank !== 2 && rank !== 3)
    problems.push(`${file} input ${input.name} must be [1, feat_dim] or [1, feat_dim, T]`);
  const output = info.outputs[0];
  if (output === undefined) problems.push(`${file} has no output`);
  const meta = new MetadataReader(info.metadata, file);
  const declared = input?.dims?.[1];
  const featDim = meta.intOr("feat_dim", typeof declared === "number" ? declared : 80);
  const normalizeType = meta.stringOr("normalize_type", "").trim();
  const maxSeconds = meta.intOr("max_seconds", 30);
  problems.push(...meta.problems);
  const labels = parseLabels(pack.text("labels.txt"));
  const classes = output?.dims?.at(-1);
  if (typeof classes === "number" && classes !== labels.length)
    problems.push(`${file} gives ${classes} logits but labels.txt lists ${labels.length}`);
  if (problems.length > 0) throw new PackError(problems.join("; "));
  return Object.freeze({
    modelPath: pack.path(file),
    inputName: input!.name,
    pooled: rank === 2,
    featDim,
    normalize: normalizeType === "per_feature" ? "per_feature" : "none",
    maxSeconds: Math.max(1, maxSeconds),
    outputName: output!.name,
    labels: Object.freeze(labels),
  });
}
