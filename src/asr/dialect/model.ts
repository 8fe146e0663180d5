/** The dialect-id session: features in, one logit per label out. */
import { f32, floatData, openSession, type Session } from "../../onnx/runner.ts";
import type { DialectConfig } from "./config.ts";

/** Owns one dialect-id session. */
export class DialectModel {
  private constructor(
    readonly config: DialectConfig,
    private readonly session: Session,
    readonly provider: "cpu" | "cuda",
  ) {}

  /** Opens the pack's model. */
  static async load(config: DialectConfig, label?: string): Promise<DialectModel> {
    const { session, provider } = await openSession(config.modelPath, { label });
    return new DialectModel(config, session, provider);
  }

  /** Logits for features `[featDim, frames]` (frames omitted when pooled). */
  async logits(features: Float32Array, frames: number | null): Promise<Float32Array> {
    const dims = frames === null ? [1, this.config.featDim] : [1, this.config.featDim, frames];
    const out = await this.session.run({ [this.config.inputName]: f32(features, dims) });
    return floatData(out[this.config.outputName], this.config.outputName);
  }

  release(): Promise<void> {
    return this.session.release();
  }
}
