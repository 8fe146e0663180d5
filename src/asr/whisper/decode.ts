/**
 * Whisper decoding of one window, shared by the two pack layouts (sherpa-onnx's export, ./model.ts;
 * the Hugging Face layout, ../whisper-hf/): the decoder first takes the whole prompt, then one
 * token per step, through a {@link WhisperWindow} that carries its own caches. Suppressed: every
 * special token (ids above eot: task, language and no-speech tokens), the model's non-speech
 * tokens, and on the first step eot and blank (a lone space).
 *
 * With a {@link TimestampRule} the prompt has no `<|notimestamps|>` and timestamp tokens (ids from
 * `no_timestamps + 1`, 0.02 s each) are allowed as Whisper's timestamp logits processor allows them
 * (transformers.js `src/generation/logits_process.js` WhisperTimeStampLogitsProcessor, after
 * OpenAI's `decoding.py` ApplyTimestampRules): the first token is a timestamp (at most
 * `max_initial_timestamp_index`), timestamps come in pairs except right before eot, and when the
 * timestamps together are likelier than any text token a timestamp is taken.
 */
import { argmax } from "../../onnx/runner.ts";
import type { WhisperMeta } from "./config.ts";
import { logProbability, sample } from "./fallback.ts";

/** Tokens per second of audio a window may produce (fast Arabic speech stays well below). */
export const WHISPER_TOKENS_PER_SECOND = 20;
/** Tokens any window may produce, however short. */
export const WHISPER_MIN_TOKEN_BUDGET = 10;
/** Seconds one timestamp token step stands for (Whisper's 20 ms). */
export const WHISPER_TIMESTAMP_SECONDS = 0.02;

/**
 * Most tokens decoded for `seconds` of audio: half the text context (OpenAI's sample_len), and a
 * duration-based cap that stops a decoder stuck repeating itself on a short segment.
 */
export function whisperTokenBudget(seconds: number, nTextCtx: number): number {
  return Math.min(Math.floor(nTextCtx / 2), WHISPER_MIN_TOKEN_BUDGET + Math.ceil(seconds * WHISPER_TOKENS_PER_SECOND));
}

/** How a pack's timestamp tokens are decoded, when it decodes with them. */
export interface TimestampRule {
  /** Id of `<|0.00|>` (no_timestamps + 1). */
  readonly begin: number;
  /** Latest timestamp index the first token may take, or null for no limit. */
  readonly maxInitialIndex: number | null;
}

/** One window's decoder: each call feeds tokens after those fed so far and returns the last position's logits. */
export interface WhisperWindow {
  feed(tokens: readonly number[]): Promise<Float32Array>;
}

/** Suppression masks for the first and later steps (text mode: every id above eot). */
export function suppression(meta: WhisperMeta): { first: (id: number) => boolean; later: (id: number) => boolean } {
  const nonSpeech = new Set(meta.nonSpeechTokens);
  const later = (id: number) => id > meta.eot || nonSpeech.has(id);
  return { first: (id) => later(id) || id === meta.eot || id === meta.blankId, later };
}

/**
 * The mask of one step in timestamp mode: `emitted` are the tokens after the prompt so far. Text
 * and eot as in {@link suppression}; timestamp ids follow the pairing rule above.
 */
export function timestampMask(
  meta: WhisperMeta,
  rule: TimestampRule,
  emitted: readonly number[],
  logits: Float32Array,
): (id: number) => boolean {
  const base = suppression(meta);
  const text = emitted.length === 0 ? base.first : base.later;
  const isTime = (id: number) => id >= rule.begin;
  if (emitted.length === 0) {
    const last = rule.maxInitialIndex === null ? Infinity : rule.begin + rule.maxInitialIndex;
    return (id) => !isTime(id) || id > last;
  }
  const lastWasTime = isTime(emitted[emitted.length - 1]!);
  const penultimateWasTime = emitted.length < 2 || isTime(emitted[emitted.length - 2]!);
  const allowTime = !(lastWasTime && penultimateWasTime);
  // After a lone timestamp (a segment's end) only another timestamp or eot may follow.
  let allowText = !(lastWasTime && !penultimateWasTime);
  const mask = (id: number) => (isTime(id) ? !allowTime : id === meta.eot ? false : !allowText || text(id));
  if (allowTime && allowText) {
    // When the timestamps together outweigh the best text token, a timestamp is taken.
    const timeMass = logSumExp(logits, rule.begin, logits.length, mask);
    let bestText = -Infinity;
    for (let id = 0; id < rule.begin; id++) if (!mask(id) && logits[id]! > bestText) bestText = logits[id]!;
    if (timeMass > bestText) allowText = false;
  }
  return mask;
}

function logSumExp(logits: Float32Array, from: number, to: number, masked: (id: number) => boolean): number {
  let max = -Infinity;
  for (let i = from; i < to; i++) if (!masked(i) && logits[i]! > max) max = logits[i]!;
  if (max === -Infinity) return -Infinity;
  let sum = 0;
  for (let i = from; i < to; i++) if (!masked(i)) sum += Math.exp(logits[i]! - max);
  return max + Math.log(sum);
}

/** How one window is decoded. */
export interface DecodeSettings {
  /** Full decoder prompt (task prompt, possibly after previous-text context). */
  readonly prompt: readonly number[];
  /** 0 is greedy; above 0 samples from softmax(logits / temperature). */
  readonly temperature?: number;
  /** Uniform [0, 1) source for sampling. */
  readonly random?: () => number;
  /** Decode timestamp tokens (the prompt then ends with the task token). */
  readonly timestamps?: TimestampRule | null;
}

/** Token ids of one decode and the sum of their log-probabilities (end of text included). */
export interface DecodedTokens {
  readonly ids: number[];
  readonly sumLogprob: number;
}

/** Decodes token ids (timestamps included in timestamp mode) through a fresh window decoder. */
export async function decodeTokens(
  window: WhisperWindow,
  meta: WhisperMeta,
  seconds: number,
  settings: DecodeSettings,
  signal?: AbortSignal,
): Promise<DecodedTokens> {
  const { prompt, timestamps = null } = settings;
  const temperature = settings.temperature ?? 0;
  const random = settings.random ?? Math.random;
  const suppress = suppression(meta);
  // Timestamp tokens take budget too: two per segment.
  const budget = whisperTokenBudget(seconds, meta.nTextCtx) * (timestamps ? 2 : 1);
  const maskOf = (logits: Float32Array, emitted: readonly number[]) =>
    timestamps
      ? timestampMask(meta, timestamps, emitted, logits)
      : emitted.length === 0
        ? suppress.first
        : suppress.later;
  const pick = (logits: Float32Array, masked: (id: number) => boolean) =>
    temperature > 0 ? sample(logits, temperature, masked, random) : argmax(logits, 0, logits.length, masked);
  let logits = await window.feed(prompt);
  let offset = prompt.length;
  const emitted: number[] = [];
  let mask = maskOf(logits, emitted);
  let next = pick(logits, mask);
  let sumLogprob = 0;
  while (next >= 0 && emitted.length < budget && offset < meta.nTextCtx) {
    sumLogprob += logProbability(logits, next, mask);
    if (next === meta.eot) break;
    emitted.push(next);
    signal?.throwIfAborted();
    logits = await window.feed([next]);
    offset += 1;
    mask = maskOf(logits, emitted);
    next = pick(logits, mask);
  }
  return { ids: emitted, sumLogprob };
}

/** A stretch of text between two timestamp tokens, times in seconds from the window's start. */
export interface TimedTokens {
  readonly ids: readonly number[];
  readonly start: number;
  readonly end: number;
}

/**
 * Splits timestamp-mode ids into timed stretches: `<|a|> text <|b|>` is text from a to b; text
 * after a last lone timestamp runs to `windowSeconds`.
 */
export function timedStretches(ids: readonly number[], rule: TimestampRule, windowSeconds: number): TimedTokens[] {
  const out: TimedTokens[] = [];
  let start: number | null = null;
  let text: number[] = [];
  const at = (id: number) => Math.round((id - rule.begin) * WHISPER_TIMESTAMP_SECONDS * 1000) / 1000;
  for (const id of ids) {
    if (id < rule.begin) {
      text.push(id);
      continue;
    }
    if (start === null || text.length === 0) start = at(id);
    else {
      out.push({ ids: text, start, end: at(id) });
      start = null;
      text = [];
    }
  }
  if (text.length > 0) out.push({ ids: text, start: start ?? 0, end: Math.max(start ?? 0, windowSeconds) });
  return out;
}
