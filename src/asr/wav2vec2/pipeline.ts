/**
 * wav2vec2-family CTC recognition of one segment: raw audio (zero-mean, unit-variance when the
 * pack's preprocessor says `do_normalize`, as transformers.js's Wav2Vec2FeatureExtractor does) →
 * model → greedy CTC (the NeMo CTC family's: best token per frame, repeats collapsed, the pad
 * token as blank) → characters joined into words at the `|` delimiter, each word timed by the
 * frames its characters were emitted on (320 samples per frame). A pause the segmentation policy
 * ends an utterance at also breaks a word (../ctc/pipeline.ts ctcText).
 */
import { SPEECH_SAMPLE_RATE } from "../../audio/speech-rate.ts";
import { f32, floatData, i64, openSession, packLabel, type Session } from "../../onnx/runner.ts";
import { ctcText, greedyCtc } from "../ctc/pipeline.ts";
import { MAX_SEGMENT_SECONDS, type RecognizedText, type RecognizeOptions, type Recognizer } from "../recognizer.ts";
import type { Wav2Vec2Config } from "./config.ts";

/** Zero-mean, unit-variance copy of `samples` (variance floor 1e-7, as the reference extractor). */
export function normalizeInput(samples: Float32Array): Float32Array {
  let sum = 0;
  for (const x of samples) sum += x;
  const mean = sum / samples.length;
  let variance = 0;
  for (const x of samples) variance += (x - mean) ** 2;
  const scale = 1 / Math.sqrt(variance / samples.length + 1e-7);
  return samples.map((x) => (x - mean) * scale);
}

/** A wav2vec2 CTC pack as a {@link Recognizer}. */
export class Wav2Vec2Recognizer implements Recognizer {
  readonly family = "wav2vec2-ctc";
  /** Full self-attention over the whole input: 30 s keeps memory and accuracy where the models were trained. */
  readonly maxSegmentSeconds = MAX_SEGMENT_SECONDS;

  private constructor(
    readonly name: string,
    private readonly config: Wav2Vec2Config,
    private readonly session: Session,
    readonly provider: "cpu" | "cuda",
  ) {}

  /** Opens the pack's model. */
  static async load(config: Wav2Vec2Config, name: string, parallel = 1): Promise<Wav2Vec2Recognizer> {
    const { session, provider } = await openSession(config.modelPath, {
      label: packLabel(name, config.modelPath),
      parallel,
    });
    return new Wav2Vec2Recognizer(name, config, session, provider);
  }

  async recognize(
    samples: Float32Array,
    signal?: AbortSignal,
    options: RecognizeOptions = {},
  ): Promise<RecognizedText> {
    const { config } = this;
    // The feature encoder needs at least one frame's receptive field (400 samples).
    if (samples.length < 400) return { text: "", words: [] };
    const input = config.normalize ? normalizeInput(samples) : samples;
    const feeds = {
      input_values: f32(input, [1, input.length]),
      ...(config.attentionMask
        ? { attention_mask: i64(new BigInt64Array(input.length).fill(1n), [1, input.length]) }
        : {}),
    };
    signal?.throwIfAborted();
    const out = await this.session.run(feeds);
    const logits = floatData(out.logits, "logits");
    const [, frames = 0, vocab = 0] = out.logits!.dims;
    if (vocab !== config.pieces.length)
      throw new Error(`logits have ${vocab} entries per frame, vocab.json ${config.pieces.length}`);
    const tokens = greedyCtc({ logprobs: logits, frames, vocab }, config.blankId);
    return ctcText(tokens, config.pieces, config.frameSamples / SPEECH_SAMPLE_RATE, options.wordBreaks);
  }

  release(): Promise<void> {
    return this.session.release();
  }
}
