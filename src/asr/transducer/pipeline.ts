/**
 * Greedy decoding of offline NeMo transducers, step for step as sherpa-onnx does it:
 * - the prediction network starts from the blank token and zero states;
 * - RNNT: per encoder frame, up to 10 symbols: the joiner's best token; a blank moves to the next
 *   frame, any other token is emitted and the prediction network is re-run on it (new output and
 *   states carried on);
 * - TDT: the joiner's outputs past the vocabulary are duration logits; per step the best token
 *   and the best duration (an index, 0 allowed); a token is emitted (and predicted on) unless
 *   blank; the frame advances by the duration, except that a blank with duration 0 or a fifth
 *   token on one frame advances by 1.
 * Word times come from the frame each token was emitted on (10 ms × subsampling factor); a TDT
 * token lasts its duration.
 */
import { SPEECH_SAMPLE_RATE } from "../../audio/speech-rate.ts";
import { nemoFbank } from "../../audio/features/fbank.ts";
import { argmax, openSession, packLabel } from "../../onnx/runner.ts";
import { PhraseTokenizer } from "../boost/tokenize.ts";
import {
  OFFLINE_CONFORMER_SECONDS,
  type RecognizedText,
  type RecognizeOptions,
  type Recognizer,
} from "../recognizer.ts";
import { timedTokensText } from "../timed-tokens.ts";
import { biasedRnnt, biasedTdt } from "./beam.ts";
import { tdtAdvance, type TdtFrame } from "./tdt.ts";
import type { TransducerConfig } from "./config.ts";
import {
  openJoint,
  TransducerEncoder,
  type PredictionJoint,
  type PredictorOutput,
  type TransducerJoint,
} from "./model.ts";

/** Seconds between feature frames (hop 160 at 16 kHz). */
export const FEATURE_FRAME_SECONDS = 160 / SPEECH_SAMPLE_RATE;
/** sherpa-onnx's symbol limit per frame for RNNT. */
export const RNNT_MAX_SYMBOLS_PER_FRAME = 10;

/** One emitted token: its id, frame and (TDT) duration in frames. */
export interface TransducerToken {
  readonly id: number;
  readonly frame: number;
  readonly duration: number;
}

/**
 * Greedy RNNT search that can be fed encoder frames in pieces (the streaming transducer feeds it
 * chunk by chunk, carrying the prediction network's output and states across chunks as
 * sherpa-onnx's online search does).
 */
export class RnntSearch {
  readonly tokens: TransducerToken[] = [];
  private predicted: PredictorOutput | undefined;

  constructor(
    private readonly joint: TransducerJoint,
    private readonly blankId: number,
  ) {}

  /** Searches `frames`, the first of which is frame `offset` of the stream. */
  async push(frames: readonly Float32Array[], offset: number, signal?: AbortSignal): Promise<void> {
    const { joint, blankId } = this;
    let predicted = (this.predicted ??= await joint.predict(blankId, joint.initialStates()));
    for (const [t, frame] of frames.entries()) {
      signal?.throwIfAborted();
      for (let symbol = 0; symbol < RNNT_MAX_SYMBOLS_PER_FRAME; symbol++) {
        const logits = await joint.join(frame, predicted.out);
        const y = argmax(logits, 0, blankId + 1);
        if (y === blankId) break;
        this.tokens.push({ id: y, frame: offset + t, duration: 1 });
        predicted = await joint.predict(y, predicted.states);
      }
    }
    this.predicted = predicted;
  }
}

/** Greedy RNNT search over encoder frames. */
export async function greedyRnnt(
  frames: readonly Float32Array[],
  joint: TransducerJoint,
  blankId: number,
  signal?: AbortSignal,
) {
  const search = new RnntSearch(joint, blankId);
  await search.push(frames, 0, signal);
  return search.tokens;
}

/** Greedy TDT search over encoder frames. */
export async function greedyTdt(
  frames: readonly Float32Array[],
  joint: TransducerJoint,
  blankId: number,
  signal?: AbortSignal,
) {
  const vocab = blankId + 1;
  const tokens: TransducerToken[] = [];
  let predicted = await joint.predict(blankId, joint.initialStates());
  const frame: TdtFrame = { tokens: 0 };
  for (let t = 0; t < frames.length; ) {
    signal?.throwIfAborted();
    const logits = await joint.join(frames[t]!, predicted.out);
    const y = argmax(logits, 0, vocab);
    const duration = argmax(logits, vocab, logits.length);
    if (y !== blankId) {
      tokens.push({ id: y, frame: t, duration });
      predicted = await joint.predict(y, predicted.states);
    }
    t += tdtAdvance(frame, y !== blankId, duration);
  }
  return tokens;
}

/** Text and word times of emitted tokens; `frameSeconds` is one encoder frame. */
export function transducerText(
  tokens: readonly TransducerToken[],
  table: readonly string[],
  frameSeconds: number,
): RecognizedText {
  return timedTokensText(
    tokens.map(({ id, frame, duration }) => ({
      token: table[id] ?? "",
      start: frame * frameSeconds,
      end: (frame + Math.max(1, duration)) * frameSeconds,
    })),
  );
}

/** An offline NeMo transducer pack as a {@link Recognizer}. */
export class TransducerRecognizer implements Recognizer {
  readonly maxSegmentSeconds = OFFLINE_CONFORMER_SECONDS;
  /** Spells boosted phrases in the pack's vocabulary. */
  private readonly phrases: PhraseTokenizer;

  private constructor(
    readonly name: string,
    readonly config: TransducerConfig,
    readonly encoder: TransducerEncoder,
    readonly joint: PredictionJoint,
    readonly provider: "cpu" | "cuda",
  ) {
    this.phrases = new PhraseTokenizer(config.tokens);
  }

  /** `nemo-transducer` or `nemo-tdt`. */
  get family(): string {
    return this.config.tdt ? "nemo-tdt" : "nemo-transducer";
  }

  /** Opens the three sessions. */
  static async load(config: TransducerConfig, name: string, parallel = 1): Promise<TransducerRecognizer> {
    const encoder = await openSession(config.encoderPath, { label: packLabel(name, config.encoderPath), parallel });
    try {
      const { joint, provider } = await openJoint(
        { decoder: config.decoderPath, joiner: config.joinerPath },
        config.predRnnLayers,
        config.predHidden,
        name,
        parallel,
      );
      const both = provider === "cuda" && encoder.provider === "cuda" ? "cuda" : "cpu";
      return new TransducerRecognizer(name, config, new TransducerEncoder(encoder.session), joint, both);
    } catch (error) {
      await encoder.session.release();
      throw error;
    }
  }

  /** The encoder frames of one segment (tests run deliberately wrong searches over them). */
  async encode(samples: Float32Array): Promise<Float32Array[]> {
    const { config } = this;
    const features = nemoFbank(samples, { nMels: config.featDim, normalize: config.normalize });
    if (features.validFrames === 0) return [];
    return this.encoder.run(features.data, config.featDim, features.nFrames, features.validFrames);
  }

  async recognize(
    samples: Float32Array,
    signal?: AbortSignal,
    options: RecognizeOptions = {},
  ): Promise<RecognizedText> {
    const frames = await this.encode(samples);
    signal?.throwIfAborted();
    const tokens = await this.search(frames, options, signal);
    return transducerText(tokens, this.config.tokens, this.config.subsamplingFactor * FEATURE_FRAME_SECONDS);
  }

  /**
   * Greedy search; with boosted phrases the biased search (./beam.ts). Its text differs from
   * greedy's only when it spells one of them (RNNT: by construction; TDT: greedy's text is taken
   * when it does not), so a list that matches nothing leaves the text as it was.
   */
  private async search(frames: readonly Float32Array[], options: RecognizeOptions, signal?: AbortSignal) {
    const { tdt, blankId } = this.config;
    const greedy = () => (tdt ? greedyTdt : greedyRnnt)(frames, this.joint, blankId, signal);
    const graph = this.phrases.graph(options.hotwords);
    if (graph === null) return greedy();
    if (!tdt) return (await biasedRnnt(frames, this.joint, blankId, graph, RNNT_MAX_SYMBOLS_PER_FRAME, signal)).tokens;
    const biased = await biasedTdt(frames, this.joint, blankId, graph, signal);
    return biased.matched ? biased.tokens : greedy();
  }

  async release(): Promise<void> {
    await Promise.all([this.encoder.release(), this.joint.release()]);
  }
}
