/** The NeMo CTC session: features in, per-frame log-probabilities out. */
import { f32, floatData, i64, openSession, type Session } from "../../onnx/runner.ts";
import type { CtcConfig } from "./config.ts";

/** Per-frame log-probabilities `[frames, vocab]` row-major. */
export interface CtcOutput {
  readonly logprobs: Float32Array;
  readonly frames: number;
  readonly vocab: number;
}

/** Owns one CTC model session. */
export class CtcModel {
  private constructor(
    readonly config: CtcConfig,
    private readonly session: Session,
    readonly provider: "cpu" | "cuda",
  ) {}

  /** Opens the pack's model. */
  static async load(config: CtcConfig, label?: string, parallel = 1): Promise<CtcModel> {
    const { session, provider } = await openSession(config.modelPath, { label, parallel });
    return new CtcModel(config, session, provider);
  }

  /** Runs features laid out `[featDim, frames]` of which `validFrames` carry audio. */
  async run(features: Float32Array, frames: number, validFrames: number): Promise<CtcOutput> {
    const out = await this.session.run({
      audio_signal: f32(features, [1, this.config.featDim, frames]),
      length: i64([validFrames], [1]),
    });
    const tensor = out.logprobs;
    const data = floatData(tensor, "logprobs");
    const dims = tensor!.dims;
    if (dims.length !== 3 || dims[2] !== this.config.tokens.length) {
      throw new Error(`logprobs has shape [${dims.join(", ")}], expected [1, T, ${this.config.tokens.length}]`);
    }
    return { logprobs: data, frames: dims[1]!, vocab: dims[2]! };
  }

  release(): Promise<void> {
    return this.session.release();
  }
}
