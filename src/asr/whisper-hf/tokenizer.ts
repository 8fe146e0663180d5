/**
 * Whisper's `tokenizer.json` as Hugging Face tokenizers writes it: a byte-level BPE (GPT-2's
 * scheme) whose `model.vocab` keys spell each token's bytes with one printable character per byte
 * (GPT-2's bytes_to_unicode: printable Latin-1 bytes stand for themselves, the other 68 bytes for
 * U+0100 onwards, in byte order), and `added_tokens` for the special tokens (`<|endoftext|>`,
 * `<|ar|>`, `<|transcribe|>`, `<|0.00|>` …). Read into the same id → bytes table the sherpa-onnx
 * layout's tokens.txt gives (../whisper/tokens.ts), so decoding is shared.
 */
import { PackError } from "../../models/errors.ts";
import { readTokenizerJson } from "../seq2seq/tokenizer-json.ts";

/** The byte each vocabulary character stands for (the inverse of GPT-2's bytes_to_unicode). */
function byteOfChar(): Map<string, number> {
  const printable = (b: number) => (b >= 0x21 && b <= 0x7e) || (b >= 0xa1 && b <= 0xac) || (b >= 0xae && b <= 0xff);
  const map = new Map<string, number>();
  let next = 0;
  for (let b = 0; b < 256; b++) map.set(String.fromCodePoint(printable(b) ? b : 256 + next++), b);
  return map;
}

const BYTES = byteOfChar();
const CHARS = new Map([...BYTES].map(([char, byte]) => [byte, char] as const));

/** The vocabulary character of each byte (GPT-2's bytes_to_unicode), for building vocabularies. */
export function byteLevelPiece(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => CHARS.get(b)!).join("");
}

/** A parsed Whisper tokenizer.json. */
export interface WhisperTokenizer {
  /** Bytes of every ordinary token, by id. */
  readonly tokenBytes: ReadonlyMap<number, Uint8Array>;
  /** Special tokens by content (`<|ar|>` → id). */
  readonly special: ReadonlyMap<string, number>;
}

/** Parses tokenizer.json text; throws {@link PackError} when it is not a byte-level BPE vocabulary. */
export function parseWhisperTokenizer(text: string): WhisperTokenizer {
  const file = readTokenizerJson(text, "BPE");
  const special = new Map<string, number>();
  for (const added of file.added) special.set(added.content, added.id);
  const specialIds = new Set(special.values());
  const tokenBytes = new Map<number, Uint8Array>();
  for (const [piece, id] of file.vocab) {
    if (specialIds.has(id)) continue;
    const bytes: number[] = [];
    for (const char of piece) {
      const byte = BYTES.get(char);
      if (byte === undefined) throw new PackError(`tokenizer.json piece ${piece} is not byte-level`);
      bytes.push(byte);
    }
    tokenBytes.set(id, Uint8Array.from(bytes));
  }
  if (tokenBytes.size === 0) throw new PackError("tokenizer.json has an empty vocabulary");
  return { tokenBytes, special };
}
