/**
 * The one `tokens.txt` parser. sherpa-onnx packs (VITS voices, NeMo CTC recognisers) list one
 * `<symbol> <id>` per line; the symbol may itself be a space, so the id is whatever follows the
 * last space. Families turn the entries into what they need (an id map, an id-indexed table).
 */
import { PackError } from "./errors.ts";

/** One line of tokens.txt. */
export interface TokenEntry {
  readonly symbol: string;
  readonly id: number;
  /** 1-based line number, for error messages. */
  readonly line: number;
}

/**
 * Parses `text` into entries in file order; blank lines are skipped. Throws {@link PackError}
 * naming the first malformed line.
 */
export function parseTokensTxt(text: string): TokenEntry[] {
  const entries: TokenEntry[] = [];
  text.split("\n").forEach((rawLine, index) => {
    const line = rawLine.replace(/\r$/, "");
    if (line.trim() === "") return;
    const space = line.lastIndexOf(" ");
    const id = Number(line.slice(space + 1));
    if (space <= 0 || !Number.isInteger(id) || id < 0) throw new PackError(`tokens.txt line ${index + 1} is not "<symbol> <id>"`);
    entries.push({ symbol: line.slice(0, space), id, line: index + 1 });
  });
  return entries;
}
