/**
 * Whisper's vocabulary as sherpa-onnx writes it (`<p>-tokens.txt`): one `<base64 bytes> <id>` per
 * line, the byte-level BPE pieces of tiktoken. A piece is a run of bytes, not of characters: an
 * Arabic letter (two UTF-8 bytes) is often split across two pieces, so text is only decoded after
 * the bytes of all pieces are joined.
 */
import { PackError } from "../../models/errors.ts";
import { parseTokensTxt } from "../../models/tokens.ts";

/** Parses tokens.txt into id → bytes; throws {@link PackError} on a malformed line. */
export function parseWhisperTokens(text: string, label: string): Map<number, Uint8Array> {
  const table = new Map<number, Uint8Array>();
  for (const { symbol, id, line } of parseTokensTxt(text, { file: label, symbol: "base64" })) {
    const base64 = symbol.trim();
    if (!/^[A-Za-z0-9+/=]*$/.test(base64)) throw new PackError(`${label} line ${line} is not "<base64> <id>"`);
    table.set(id, new Uint8Array(Buffer.from(base64, "base64")));
  }
  if (table.size === 0) throw new PackError(`${label} is empty`);
  return table;
}

const utf8 = new TextDecoder("utf-8", { fatal: false });

/** Joins the bytes of `ids` (ids without bytes, i.e. special tokens, contribute none) and decodes UTF-8 once. */
export function detokenize(ids: readonly number[], table: ReadonlyMap<number, Uint8Array>): string {
  const pieces: Uint8Array[] = [];
  let length = 0;
  for (const id of ids) {
    const bytes = table.get(id);
    if (bytes === undefined) continue;
    pieces.push(bytes);
    length += bytes.length;
  }
  const joined = new Uint8Array(length);
  let offset = 0;
  for (const piece of pieces) {
    joined.set(piece, offset);
    offset += piece.length;
  }
  return utf8.decode(joined);
}
