/**
 * CTC recognition of one segment: NeMo fbank features → model → greedy CTC (best class per frame,
 * repeats collapsed, blanks dropped) → text with `▁` as word boundaries, and word times from the
 * frames each word's tokens were emitted on (10 ms hop × subsampling factor).
 */
import { SPEECH_SAMPLE_RATE } from "../../audio/speech-rate.ts";
import { nemoFbank } from "../../audio/features/fbank.ts";
import { argmax } from "../../onnx/runner.ts";
import {
  OFFLINE_CONFORMER_SECONDS,
  type RecognizedText,
  type RecognizeOptions,
  type Recognizer,
} from "../recognizer.ts";
import { marksWordStarts } from "../segmentation/join.ts";
import { isControlToken, timedTokensText, WORD_MARK } from "../timed-tokens.ts";
import { PhraseTokenizer } from "../boost/tokenize.ts";
import type { CtcConfig } from "./config.ts";
import { CtcModel, type CtcOutput } from "./model.ts";
import { biasedCtc } from "./prefix-beam.ts";

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

/**
 * Text and word times of emitted tokens; `frameSeconds` is the output frame duration. A time in
 * `wordBreaks` (seconds, inside a pause the segmentation policy ends an utterance at) that falls
 * between two tokens is a word break even without `▁`: a character model emits nothing in
 * silence, so only the pause tells that the next word began. Shorter pauses (a word spoken
 * slowly) never break a word.
 */
export function ctcText(
  tokens: readonly CtcToken[],
  table: readonly string[],
  frameSeconds: number,
  wordBreaks: readonly number[] = [],
): RecognizedText {
  const timed = tokens.map(({ id, frame }) => ({
    token: table[id] ?? "",
    start: frame * frameSeconds,
    end: (frame + 1) * frameSeconds,
  }));
  return timedTokensText(timed, wordBreaks);
}

/** A NeMo CTC pack as a {@link Recognizer}. */
export class CtcRecognizer implements Recognizer {
  readonly family = "nemo-ctc";
  /** See {@link OFFLINE_CONFORMER_SECONDS}. */
  readonly maxSegmentSeconds = OFFLINE_CONFORMER_SECONDS;

  /** Whether the vocabulary marks word starts (word pieces), so a segment can say it continues a word. */
  private readonly marksStarts: boolean;
  /** Spells boosted phrases in the pack's vocabulary. */
  private readonly phrases: PhraseTokenizer;

  private constructor(
    readonly name: string,
    private readonly model: CtcModel,
  ) {
    this.marksStarts = marksWordStarts(model.config.tokens);
    this.phrases = new PhraseTokenizer(model.config.tokens);
  }

  /** Loads the pack's session. */
  static async load(config: CtcConfig, name: string, parallel = 1): Promise<CtcRecognizer> {
    const label = `${name}/${config.modelPath.split("/").pop()}`;
    return new CtcRecognizer(name, await CtcModel.load(config, label, parallel));
  }

  get provider(): "cpu" | "cuda" {
    return this.model.provider;
  }

  async recognize(
    samples: Float32Array,
    signal?: AbortSignal,
    options: RecognizeOptions = {},
  ): Promise<RecognizedText> {
    const { config } = this.model;
    const features = nemoFbank(samples, { nMels: config.featDim, normalize: config.normalize });
    if (features.validFrames === 0) return { text: "", words: [] };
    signal?.throwIfAborted();
    const output = await this.model.run(features.data, features.nFrames, features.validFrames);
    const factor = config.subsamplingFactor ?? Math.max(1, Math.round(features.nFrames / Math.max(1, output.frames)));
    const tokens = this.search(output, options);
    const text = ctcText(tokens, config.tokens, factor * FRAME_SECONDS, options.wordBreaks);
    const first = tokens.map((t) => config.tokens[t.id] ?? "").find((token) => token !== "" && !isControlToken(token));
    const continuesWord = this.marksStarts && first !== undefined && !first.startsWith(WORD_MARK);
    return continuesWord ? { ...text, continuesWord } : text;
  }

  /**
   * Greedy CTC; with boosted phrases the biased prefix beam search, whose text is kept only when
   * it spells one of them, so a list that matches nothing leaves the greedy text as it was.
   */
  private search(output: CtcOutput, options: RecognizeOptions): CtcToken[] {
    const greedy = greedyCtc(output, this.model.config.blankId);
    const graph = this.phrases.graph(options.hotwords);
    if (graph === null) return greedy;
    const biased = biasedCtc(output, this.model.config.blankId, graph);
    return biased.matched ? biased.tokens : greedy;
  }

  release(): Promise<void> {
    return this.model.release();
  }
}
