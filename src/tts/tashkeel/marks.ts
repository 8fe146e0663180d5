/**
 * libtashkeel's text contract, without the model: which characters the model sees (letters of
 * its input map, digits as `#`), which marks the author already wrote on each of them, and how
 * the model's per-character classes are written back. Marks the author wrote always win (D22):
 * the model fills only unmarked letters, whether or not its graph takes the marks as hints.
 */
import { isHaraka, SHADDA } from "../../text/arabic/marks.ts";

const DIGIT = /^[0-9\u0660-\u0669]$/u;
/** libtashkeel feeds every digit as this symbol (the model learnt how numbers affect endings). */
const NUMERAL_SYMBOL = "#";

/** One character of the text and what the author wrote on it. */
export interface WrittenChar {
  readonly char: string;
  /** Marks written after it, in order ("" when none). */
  readonly marks: string;
  /** The symbol fed to the model, or undefined when the model does not see this character. */
  readonly modelSymbol: string | undefined;
}

/**
 * Splits `text` into characters with the marks written on each. Marks before the first
 * character (nothing to sit on) are dropped, as libtashkeel drops them.
 */
export function readWritten(text: string, inputIds: ReadonlyMap<string, number>): WrittenChar[] {
  const out: Array<{ char: string; marks: string; modelSymbol: string | undefined }> = [];
  for (const char of text) {
    // The eight harakat libtashkeel reads and writes (the text kit's table).
    if (isHaraka(char)) {
      const last = out[out.length - 1];
      if (last) last.marks += char;
      continue;
    }
    const modelSymbol = inputIds.has(char)
      ? char
      : DIGIT.test(char) && inputIds.has(NUMERAL_SYMBOL)
        ? NUMERAL_SYMBOL
        : undefined;
    out.push({ char, marks: "", modelSymbol });
  }
  return out;
}

/**
 * The hint a written mark run stands for under `hints` (libtashkeel's normalisation: the maps
 * write shadda before its vowel, while canonical (NFC/NFKC) text puts the vowel first, so both
 * orders name the same hint; a run the map does not know is no hint).
 */
export function hintFor(marks: string, hints: ReadonlyMap<string, number>): number {
  const none = hints.get("") ?? 0;
  if (marks === "") return none;
  const direct = hints.get(marks);
  if (direct !== undefined) return direct;
  if (marks.length === 2 && marks.includes(SHADDA))
    return hints.get(SHADDA + marks.replace(SHADDA, "")) ?? hints.get(marks.replace(SHADDA, "") + SHADDA) ?? none;
  return none;
}

/**
 * Writes the text back: each character, then the author's marks when it had any, else the
 * model's marks for it (`predicted` holds one entry per character the model saw, in order).
 */
export function writeBack(chars: readonly WrittenChar[], predicted: readonly string[]): string {
  let out = "";
  let next = 0;
  for (const { char, marks, modelSymbol } of chars) {
    const model = modelSymbol === undefined ? "" : (predicted[next++] ?? "");
    out += char + (marks !== "" ? marks : model);
  }
  return out;
}
