/**
 * Dialect identification of a stretch of speech: fbank features of (at most `max_seconds` of) the
 * audio, pooled when the model wants one vector, → logits → the best label. The service combines
 * the logits of several stretches into one decision per call (./call.ts).
 */
import { SPEECH_SAMPLE_RATE } from "../../audio/speech-rate.ts";
import { nemoFbank } from "../../audio/features/fbank.ts";
import { argmax } from "../../onnx/runner.ts";
import type { DialectIdentifier } from "../recognizer.ts";
import type { DialectConfig } from "./config.ts";
import { DialectModel } from "./model.ts";

/** Mean over the first `valid` frames of each row of `[rows, frames]`. */
function meanPool(data: Float32Array, rows: number, frames: number, valid: number): Float32Array {
  const out = new Float32Array(rows);
  for (let r = 0; r < rows; r++) {
    let sum = 0;
    for (let t = 0; t < valid; t++) sum += data[r * frames + t]!;
    out[r] = sum / Math.max(1, valid);
  }
  return out;
}

/** The first `valid` frames of each row of `[rows, frames]`, packed as `[rows, valid]`. */
function validFrames(data: Float32Array, rows: number, frames: number, valid: number): Float32Array {
  const out = new Float32Array(rows * valid);
  for (let r = 0; r < rows; r++) out.set(data.subarray(r * frames, r * frames + valid), r * valid);
  return out;
}

/** A dialect-id pack as a {@link DialectIdentifier}. */
export class DialectPipeline implements DialectIdentifier {
  private constructor(
    readonly name: string,
    private readonly model: DialectModel,
  ) {}

  /** Loads the pack's session. */
  static async load(config: DialectConfig, name: string): Promise<DialectPipeline> {
    return new DialectPipeline(name, await DialectModel.load(config, `${name}/${config.modelPath.split("/").pop()}`));
  }

  get labels(): readonly string[] {
    return this.model.config.labels;
  }

  get provider(): "cpu" | "cuda" {
    return this.model.provider;
  }

  get maxSeconds(): number {
    return this.model.config.maxSeconds;
  }

  async identify(samples: Float32Array, signal?: AbortSignal): Promise<string | null> {
    const logits = await this.logits(samples, signal);
    if (logits === null) return null;
    const best = argmax(logits, 0, Math.min(logits.length, this.labels.length));
    return best < 0 ? null : this.labels[best]!;
  }

  async logits(samples: Float32Array, signal?: AbortSignal): Promise<Float32Array | null> {
    const { config } = this.model;
    const audio = samples.subarray(0, config.maxSeconds * SPEECH_SAMPLE_RATE);
    const features = nemoFbank(audio, { nMels: config.featDim, normalize: config.normalize });
    if (features.validFrames === 0) return null;
    signal?.throwIfAborted();
    const logits = config.pooled
      ? await this.model.logits(meanPool(features.data, features.nMels, features.nFrames, features.validFrames), null)
      : await this.model.logits(
          validFrames(features.data, features.nMels, features.nFrames, features.validFrames),
          features.validFrames,
        );
    return logits.slice(0, config.labels.length);
  }

  release(): Promise<void> {
    return this.model.release();
  }
}
