/**
 * The bridge between a transcript's timed output and {@link formatWords}: a run of text (a
 * segment, a live final) becomes timed words, the formatted tokens become timed words again (a
 * token spans its words' times: the start of the first, the end of the last), and a redaction's
 * time is that of the words it hides. Shared by the file path (./transcript.ts) and the live one
 * (./live.ts), so every door reports the same words and times.
 */
import type { TranscriptFormatting, TranscriptWord } from "../../core/asr.ts";
import { type FormatOptions, formatWords, guessLanguage } from "../../text/format.ts";
import type { RedactionType } from "../../text/redact/classes.ts";
import { wordsOf } from "../../text/itn/words.ts";

/** One spoken word with its time and the run (segment, final) it came from. */
export interface TimedUnit {
  readonly text: string;
  readonly start: number;
  readonly end: number;
  readonly owner: number;
}

/**
 * The words of one run's text, timed by the recogniser's words when they are the same words,
 * otherwise (a recogniser that does not time words) each by the run's own start and end.
 */
export function unitsOf(
  text: string,
  timed: readonly TranscriptWord[] | undefined,
  span: { readonly start: number; readonly end: number },
  owner: number,
): TimedUnit[] {
  const words = wordsOf(text);
  const aligned = timed !== undefined && timed.length === words.length;
  return words.map((word, i) => ({
    text: word,
    start: aligned ? timed[i]!.start : span.start,
    end: aligned ? timed[i]!.end : span.end,
    owner,
  }));
}

/** {@link FormatOptions} of a call's formatting for these words (language guessed from them). */
export function formatOptions(formatting: TranscriptFormatting, words: readonly string[]): FormatOptions {
  return {
    language: guessLanguage(words.join(" ")),
    itn: formatting.itn,
    redact: formatting.redact as ReadonlySet<RedactionType>,
    digits: formatting.digits,
  };
}

/** Whether a call's formatting changes anything at all. */
export const formats = (formatting: TranscriptFormatting | undefined): formatting is TranscriptFormatting =>
  formatting !== undefined && (formatting.itn || formatting.redact.size > 0);

/** One formatted run: its written text, spoken text, timed written words and timed redactions. */
export interface FormattedRun {
  text: string;
  textSpoken: string;
  readonly words: TranscriptWord[];
  readonly redactions: { type: string; start: number; end: number }[];
  /** One past the last input word its tokens cover (they may reach into the next run). */
  reach: number;
}

const round = (seconds: number) => Math.round(seconds * 1000) / 1000;
const joined = (before: string, text: string) => (before === "" ? text : `${before} ${text}`);

/**
 * Formats `units` (several runs in order, so a card number read over two segments is one card)
 * and hands each run its tokens: a token belongs to the run of its first word.
 */
export function formatRuns(
  units: readonly TimedUnit[],
  formatting: TranscriptFormatting,
  owners: readonly number[],
): Map<number, FormattedRun> {
  const runs = new Map<number, FormattedRun>(
    owners.map((owner) => [owner, { text: "", textSpoken: "", words: [], redactions: [], reach: 0 }]),
  );
  if (units.length === 0) return runs;
  const words = units.map((u) => u.text);
  const result = formatWords(words, formatOptions(formatting, words));
  const timeOf = (token: { from: number; to: number }) => ({
    start: round(units[token.from]!.start),
    end: round(Math.max(units[token.from]!.start, units[token.to - 1]!.end)),
  });
  const runOf = (token: { from: number }) => runs.get(units[token.from]!.owner)!;
  for (const token of result.written) {
    const run = runOf(token);
    run.text = joined(run.text, token.text);
    run.words.push({ word: token.text, ...timeOf(token) });
    run.reach = Math.max(run.reach, token.to);
  }
  for (const token of result.spoken) {
    const run = runOf(token);
    run.textSpoken = joined(run.textSpoken, token.text);
  }
  for (const span of result.redactions) runOf(span).redactions.push({ type: span.type, ...timeOf(span) });
  return runs;
}
