/**
 * Hugging Face `tokenizer.json` (the tokenizers library's serialisation), read as far as the
 * seq2seq recognisers need it: `model.type`, `model.vocab` (piece → id) and `added_tokens`. The
 * Whisper (../whisper-hf/tokenizer.ts) and Moonshine (../moonshine/tokenizer.ts) readers build
 * their vocabularies from this.
 */
import { PackError } from "../../models/errors.ts";

/** Ids above this are refused (no real vocabulary comes near; a bad file would allocate them). */
const MAX_TOKEN_ID = 10_000_000;

/** One entry of `added_tokens`. */
export interface AddedToken {
  readonly id: number;
  readonly content: string;
  /** False only when the file says so. */
  readonly special: boolean;
}

/** What a tokenizer.json holds for a recogniser. */
export interface TokenizerFile {
  readonly type: string | undefined;
  /** `model.vocab` entries, ids checked. */
  readonly vocab: ReadonlyArray<readonly [piece: string, id: number]>;
  /** `added_tokens` with a valid id. */
  readonly added: readonly AddedToken[];
}

interface TokenizerJson {
  readonly model?: { readonly type?: string; readonly vocab?: Record<string, number> };
  readonly added_tokens?: readonly { readonly id: number; readonly content: string; readonly special?: boolean }[];
}

/**
 * Parses tokenizer.json text; throws {@link PackError} when it is not JSON, has no `model.vocab`
 * (or not of `type` when one is required), or gives a piece a bad id.
 */
export function readTokenizerJson(text: string, type?: "BPE"): TokenizerFile {
  let json: TokenizerJson;
  try {
    json = JSON.parse(text) as TokenizerJson;
  } catch {
    throw new PackError("tokenizer.json is not valid JSON");
  }
  const vocab = json.model?.vocab;
  if (vocab === undefined || vocab === null || typeof vocab !== "object" || (type && json.model?.type !== type))
    throw new PackError(type ? `tokenizer.json has no ${type} model.vocab` : "tokenizer.json has no model.vocab");
  const entries = Object.entries(vocab);
  for (const [piece, id] of entries)
    if (!Number.isInteger(id) || id < 0 || id > MAX_TOKEN_ID)
      throw new PackError(`tokenizer.json gives ${piece} a bad id`);
  const added = (json.added_tokens ?? [])
    .filter((token) => Number.isInteger(token.id) && token.id >= 0 && token.id <= MAX_TOKEN_ID)
    .map((token) => ({ id: token.id, content: String(token.content), special: token.special !== false }));
  return { type: json.model?.type, vocab: entries, added };
}
