/**
 * Text that arrives in pieces (an LLM's output, the `text` command) cut into whole sentences: a
 * sentence is spoken as soon as its end has arrived, never half a word, and `flush` takes what is
 * left. The streaming-text speech core (issue 40) cuts the same way inside TTS; once the call's
 * playback runs on it, this buffer goes.
 */

/** Where a sentence ends: its closing mark (Latin or Arabic) and whitespace, or a line break. */
const SENTENCE_END = /[.!?؟…。]+["'»)\]]*\s+|\n+/g;

/** Buffers one context's text; see the file comment. */
export class SentenceBuffer {
  private pending = "";

  /** Code points (UTF-16 units, a bound) waiting for their sentence's end. */
  get length(): number {
    return this.pending.length;
  }

  /** Adds a piece; returns the sentences it completed, in order. */
  push(piece: string): string[] {
    this.pending += piece;
    const sentences: string[] = [];
    let cut = 0;
    for (const match of this.pending.matchAll(SENTENCE_END)) {
      const end = match.index + match[0].length;
      const sentence = this.pending.slice(cut, end).trim();
      if (sentence) sentences.push(sentence);
      cut = end;
    }
    this.pending = this.pending.slice(cut);
    return sentences;
  }

  /** What is left, even an unfinished sentence; the buffer is empty after. */
  flush(): string | undefined {
    const rest = this.pending.trim();
    this.pending = "";
    return rest === "" ? undefined : rest;
  }
}
