/**
 * Moonshine's `tokenizer.json`, rebuilt from the Llama vocabulary of `llama-tokenizer-js` (MIT).
 *
 * Why: Moonshine's npm package (`@moonshine-ai/moonshine-js`, the registry's copy of the model)
 * ships no tokenizer, but Moonshine's first 32,000 ids are Llama's, and `llama-tokenizer-js`
 * carries that vocabulary inside its one source file (base64 of the pieces, one per line, the
 * line number being the id). This is the one builder of that file: the test set-up makes the
 * Moonshine fixture with it, and the built-in recogniser (issue #32) will make its tokenizer the
 * same way. The output keeps what a decoder needs of the Hugging Face format — `model.vocab`
 * (piece → id, `▁` = space, `<0xNN>` byte pieces), `added_tokens`, `decoder` — and is byte for
 * byte the file checked in {@link MOONSHINE_TOKENIZER_SHA256}.
 */

/** Where the vocabulary comes from: one file of one pinned npm package version, by SHA-256. */
export const LLAMA_TOKENIZER_JS = {
  package: "llama-tokenizer-js",
  version: "1.2.2",
  file: "llama-tokenizer.js",
  sha256: "34a7b9f7579d40486444590c37cba6564ef40c3dd98ecdfc2f7c886ae72c898d",
} as const;

/** SHA-256 of the tokenizer.json {@link buildMoonshineTokenizer} makes from that file. */
export const MOONSHINE_TOKENIZER_SHA256 = "0738e7c6b0d8e2f59fd7f07a913446f4c30ed634ea3960e3b7cde711cd8cecac";

/** How many pieces the Llama vocabulary has (Moonshine's ids 0…31999). */
const LLAMA_PIECES = 32_000;

/** The vocabulary literal in llama-tokenizer.js. */
const VOCAB_LITERAL = /const llama_vocab_base64 = "([A-Za-z0-9+/=]+)"/;

/** Thrown when the source file is not the llama-tokenizer-js this builder knows. */
export class TokenizerSourceError extends Error {
  override name = "TokenizerSourceError";
}

/** The Llama pieces by id, read from the text of llama-tokenizer-js's `llama-tokenizer.js`. */
export function llamaPieces(source: string): string[] {
  const literal = VOCAB_LITERAL.exec(source)?.[1];
  if (literal === undefined) throw new TokenizerSourceError("llama-tokenizer.js holds no llama_vocab_base64 literal");
  const pieces = new TextDecoder("utf-8", { fatal: true }).decode(Buffer.from(literal, "base64")).split("\n");
  if (pieces.length !== LLAMA_PIECES || pieces[1] !== "<s>" || pieces[2] !== "</s>")
    throw new TokenizerSourceError(`llama-tokenizer.js lists ${pieces.length} pieces, not Llama's ${LLAMA_PIECES}`);
  return pieces;
}

/**
 * Moonshine's tokenizer.json text from the text of `llama-tokenizer.js`. The vocabulary object is
 * filled in id order and serialised by JSON.stringify, whose key order (integer-like pieces such
 * as "0"…"9" first) is part of the pinned checksum.
 */
export function buildMoonshineTokenizer(source: string): string {
  // A prototype-less object: a piece named "__proto__" would otherwise not become a key.
  const vocab: Record<string, number> = Object.create(null);
  llamaPieces(source).forEach((piece, id) => {
    vocab[piece] = id;
  });
  const special = (id: number, content: string) => ({ id, content, special: true });
  return JSON.stringify({
    version: "1.0",
    added_tokens: [special(0, "<unk>"), special(1, "<s>"), special(2, "</s>")],
    normalizer: null,
    pre_tokenizer: null,
    post_processor: null,
    decoder: {
      type: "Sequence",
      decoders: [
        { type: "Replace", pattern: { String: "▁" }, content: " " },
        { type: "ByteFallback" },
        { type: "Fuse" },
        { type: "Strip", content: " ", start: 1, stop: 0 },
      ],
    },
    model: {
      type: "BPE",
      dropout: null,
      unk_token: "<unk>",
      continuing_subword_prefix: null,
      end_of_word_suffix: null,
      fuse_unk: true,
      byte_fallback: true,
      vocab,
      merges: [],
    },
  });
}
