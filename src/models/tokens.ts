/**
 * The one `tokens.txt` parser. sherpa-onnx packs (VITS voices, NeMo CTC recognisers, Whisper's
 * `<p>-tokens.txt`) list one `<symbol> <id>` per line; the symbol may itself be a space, so the
 * id is whatever follows the last space. Families turn the entries into what they need (an id
 * map, an id-indexed table, base64 byte pieces).
 */
import { PackError } from "./errors.ts";

/** One line of tokens.txt. */
export interface TokenEntry {
  readonly symbol: string;
  readonly id: number;
  /** 1-based line number, for error messages. */
  readonly line: number;
}

/** How error messages name the file and its symbols. */
export interface TokensFormat {
  /** Default `tokens.txt`. */
  readonly file?: string;
  /** What a symbol is, default `symbol` (Whisper: `base64`). */
  readonly symbol?: string;
}

/**
 * Parses `text` into entries in file order; blank lines and trailing whitespace are skipped.
 * Throws {@link PackError} naming the first malformed line.
 */
export function parseTokensTxt(text: string, format: TokensFormat = {}): TokenEntry[] {
  const entries: TokenEntry[] = [];
  text.split("\n").forEach((rawLine, index) => {
    const line = rawLine.replace(/\s+$/, "");
    if (line.trim() === "") return;
    const space = line.lastIndexOf(" ");
    const idText = line.slice(space + 1);
    if (space <= 0 || !/^\d+$/.test(idText)) {
      throw new PackError(
        `${format.file ?? "tokens.txt"} line ${index + 1} is not "<${format.symbol ?? "symbol"}> <id>"`,
      );
    }
    entries.push({ symbol: line.slice(0, space), id: Number(idText), line: index + 1 });
  });
  return entries;
}
