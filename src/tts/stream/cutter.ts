/**
 * Streaming text in, whole sentences out: a context's text arrives a few words at a time as an
 * LLM writes it, and each sentence may start as soon as it is complete (../frontend/sentences.ts
 * `completeSentencesEnd` decides, so the cut is where the whole text would split) or flushed.
 * Never half a word: text without a sentence end waits, unless it grows past the longest
 * sentence a voice takes, when it is cut at its last whitespace as the front-end would.
 */
import { codePointLength } from "../frontend/length.ts";
import { completeSentencesEnd, DEFAULT_MAX_SENTENCE_CHARS } from "../frontend/index.ts";

/** Holds a context's unfinished text; see the file comment. */
export class TextCutter {
  private pending = "";

  constructor(private readonly maxSentenceChars = DEFAULT_MAX_SENTENCE_CHARS) {}

  /** Code points waiting for their sentence to end. */
  get length(): number {
    return codePointLength(this.pending);
  }

  /** Adds a piece; returns the text of the sentences it completed ("" when none did). */
  push(piece: string): string {
    this.pending += piece;
    const end = completeSentencesEnd(this.pending);
    if (end > 0) return this.take(end);
    if (this.pending.length > this.maxSentenceChars && codePointLength(this.pending) > this.maxSentenceChars) {
      const points = Array.from(this.pending);
      const head = points.slice(0, this.maxSentenceChars + 1).join("");
      const space = head.search(/\s\S*$/u);
      if (space > 0) return this.take(space);
    }
    return "";
  }

  /** Everything pending, complete or not (a flush or the end of input). */
  flush(): string {
    return this.take(this.pending.length);
  }

  /** Drops what is pending. */
  clear(): void {
    this.pending = "";
  }

  private take(end: number): string {
    const text = this.pending.slice(0, end);
    this.pending = this.pending.slice(end);
    return text;
  }
}
