/** The sine family's "model": an oscillator standing in for an inference session. */
import type { SineConfig } from "./config.ts";

/** Produces a sine tone of the pack's frequency. */
export class SineModel {
  private released = false;

  constructor(private readonly config: SineConfig) {}

  /** `seconds` of tone at the pack's rate. */
  infer(seconds: number): Float32Array {
    if (this.released) throw new Error("sine model released");
    const rate = this.config.facts.sampleRate;
    const out = new Float32Array(Math.round(seconds * rate));
    for (let i = 0; i < out.length; i++) out[i] = 0.5 * Math.sin((2 * Math.PI * this.config.frequencyHz * i) / rate);
    return out;
  }

  /** Frees the "session". */
  release(): void {
    this.released = true;
  }
}
