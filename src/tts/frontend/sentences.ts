/**
 * Clause and sentence splitting for Arabic and Latin punctuation. Each clause keeps its own
 * punctuation: Piper voices were trained on phoneme strings that end clauses with `, . ? ! : ;`,
 * so the phonemiser re-attaches them, and the streaming synthesiser speaks sentence by sentence.
 * Every piece is bounded (D6 allows 51,200 code points; a model gets at most `maxChars`).
 */

import { LETTER_OR_MARK, startsWithMark } from "../../text/arabic/marks.ts";
import { codePointLength } from "./length.ts";

/** One clause: text including its trailing punctuation, and how it ended. */
export interface Clause {
  /** Clause text, trimmed, including the terminating punctuation and closing quotes. */
  readonly text: string;
  /** The punctuation run that ended the clause ("?!", "،", "..."); "" for newline/hard split/end. */
  readonly terminator: string;
  /** True when a sentence ends after this clause (. ! ? ؟ … newline, end of text). */
  readonly endsSentence: boolean;
}

/** One sentence: its clauses, never longer than the requested bound. */
export interface Sentence {
  /** The clauses' texts joined by single spaces. */
  readonly text: string;
  /** Terminator of the last clause. */
  readonly terminator: string;
  readonly clauses: readonly Clause[];
}

/** Upper bound on a sentence, in code points, used when callers give none. */
export const DEFAULT_MAX_SENTENCE_CHARS = 400;

const PUNCT_RUN = /[.!?؟…۔,،;؛:]+["'”’»)\]]*/gu;
const SENTENCE_MARKS = /[.!?؟…۔]/u;
/** Arabic marks and the ellipsis never occur inside a token, so they always end a clause. */
const ALWAYS_BREAKS = /[،؛؟۔…]/u;
const TRAILING_WORD = new RegExp(`[${LETTER_OR_MARK}]+$`, "u");
const LETTER = /\p{L}/gu;
/** Multi-letter abbreviations whose period does not end a sentence (single letters never do). */
const ABBREVIATIONS = new Set([
  "dr",
  "mr",
  "mrs",
  "ms",
  "prof",
  "st",
  "jr",
  "sr",
  "vs",
  "no",
  "mt",
  "fig",
  "dept",
  "approx",
]);

/** Splits text into clauses, each at most `maxChars` code points (hard-split at whitespace). */
export function splitClauses(text: string, maxChars: number = DEFAULT_MAX_SENTENCE_CHARS): Clause[] {
  if (!(maxChars >= 1)) throw new RangeError("maxChars must be at least 1");
  const out: Clause[] = [];
  for (const line of text.split(/\r\n?|\n/)) {
    const clauses = splitLine(line);
    if (clauses.length === 0) continue;
    // A line break ends a sentence even without punctuation (lists, addresses, IVR prompts).
    const last = clauses[clauses.length - 1]!;
    clauses[clauses.length - 1] = { ...last, endsSentence: true };
    for (const clause of clauses) out.push(...bound(clause, maxChars));
  }
  return out;
}

/**
 * Splits text into sentences of at most `maxChars` code points. Clauses are grouped until a
 * sentence mark; a sentence that would grow past the bound closes early at a clause edge.
 */
export function splitSentences(text: string, maxChars: number = DEFAULT_MAX_SENTENCE_CHARS): Sentence[] {
  const sentences: Sentence[] = [];
  let group: Clause[] = [];
  let length = 0;
  const close = (): void => {
    if (group.length === 0) return;
    const last = group[group.length - 1]!;
    sentences.push({ text: group.map((c) => c.text).join(" "), terminator: last.terminator, clauses: group });
    group = [];
    length = 0;
  };
  for (const clause of splitClauses(text, maxChars)) {
    const size = codePointLength(clause.text);
    if (group.length > 0 && length + 1 + size > maxChars) close();
    length += (group.length > 0 ? 1 : 0) + size;
    group.push(clause);
    if (clause.endsSentence) close();
  }
  close();
  return sentences;
}

/**
 * Where the complete sentences of a text still being written end (streaming text: an LLM writes it
 * a few words at a time): the index just after the last sentence end that no later text can undo,
 * 0 when there is none. A line break ends a sentence; so does a sentence mark that
 * {@link splitSentences} breaks at, once whitespace follows it, or at the end of the text unless a
 * digit precedes it ("3." may become "3.5"). The text up to the index then splits into the same
 * sentences as it would inside the whole text, and no word is ever cut.
 */
export function completeSentencesEnd(text: string): number {
  let end = 0;
  const lastBreak = text.lastIndexOf("\n");
  if (lastBreak >= 0) end = lastBreak + 1;
  const line = text.slice(end);
  for (const match of line.matchAll(PUNCT_RUN)) {
    const at = match.index;
    const run = match[0];
    const terminator = run.replace(/["'”’»)\]]+$/u, "");
    if (!SENTENCE_MARKS.test(terminator) || !isBreak(line, at, run)) continue;
    const after = line[at + run.length];
    const closed = after === undefined ? !/\d/u.test(line[at - 1] ?? "") : /\s/u.test(after);
    if (closed) end = lastBreak + 1 + at + run.length;
  }
  return end;
}

function splitLine(line: string): Clause[] {
  const clauses: Clause[] = [];
  let start = 0;
  for (const match of line.matchAll(PUNCT_RUN)) {
    const at = match.index;
    const run = match[0];
    if (!isBreak(line, at, run)) continue;
    const terminator = run.replace(/["'”’»)\]]+$/u, "");
    push(clauses, line.slice(start, at + run.length), terminator, SENTENCE_MARKS.test(terminator));
    start = at + run.length;
  }
  push(clauses, line.slice(start), "", true);
  return clauses;
}

function push(clauses: Clause[], raw: string, terminator: string, endsSentence: boolean): void {
  const text = raw.trim();
  if (text === "") return;
  // Punctuation alone (e.g. "!!" after a quote) belongs to the clause before it.
  if (text === terminator && clauses.length > 0) {
    const previous = clauses.pop()!;
    clauses.push({
      text: previous.text + text,
      terminator: previous.terminator + terminator,
      endsSentence: previous.endsSentence || endsSentence,
    });
    return;
  }
  clauses.push({ text, terminator, endsSentence });
}

/** Decides whether a punctuation run at `at` really ends a clause. */
function isBreak(line: string, at: number, run: string): boolean {
  const before = line[at - 1] ?? "";
  const after = line[at + run.length];
  // "3.5", "1,000", "14:30": a single mark between digits is part of the number.
  if (run.length === 1 && /[.,:]/.test(run) && /\d/.test(before) && /\d/.test(line[at + 1] ?? "")) return false;
  if (ALWAYS_BREAKS.test(run)) return true;
  // "a@b.com", "ر.س", "e.g": Latin marks inside a token are not breaks.
  if (after !== undefined && !/\s/u.test(after)) return false;
  if (run === ".") {
    const word = TRAILING_WORD.exec(line.slice(Math.max(0, at - 16), at))?.[0] ?? "";
    const letters = word.match(LETTER)?.length ?? 0;
    // "د." (doctor), "A.", "Dr.": an abbreviation, not a sentence end.
    if (letters === 1 || ABBREVIATIONS.has(word.toLowerCase())) return false;
  }
  return true;
}

/** Hard-splits an over-long clause at whitespace; only the last piece keeps the terminator. */
function bound(clause: Clause, maxChars: number): Clause[] {
  if (codePointLength(clause.text) <= maxChars) return [clause];
  const points = Array.from(clause.text);
  const pieces: Clause[] = [];
  let from = 0;
  while (points.length - from > maxChars) {
    let cut = from + maxChars;
    const space = lastSpace(points, from, cut);
    if (space > from) cut = space;
    else while (cut > from + 1 && startsWithMark(points[cut]!)) cut--; // keep diacritics on their letter
    const text = points.slice(from, cut).join("").trim();
    if (text !== "") pieces.push({ text, terminator: "", endsSentence: false });
    from = cut;
    while (from < points.length && /\s/u.test(points[from]!)) from++;
  }
  const rest = points.slice(from).join("").trim();
  if (rest !== "") pieces.push({ ...clause, text: rest });
  else if (pieces.length > 0)
    pieces[pieces.length - 1] = {
      ...pieces[pieces.length - 1]!,
      terminator: clause.terminator,
      endsSentence: clause.endsSentence,
    };
  return pieces;
}

function lastSpace(points: string[], from: number, cut: number): number {
  for (let i = cut; i > from; i--) if (/\s/u.test(points[i]!)) return i;
  return -1;
}
