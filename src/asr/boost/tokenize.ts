/**
 * Phrases spelt in a recogniser's own vocabulary (its tokens.txt), so the context graph walks the
 * same ids the search emits. NeMo packs ship no SentencePiece model, only the pieces, so a word is
 * cut by longest match over the pieces (the way a unigram model cuts most words), with the word
 * mark `▁` as the vocabulary uses it:
 * - word pieces (`▁كل`, `ب`): each word is `▁` + the word, cut by longest match;
 * - a character vocabulary whose `▁` is a token of its own: words joined by `▁` (none before the
 *   first, so the phrase also matches at the start of an utterance, where no mark is emitted);
 * - characters without a mark: words joined by the space token if there is one.
 * A phrase the vocabulary cannot spell is left out for this recogniser (another may spell it).
 */
import { ContextGraph, type TokenPhrase } from "./context-graph.ts";
import type { Hotword } from "../../core/asr.ts";
import { WORD_MARK } from "../timed-tokens.ts";

/** How a vocabulary marks words, and its pieces by text. */
export class PhraseTokenizer {
  private readonly ids = new Map<string, number>();
  private readonly longest: number;
  private readonly wordPieces: boolean;
  private readonly graphs = new Map<string, ContextGraph>();

  /** `tokens[id]` is the piece of id (blank and control tokens are never matched: they hold `<…>`). */
  constructor(tokens: readonly string[]) {
    let longest = 1;
    let marked = 0;
    for (const [id, piece] of tokens.entries()) {
      if (piece === "" || /^<.*>$/.test(piece) || this.ids.has(piece)) continue;
      this.ids.set(piece, id);
      longest = Math.max(longest, [...piece].length);
      if (piece.startsWith(WORD_MARK) && piece.length > WORD_MARK.length) marked += 1;
    }
    this.longest = longest;
    this.wordPieces = marked > 0;
  }

  /** Token ids of `phrase`, or null when the vocabulary cannot spell it. */
  encode(phrase: string): number[] | null {
    const words = phrase
      .normalize("NFC")
      .split(/\s+/)
      .filter((w) => w.length > 0);
    if (words.length === 0) return null;
    const out: number[] = [];
    const mark = this.ids.get(WORD_MARK);
    const space = this.ids.get(" ");
    for (const [i, word] of words.entries()) {
      if (this.wordPieces) {
        if (!this.cut(`${WORD_MARK}${word}`, out)) return null;
        continue;
      }
      const separator = mark ?? space;
      if (i > 0 && separator !== undefined) out.push(separator);
      if (!this.cut(word, out)) return null;
    }
    return out;
  }

  /** Longest-match cut of `text` into pieces appended to `out`; false when a character has no piece. */
  private cut(text: string, out: number[]): boolean {
    const chars = [...text];
    for (let at = 0; at < chars.length; ) {
      let matched = 0;
      for (let len = Math.min(this.longest, chars.length - at); len > 0; len--) {
        const id = this.ids.get(chars.slice(at, at + len).join(""));
        if (id !== undefined) {
          out.push(id);
          matched = len;
          break;
        }
      }
      if (matched === 0) return false;
      at += matched;
    }
    return true;
  }

  /**
   * The context graph of `hotwords` in this vocabulary, or null when none can pay out (no
   * hotwords, all boosts 0, none spellable): the caller then keeps its greedy search. The last
   * few lists are cached, as a key sends the same list call after call.
   */
  graph(hotwords: readonly Hotword[] | undefined): ContextGraph | null {
    if (hotwords === undefined || hotwords.length === 0) return null;
    const cacheKey = JSON.stringify(hotwords);
    let graph = this.graphs.get(cacheKey);
    if (graph === undefined) {
      const phrases: TokenPhrase[] = [];
      for (const { phrase, boost } of hotwords) {
        const tokens = this.encode(phrase);
        if (tokens !== null) phrases.push({ tokens, boost });
      }
      graph = new ContextGraph(phrases);
      if (this.graphs.size >= GRAPH_CACHE) this.graphs.delete(this.graphs.keys().next().value!);
      this.graphs.set(cacheKey, graph);
    }
    return graph.empty ? null : graph;
  }
}

/** Phrase lists whose graphs a recogniser keeps. */
const GRAPH_CACHE = 16;
