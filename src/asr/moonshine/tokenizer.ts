/**
 * Moonshine's `tokenizer.json` (Hugging Face tokenizers, a Llama-style BPE with byte fallback),
 * read only as far as decoding needs: `model.vocab` (piece → id), `added_tokens` (special ids),
 * and the decoder the file declares: `▁` → space, `<0xNN>` pieces are raw bytes (so a character
 * split over several byte tokens is rebuilt whole), the bytes are decoded as UTF-8 once, and one
 * leading space is stripped.
 */
import { PackError } from "../../models/errors.ts";
import { readTokenizerJson } from "../seq2seq/tokenizer-json.ts";

/** The decoding side of a tokenizer.json. */
export interface MoonshineVocabulary {
  /** Piece text by id (`undefined` for ids the file does not list). */
  readonly pieces: readonly (string | undefined)[];
  /** Ids of special tokens (`<s>`, `</s>`, `<unk>`, …): never part of the text. */
  readonly special: ReadonlySet<number>;
  readonly bos: number;
  readonly eos: number;
}

const BYTE_PIECE = /^<0x([0-9A-Fa-f]{2})>$/;

/** Parses tokenizer.json text; throws {@link PackError} when it is not a usable BPE vocabulary. */
export function parseMoonshineTokenizer(text: string): MoonshineVocabulary {
  const file = readTokenizerJson(text);
  const pieces: (string | undefined)[] = [];
  for (const [piece, id] of file.vocab) pieces[id] = piece;
  const special = new Set<number>();
  for (const added of file.added) {
    pieces[added.id] ??= added.content;
    if (added.special) special.add(added.id);
  }
  const idOf = (piece: string) => pieces.indexOf(piece);
  const bos = idOf("<s>");
  const eos = idOf("</s>");
  if (bos < 0 || eos < 0) throw new PackError("tokenizer.json lacks the <s> or </s> token");
  special.add(bos).add(eos);
  return { pieces, special, bos, eos };
}

/** The text of `ids`: pieces joined byte-exactly (byte fallback), decoded once, leading space stripped. */
export function decodeMoonshineTokens(ids: readonly number[], vocabulary: MoonshineVocabulary): string {
  const encoder = new TextEncoder();
  const bytes: number[] = [];
  for (const id of ids) {
    if (vocabulary.special.has(id)) continue;
    const piece = vocabulary.pieces[id];
    if (piece === undefined) continue;
    const byte = BYTE_PIECE.exec(piece);
    if (byte) bytes.push(Number.parseInt(byte[1]!, 16));
    else bytes.push(...encoder.encode(piece.replaceAll("▁", " ")));
  }
  const text = new TextDecoder("utf-8", { fatal: false }).decode(Uint8Array.from(bytes));
  return text.startsWith(" ") ? text.slice(1) : text;
}
