/**
 * Greedy Whisper decoding of one ≤ 30 s segment, as sherpa-onnx runs its export: log-mel of the
 * segment padded to 30 s → encoder; the decoder first takes the whole prompt [sot, <|ar|>,
 * <|transcribe|>, <|notimestamps|>] at offset 0, then one token per step at offset = tokens so
 * far, carrying the self caches it returns. Suppressed: every special token (ids above eot: task,
 * language, timestamp and no-speech tokens), the model's non_speech_tokens (OpenAI's default
 * suppression), and on the first step eot and blank (a lone space). Text is the joined bytes of
 * the emitted tokens, decoded once. A `prompt` goes before the task prompt as previous-text
 * context (./encode.ts); temperature fallback as in Whisper's reference decoder (./fallback.ts).
 */
import { SPEECH_SAMPLE_RATE } from "../../audio/speech-rate.ts";
import { WHISPER_N_FRAMES, whisperLogMel } from "../../audio/features/whisper-mel.ts";
import { argmax } from "../../runtime/onnx-runner.ts";
import { MAX_SEGMENT_SECONDS, type RecognizedText, type RecognizeOptions, type Recognizer } from "../recognizer.ts";
import type { WhisperConfig, WhisperMeta } from "./config.ts";
import { promptWithContext, WhisperEncoder } from "./encode.ts";
import { compressionRatio, logProbability, needsFallback, sample, seededRandom, temperatures } from "./fallback.ts";
import { type CrossAttention, WhisperModel } from "./model.ts";
import { detokenize } from "./tokens.ts";

/** Tokens per second of audio a window may produce (fast Arabic speech stays well below). */
export const WHISPER_TOKENS_PER_SECOND = 20;
/** Tokens any window may produce, however short. */
export const WHISPER_MIN_TOKEN_BUDGET = 10;

/**
 * Most tokens decoded for `seconds` of audio: half the text context (OpenAI's sample_len), and a
 * duration-based cap that stops a decoder stuck repeating itself on a short segment.
 */
export function whisperTokenBudget(seconds: number, nTextCtx: number): number {
  return Math.min(Math.floor(nTextCtx / 2), WHISPER_MIN_TOKEN_BUDGET + Math.ceil(seconds * WHISPER_TOKENS_PER_SECOND));
}

/** Suppression masks for the first and later steps. */
export function suppression(meta: WhisperMeta): { first: (id: number) => boolean; later: (id: number) => boolean } {
  const nonSpeech = new Set(meta.nonSpeechTokens);
  const later = (id: number) => id > meta.eot || nonSpeech.has(id);
  return { first: (id) => later(id) || id === meta.eot || id === meta.blankId, later };
}

/** How one window is decoded. */
export interface DecodeSettings {
  /** Full decoder prompt (task prompt, possibly after previous-text context). */
  readonly prompt?: readonly number[];
  /** 0 is greedy; above 0 samples from softmax(logits / temperature). */
  readonly temperature?: number;
  /** Uniform [0, 1) source for sampling. */
  readonly random?: () => number;
}

/** Token ids of one decode and the sum of their log-probabilities (end of text included). */
export interface DecodedTokens {
  readonly ids: number[];
  readonly sumLogprob: number;
}

/** Runs the encoder on one window's audio. */
export async function encodeWindow(model: WhisperModel, samples: Float32Array): Promise<CrossAttention> {
  const mel = whisperLogMel(samples.subarray(0, WHISPER_N_FRAMES * 160), { nMels: model.config.meta.nMels });
  return model.encode(mel.data, mel.nFrames);
}

/** Decodes token ids from a window's encoder output. */
export async function decodeTokens(
  model: WhisperModel,
  cross: CrossAttention,
  seconds: number,
  settings: DecodeSettings = {},
  signal?: AbortSignal,
): Promise<DecodedTokens> {
  const { meta } = model.config;
  const prompt = settings.prompt ?? model.config.prompt;
  const temperature = settings.temperature ?? 0;
  const random = settings.random ?? Math.random;
  const suppress = suppression(meta);
  const budget = whisperTokenBudget(seconds, meta.nTextCtx);
  const pick = (logits: Float32Array, masked: (id: number) => boolean) =>
    temperature > 0 ? sample(logits, temperature, masked, random) : argmax(logits, 0, logits.length, masked);
  let step = await model.step(prompt, model.emptyCache(), cross, 0);
  let offset = prompt.length;
  let mask = suppress.first;
  let next = pick(step.logits, mask);
  let sumLogprob = 0;
  const emitted: number[] = [];
  while (next >= 0 && emitted.length < budget && offset < meta.nTextCtx) {
    sumLogprob += logProbability(step.logits, next, mask);
    if (next === meta.eot) break;
    emitted.push(next);
    signal?.throwIfAborted();
    step = await model.step([next], step.cache, cross, offset);
    offset += 1;
    mask = suppress.later;
    next = pick(step.logits, mask);
  }
  return { ids: emitted, sumLogprob };
}

/** Characters of a prompt encoded: comfortably more than the 223 tokens the decoder keeps. */
const PROMPT_TAIL_CHARS = 2000;

/** Seed of the sampling generator (fixed: the same audio always decodes to the same text). */
const SAMPLING_SEED = 0x5a3d;

/** A Whisper pack as a {@link Recognizer}. */
export class WhisperRecognizer implements Recognizer {
  readonly family = "whisper";
  /** Whisper's fixed 30 s window (the encoder's input). */
  readonly maxSegmentSeconds = MAX_SEGMENT_SECONDS;
  private readonly encoder: WhisperEncoder;

  private constructor(
    readonly name: string,
    private readonly model: WhisperModel,
  ) {
    const text = new Map([...model.config.tokenBytes].filter(([id]) => id < model.config.meta.eot));
    this.encoder = new WhisperEncoder(text);
  }

  /** Loads the pack's sessions. */
  static async load(config: WhisperConfig, name: string, parallel = 1): Promise<WhisperRecognizer> {
    return new WhisperRecognizer(name, await WhisperModel.load(config, name, parallel));
  }

  get provider(): "cpu" | "cuda" {
    return this.model.provider;
  }

  /**
   * The previous-text context: boosted phrases first (a glossary, as OpenAI advises prompting
   * Whisper with names and terms; most boosted first), then the prompt's tail. The decoder keeps
   * only the last `n_text_ctx / 2 − 1` tokens, so the prompt is cut to leave the phrases room.
   */
  private context(options: RecognizeOptions): number[] {
    // Only the context's last tokens are kept, so only the prompt's tail is worth encoding.
    const tail = options.prompt?.trim().slice(-PROMPT_TAIL_CHARS) ?? "";
    const prompt = tail !== "" ? this.encoder.encode(` ${tail}`) : [];
    const phrases = [...(options.hotwords ?? [])].filter((h) => h.boost > 0).sort((a, b) => b.boost - a.boost);
    if (phrases.length === 0) return prompt;
    const keep = Math.max(0, Math.floor(this.model.config.meta.nTextCtx / 2) - 1);
    const listed = phrases
      .map((h) => h.phrase)
      .join(", ")
      .slice(0, PROMPT_TAIL_CHARS);
    const glossary = this.encoder.encode(` ${listed}.`).slice(0, keep);
    return [...glossary, ...prompt.slice(Math.max(0, prompt.length - (keep - glossary.length)))];
  }

  /**
   * One window with temperature fallback (./fallback.ts); `prompt` becomes previous-text
   * context. The decode kept reports its temperature, mean log-probability and compression ratio.
   */
  async recognize(
    samples: Float32Array,
    signal?: AbortSignal,
    options: RecognizeOptions = {},
  ): Promise<RecognizedText> {
    if (samples.length === 0) return { text: "" };
    const { config } = this.model;
    const context = this.context(options);
    const prompt = promptWithContext(config.prompt, context, config.meta.sotPrev, config.meta.nTextCtx);
    const cross = await encodeWindow(this.model, samples);
    const seconds = samples.length / SPEECH_SAMPLE_RATE;
    let kept: RecognizedText = { text: "" };
    for (const [attempt, temperature] of temperatures(options.temperature ?? 0).entries()) {
      const random = seededRandom(SAMPLING_SEED + attempt);
      const decoded = await decodeTokens(this.model, cross, seconds, { prompt, temperature, random }, signal);
      const text = detokenize(decoded.ids, config.tokenBytes).trim();
      const decoding = {
        temperature,
        avgLogprob: decoded.sumLogprob / (decoded.ids.length + 1),
        compressionRatio: compressionRatio(text),
      };
      kept = { text, decoding };
      if (!needsFallback(decoding.compressionRatio, decoding.avgLogprob)) break;
    }
    return kept;
  }

  release(): Promise<void> {
    return this.model.release();
  }
}
