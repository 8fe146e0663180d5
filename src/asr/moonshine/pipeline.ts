/**
 * Greedy Moonshine decoding of one segment: raw audio → encoder; the decoder starts from `<s>`
 * and takes the best token each step until `</s>` or the length cap. The cap is a token rate per
 * second of audio, per language (Moonshine's reference decoders use ~6 tokens/s for English;
 * scripts whose words take more tokens need more), so a decoder stuck repeating itself stops.
 * Text: the emitted pieces joined byte-exactly (tokenizer.ts). Moonshine gives no word times:
 * its attention decoder has no alignment to the audio frames.
 */
import { SPEECH_SAMPLE_RATE } from "../../audio/speech-rate.ts";
import { argmax } from "../../onnx/runner.ts";
import type { RecognizedText, Recognizer } from "../recognizer.ts";
import type { MoonshineConfig } from "./config.ts";
import { MoonshineModel } from "./model.ts";
import { decodeMoonshineTokens } from "./tokenizer.ts";

/**
 * Moonshine's window. Its reference code accepts 0.1–64 s per call, but the models were trained
 * on utterances of up to ~30 s and its own demos cap input at 30 s: longer audio is segmented.
 */
export const MOONSHINE_WINDOW_SECONDS = 30;

/** Shortest audio the encoder takes (Moonshine's reference refuses less than 0.1 s). */
export const MOONSHINE_MIN_SECONDS = 0.1;

/** Token-rate caps per language (tokens per second of audio). */
export const MOONSHINE_TOKEN_RATES: Readonly<Record<string, number>> = Object.freeze({ en: 6.5 });

/** The cap for languages not listed: Arabic and other non-Latin scripts spend more tokens per word. */
export const MOONSHINE_DEFAULT_TOKEN_RATE = 13;

/** Most tokens decoded for `seconds` of audio in `language`. */
export function moonshineTokenBudget(seconds: number, language: string | null): number {
  const rate = (language !== null ? MOONSHINE_TOKEN_RATES[language] : undefined) ?? MOONSHINE_DEFAULT_TOKEN_RATE;
  return Math.max(1, Math.ceil(seconds * rate));
}

/** Greedy token ids (without `<s>` and `</s>`) for one segment. */
export async function decodeMoonshine(
  model: MoonshineModel,
  samples: Float32Array,
  signal?: AbortSignal,
): Promise<number[]> {
  const { vocabulary, language } = model.config;
  const hidden = await model.encode(samples);
  const budget = moonshineTokenBudget(samples.length / SPEECH_SAMPLE_RATE, language);
  const emitted: number[] = [];
  const run = model.startDecoding(hidden);
  try {
    let logits = await run.feed([vocabulary.bos]);
    for (;;) {
      const next = argmax(logits);
      if (next < 0 || next === vocabulary.eos || emitted.length >= budget) break;
      emitted.push(next);
      signal?.throwIfAborted();
      logits = await run.feed([next]);
    }
    return emitted;
  } finally {
    run.release();
  }
}

/** A Moonshine pack as a {@link Recognizer}. */
export class MoonshineRecognizer implements Recognizer {
  readonly family = "moonshine";
  readonly maxSegmentSeconds = MOONSHINE_WINDOW_SECONDS;

  private constructor(
    readonly name: string,
    private readonly model: MoonshineModel,
  ) {}

  /** Loads the pack's sessions. */
  static async load(config: MoonshineConfig, name: string, parallel = 1): Promise<MoonshineRecognizer> {
    return new MoonshineRecognizer(name, await MoonshineModel.load(config, name, parallel));
  }

  get provider(): "cpu" | "cuda" {
    return this.model.provider;
  }

  /** The segment's token ids, for tests that compare them with a reference decoding. */
  tokens(samples: Float32Array, signal?: AbortSignal): Promise<number[]> {
    return decodeMoonshine(this.model, samples, signal);
  }

  async recognize(samples: Float32Array, signal?: AbortSignal): Promise<RecognizedText> {
    if (samples.length < MOONSHINE_MIN_SECONDS * SPEECH_SAMPLE_RATE) return { text: "" };
    const ids = await decodeMoonshine(this.model, samples, signal);
    return { text: decodeMoonshineTokens(ids, this.model.config.vocabulary).trim() };
  }

  release(): Promise<void> {
    return this.model.release();
  }
}
