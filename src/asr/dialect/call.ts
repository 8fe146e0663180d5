/**
 * Dialect over a whole call: every utterance is scored by the dialect-id pack (its logits), the
 * call's dialect is the best label of the mean logits over the first `callSeconds` of speech
 * (each utterance weighted by its seconds inside that budget), and its confidence is that label's
 * softmax probability. A segment's own dialect is the best label of its utterances' mean logits.
 * Routing to a dialect-specific recogniser uses the call's decision, made before recognition.
 */
import { SPEECH_SAMPLE_RATE } from "../../audio/speech-rate.ts";
import { argmax } from "../../onnx/runner.ts";
import type { DialectIdentifier } from "../recognizer.ts";

/** Seconds of speech the call-level decision looks at unless configured. */
export const DEFAULT_CALL_DIALECT_SECONDS = 30;

/** Logits of one stretch of speech and how long it is. */
export interface ScoredSpeech {
  readonly logits: Float32Array;
  readonly seconds: number;
}

/** A dialect decision. */
export interface DialectDecision {
  readonly dialect: string;
  /** Softmax probability of `dialect` under the mean logits, in [0, 1]. */
  readonly confidence: number;
}

/** Scores `samples` (at most the identifier's own window of it), or null when it heard nothing. */
export async function scoreSpeech(
  identifier: DialectIdentifier,
  samples: Float32Array,
  signal?: AbortSignal,
): Promise<ScoredSpeech | null> {
  const logits = await identifier.logits(samples, signal);
  if (logits === null || logits.length === 0) return null;
  return { logits, seconds: samples.length / SPEECH_SAMPLE_RATE };
}

/** Weighted mean of logit vectors (weights in seconds); null when nothing has weight. */
export function meanLogits(parts: readonly { logits: Float32Array; weight: number }[]): Float32Array | null {
  const weighted = parts.filter((p) => p.weight > 0);
  if (weighted.length === 0) return null;
  const out = new Float32Array(weighted[0]!.logits.length);
  let total = 0;
  for (const { logits, weight } of weighted) {
    for (let i = 0; i < out.length; i++) out[i]! += (logits[i] ?? 0) * weight;
    total += weight;
  }
  for (let i = 0; i < out.length; i++) out[i]! /= total;
  return out;
}

/** The best label of `logits` with its softmax probability. */
export function decide(logits: Float32Array | null, labels: readonly string[]): DialectDecision | null {
  if (logits === null) return null;
  const best = argmax(logits, 0, Math.min(logits.length, labels.length));
  if (best < 0) return null;
  let sum = 0;
  const top = logits[best]!;
  for (let i = 0; i < Math.min(logits.length, labels.length); i++) sum += Math.exp(logits[i]! - top);
  return { dialect: labels[best]!, confidence: Math.round((1 / sum) * 1000) / 1000 };
}

/** The call's decision over the first `callSeconds` of scored speech (in order). */
export function callDialect(
  scored: readonly (ScoredSpeech | null)[],
  labels: readonly string[],
  callSeconds: number,
): DialectDecision | null {
  let budget = callSeconds;
  const parts: { logits: Float32Array; weight: number }[] = [];
  for (const speech of scored) {
    if (budget <= 0) break;
    if (speech === null) continue;
    const weight = Math.min(speech.seconds, budget);
    parts.push({ logits: speech.logits, weight });
    budget -= weight;
  }
  return decide(meanLogits(parts), labels);
}

/** A segment's dialect from its utterances' scores. */
export function segmentDialect(scored: readonly (ScoredSpeech | null)[], labels: readonly string[]): string | null {
  const parts = scored
    .filter((s): s is ScoredSpeech => s !== null)
    .map((s) => ({ logits: s.logits, weight: s.seconds }));
  return decide(meanLogits(parts), labels)?.dialect ?? null;
}

/** A span of the call's audio in samples. */
interface Stretch {
  readonly start: number;
  readonly end: number;
}

/** Dialect scoring of one call's utterances, each scored once; inert without a dialect-id pack. */
export class CallDialects {
  private readonly cache = new Map<string, Promise<ScoredSpeech | null>>();

  constructor(
    private readonly identifier: DialectIdentifier | null,
    private readonly samples: Float32Array,
    private readonly callSeconds: number,
  ) {}

  /** True without a dialect-id pack: nothing is scored or decided. */
  get inert(): boolean {
    return this.identifier === null;
  }

  private score(stretch: Stretch, signal?: AbortSignal): Promise<ScoredSpeech | null> {
    const key = `${stretch.start}:${stretch.end}`;
    let scored = this.cache.get(key);
    if (scored === undefined) {
      const identifier = this.identifier!;
      scored = scoreSpeech(identifier, this.samples.subarray(stretch.start, stretch.end), signal);
      this.cache.set(key, scored);
    }
    return scored;
  }

  /** The call's decision from the utterances (in order) that fall in its first `callSeconds` of speech. */
  async decide(utterances: readonly Stretch[], signal?: AbortSignal): Promise<DialectDecision | null> {
    if (this.identifier === null) return null;
    const scored: (ScoredSpeech | null)[] = [];
    let heard = 0;
    for (const utterance of utterances) {
      if (heard >= this.callSeconds) break;
      scored.push(await this.score(utterance, signal));
      heard += (utterance.end - utterance.start) / SPEECH_SAMPLE_RATE;
    }
    return callDialect(scored, this.identifier.labels, this.callSeconds);
  }

  /** The dialect of a segment made of these utterances, or null without a dialect-id pack. */
  async ofUtterances(utterances: readonly Stretch[], signal?: AbortSignal): Promise<string | null> {
    if (this.identifier === null) return null;
    const scored = await Promise.all(utterances.map((u) => this.score(u, signal)));
    return segmentDialect(scored, this.identifier.labels);
  }
}
