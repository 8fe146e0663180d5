/**
 * CTC recognition of one segment: NeMo fbank features → model → greedy CTC (best class per frame,
 * repeats collapsed, blanks dropped) → text with `▁` as word boundaries, and word times from the
 * frames each word's tokens were emitted on (10 ms hop × subsampling factor).
 */
import { SPEECH_SAMPLE_RATE } from "../../audio/speech-rate.ts";
import { nemoFbank } from "../features/fbank.ts";
import { argmax } from "../onnx.ts";
import { OFFLINE_CONFORMER_SECONDS, type RecognizedText, type Recognizer } from "../recognizer.ts";
import { timedPiecesText } from "../timed-pieces.ts";
import type { CtcConfig } from "./config.ts";
import { CtcModel, type CtcOutput } from "./model.ts";

/** Seconds between feature frames (hop 160 at 16 kHz). */
const FRAME_SECONDS = 160 / SPEECH_SAMPLE_RATE;
/** One emitted token and the output frame it was emitted on. */
export interface CtcToken {
  readonly id: number;
  readonly frame: number;
}

/** Greedy CTC over `[frames, vocab]` log-probabilities: argmax per frame, collapse repeats, drop blanks. */
export function greedyCtc(output: CtcOutput, blankId: number): CtcToken[] {
  const tokens: CtcToken[] = [];
  let previous = -1;
  for (let t = 0; t < output.frames; t++) {
    const id = argmax(output.logprobs, t * output.vocab, (t + 1) * output.vocab);
    if (id !== blankId && id !== previous) tokens.push({ id, frame: t });
    previous = id;
  }
  return tokens;
}

/** Text and word times of emitted tokens; `frameSeconds` is the output frame duration. */
export function ctcText(tokens: readonly CtcToken[], table: readonly string[], frameSeconds: number): RecognizedText {
  return timedPiecesText(
    tokens.map(({ id, frame }) => ({ piece: table[id] ?? "", start: frame * frameSeconds, end: (frame + 1) * frameSeconds })),
  );
}

/** A NeMo CTC pack as a {@link Recognizer}. */
export class CtcRecognizer implements Recognizer {
  readonly family = "nemo-ctc";
  /** See {@link OFFLINE_CONFORMER_SECONDS}. */
  readonly maxSegmentSeconds = OFFLINE_CONFORMER_SECONDS;

  private constructor(
    readonly name: string,
    private readonly model: CtcModel,
  ) {}

  /** Loads the pack's session. */
  static async load(config: CtcConfig, name: string): Promise<CtcRecognizer> {
    return new CtcRecognizer(name, await CtcModel.load(config, `${name}/${config.modelPath.split("/").pop()}`));
  }

  get provider(): "cpu" | "cuda" {
    return this.model.provider;
  }

  async recognize(samples: Float32Array, signal?: AbortSignal): Promise<RecognizedText> {
    const { config } = this.model;
    const features = nemoFbank(samples, { nMels: config.featDim, normalize: config.normalize });
    if (features.validFrames === 0) return { text: "", words: [] };
    signal?.throwIfAborted();
    const output = await this.model.run(features.data, features.nFrames, features.validFrames);
    const factor = config.subsamplingFactor ?? Math.max(1, Math.round(features.nFrames / Math.max(1, output.frames)));
    return ctcText(greedyCtc(output, config.blankId), config.tokens, factor * FRAME_SECONDS);
  }

  release(): Promise<void> {
    return this.model.release();
  }
}
