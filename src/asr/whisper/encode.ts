/**
 * Text → Whisper token ids, for the `prompt` (previous-text context). Whisper's vocabulary is a
 * tiktoken byte-level BPE whose merge priority is the token's rank, and sherpa-onnx's tokens.txt
 * lists every token's bytes with its rank as id, so the table the decoder detokenises with is all
 * an encoder needs: split the text with GPT-2's pre-tokenisation pattern (Whisper's), then merge
 * each piece's bytes pairwise, always the adjacent pair whose joined bytes have the lowest rank.
 */

/** GPT-2's pre-tokenisation (contractions, letters, numbers, other symbols, whitespace). */
const PIECES = /'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+/gu;

const key = (bytes: Uint8Array) => Buffer.from(bytes).toString("latin1");

/** A BPE encoder over a Whisper token table (id → bytes; special tokens have no bytes). */
export class WhisperEncoder {
  private readonly ranks = new Map<string, number>();

  constructor(table: ReadonlyMap<number, Uint8Array>) {
    for (const [id, bytes] of table)
      if (bytes.length > 0 && !this.ranks.has(key(bytes))) this.ranks.set(key(bytes), id);
  }

  /** Token ids of `text`; bytes the table cannot spell are dropped. */
  encode(text: string): number[] {
    const ids: number[] = [];
    for (const match of text.matchAll(PIECES)) ids.push(...this.encodePiece(new TextEncoder().encode(match[0])));
    return ids;
  }

  private encodePiece(bytes: Uint8Array): number[] {
    const whole = this.ranks.get(key(bytes));
    if (whole !== undefined) return [whole];
    let parts = Array.from(bytes, (b) => String.fromCharCode(b));
    while (parts.length > 1) {
      let best = -1;
      let bestRank = Infinity;
      for (let i = 0; i + 1 < parts.length; i++) {
        const rank = this.ranks.get(parts[i]! + parts[i + 1]!);
        if (rank !== undefined && rank < bestRank) [best, bestRank] = [i, rank];
      }
      if (best < 0) break;
      parts = [...parts.slice(0, best), parts[best]! + parts[best + 1]!, ...parts.slice(best + 2)];
    }
    return parts.map((part) => this.ranks.get(part)).filter((id): id is number => id !== undefined);
  }
}

/**
 * The decoder prompt with previous-text context, as Whisper's reference decoder lays it out:
 * `<|startofprev|>`, the last `n_text_ctx / 2 − 1` tokens of " " + prompt, then the task prompt.
 * Without a `sot_prev` token in the model or without text, the task prompt alone.
 */
export function promptWithContext(
  taskPrompt: readonly number[],
  context: readonly number[],
  sotPrev: number | null,
  nTextCtx: number,
): number[] {
  if (sotPrev === null || context.length === 0) return [...taskPrompt];
  const keep = Math.max(0, Math.floor(nTextCtx / 2) - 1);
  return [sotPrev, ...context.slice(-keep), ...taskPrompt];
}
