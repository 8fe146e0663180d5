/**
 * Character and word times of one spoken sentence, in the context's audio time (milliseconds from
 * its first sample). Where the voice's model reports how long each phoneme lasts (a Piper export
 * with its durations output, ../piper/model.ts), words take exactly their phonemes' time; otherwise
 * each word's share of the sentence's actual audio is its phoneme count (its letter count when
 * the phonemes and the words cannot be paired), an estimate. Within a word the characters share
 * its time evenly, the space after it included, so every character lasts a while and the start
 * times rise strictly.
 */
import type { SentenceTimings } from "../../core/tts.ts";
import type { AlignedAudio } from "../renderer.ts";

/** A word of the sentence with the characters it covers (the space after it included). */
interface Token {
  readonly word: string;
  readonly chars: readonly string[];
}

function tokens(text: string): Token[] {
  const out: Token[] = [];
  for (const match of text.matchAll(/(\S+)(\s*)/gu)) {
    const space = match[2] ? [" "] : [];
    out.push({ word: match[1]!, chars: [...Array.from(match[1]!), ...space] });
  }
  return out;
}

/** The phonemes of each word (split at the phonemiser's spaces), with their durations when known. */
function phonemeWords(aligned: Pick<AlignedAudio, "phonemes" | "durations">): { count: number; samples: number }[] {
  const words: { count: number; samples: number }[] = [{ count: 0, samples: 0 }];
  aligned.phonemes.forEach((phoneme, i) => {
    const current = words[words.length - 1]!;
    const samples = aligned.durations?.[i] ?? 0;
    if (phoneme === " ") {
      current.samples += samples;
      if (current.count > 0) words.push({ count: 0, samples: 0 });
      return;
    }
    current.count++;
    current.samples += samples;
  });
  return words.filter((word) => word.count > 0);
}

/**
 * The timings of a sentence whose written text is `text`, spoken as `samples` samples at `rate`
 * starting `startMs` into the context's audio; `aligned` is what the renderer knew of its phonemes.
 */
export function sentenceTimings(
  text: string,
  samples: number,
  rate: number,
  startMs: number,
  aligned?: Pick<AlignedAudio, "phonemes" | "durations" | "lead">,
): SentenceTimings {
  const words = tokens(text);
  const spoken = aligned ? phonemeWords(aligned) : [];
  const paired = spoken.length === words.length && words.length > 0;
  const measured = paired && aligned?.durations !== undefined;
  // Word spans in samples: measured durations, else shares of the audio by phonemes or letters.
  let spans: number[];
  let offset = 0;
  if (measured) {
    offset = aligned?.lead ?? 0;
    spans = spoken.map((word) => word.samples);
    // The model's end symbol is the last word's fading out: its time is the last word's, so the
    // sentence's characters end where its audio does (where a mark after it falls).
    const tail = samples - offset - spans.reduce((a, b) => a + b, 0);
    if (tail > 0) spans[spans.length - 1]! += tail;
  } else {
    const weights = paired ? spoken.map((word) => word.count) : words.map((word) => word.chars.length);
    const total = weights.reduce((a, b) => a + b, 0) || 1;
    spans = weights.map((weight) => (weight / total) * samples);
  }
  const msPer = 1000 / rate;
  const chars: string[] = [];
  const charStartMs: number[] = [];
  const charDurationMs: number[] = [];
  const timedWords: { word: string; startMs: number; endMs: number }[] = [];
  let at = offset;
  words.forEach((token, w) => {
    const span = Math.max(spans[w] ?? 0, token.chars.length * 1e-3 * rate);
    const each = span / token.chars.length;
    token.chars.forEach((char, c) => {
      chars.push(char);
      charStartMs.push(startMs + (at + c * each) * msPer);
      charDurationMs.push(each * msPer);
    });
    timedWords.push({ word: token.word, startMs: startMs + at * msPer, endMs: startMs + (at + span) * msPer });
    at += span;
  });
  return { text, chars, charStartMs, charDurationMs, words: timedWords, estimated: !measured };
}
