/**
 * Greedy Whisper decoding of one ≤ 30 s segment, as sherpa-onnx runs its export: log-mel of the
 * segment padded to 30 s → encoder; the decoder first takes the whole prompt [sot, <|ar|>,
 * <|transcribe|>, <|notimestamps|>] at offset 0, then one token per step at offset = tokens so
 * far, carrying the self caches it returns. Suppressed: every special token (ids above eot: task,
 * language, timestamp and no-speech tokens), the model's non_speech_tokens (OpenAI's default
 * suppression), and on the first step eot and blank (a lone space). Text is the joined bytes of
 * the emitted tokens, decoded once.
 */
import { SPEECH_SAMPLE_RATE } from "../../audio/speech-rate.ts";
import { WHISPER_N_FRAMES, whisperLogMel } from "../features/whisper-mel.ts";
import { argmax } from "../onnx.ts";
import { MAX_SEGMENT_SECONDS, type RecognizedText, type Recognizer } from "../recognizer.ts";
import type { WhisperConfig, WhisperMeta } from "./config.ts";
import { WhisperModel } from "./model.ts";
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

/** Decodes token ids for one window's audio. */
export async function decodeWindow(model: WhisperModel, samples: Float32Array, signal?: AbortSignal): Promise<number[]> {
  const { meta, prompt } = model.config;
  const mel = whisperLogMel(samples.subarray(0, WHISPER_N_FRAMES * 160), { nMels: meta.nMels });
  const cross = await model.encode(mel.data, mel.nFrames);
  const suppress = suppression(meta);
  const budget = whisperTokenBudget(samples.length / SPEECH_SAMPLE_RATE, meta.nTextCtx);
  let step = await model.step(prompt, model.emptyCache(), cross, 0);
  let offset = prompt.length;
  let next = argmax(step.logits, 0, step.logits.length, suppress.first);
  const emitted: number[] = [];
  while (next >= 0 && next !== meta.eot && emitted.length < budget && offset < meta.nTextCtx) {
    emitted.push(next);
    signal?.throwIfAborted();
    step = await model.step([next], step.cache, cross, offset);
    offset += 1;
    next = argmax(step.logits, 0, step.logits.length, suppress.later);
  }
  return emitted;
}

/** A Whisper pack as a {@link Recognizer}. */
export class WhisperRecognizer implements Recognizer {
  readonly family = "whisper";
  /** Whisper's fixed 30 s window. */
  readonly maxSegmentSeconds = MAX_SEGMENT_SECONDS;

  private constructor(
    readonly name: string,
    private readonly model: WhisperModel,
  ) {}

  /** Loads the pack's sessions. */
  static async load(config: WhisperConfig, name: string): Promise<WhisperRecognizer> {
    return new WhisperRecognizer(name, await WhisperModel.load(config, name));
  }

  get provider(): "cpu" | "cuda" {
    return this.model.provider;
  }

  async recognize(samples: Float32Array, signal?: AbortSignal): Promise<RecognizedText> {
    if (samples.length === 0) return { text: "" };
    const ids = await decodeWindow(this.model, samples, signal);
    return { text: detokenize(ids, this.model.config.tokenBytes).trim() };
  }

  release(): Promise<void> {
    return this.model.release();
  }
}
