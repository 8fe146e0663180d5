/**
 * The one streaming resampler of incoming live audio (telephony 8 kHz, browsers' 24/48 kHz…): a
 * windowed-sinc polyphase filter between any two integer rates, fed chunk by chunk. It keeps its
 * own history, so the output of a stream cut into any chunks is sample for sample the output of
 * the whole recording in one push — a stream's finals can then equal a file's result.
 *
 * The ratio is kept as integers (L output phases per M input steps, reduced by their gcd), so a
 * long call never drifts. The low-pass cut-off sits at 90 % of the lower Nyquist frequency; the
 * kernel spans {@link ZERO_CROSSINGS} zero crossings each side (Blackman window).
 */
import { concatSamples } from "./concat.ts";

/** Zero crossings of the sinc kernel on each side of its centre. */
export const ZERO_CROSSINGS = 8;
/** Most phases tabulated; rates whose reduced ratio needs more share the nearest phase. */
const MAX_PHASES = 4096;
/** Cut-off as a fraction of the lower of the two Nyquist frequencies. */
const CUTOFF = 0.9;

const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));

/** The polyphase kernel of one rate pair: `phases` rows of `taps` coefficients. */
interface Kernel {
  readonly up: number;
  readonly down: number;
  readonly half: number;
  readonly phases: number;
  readonly table: Float32Array;
}

const kernels = new Map<string, Kernel>();

function sinc(x: number): number {
  return x === 0 ? 1 : Math.sin(Math.PI * x) / (Math.PI * x);
}

/** Builds (once per rate pair) the filter table; row p holds the taps for a fractional offset p/phases. */
function kernelFor(inRate: number, outRate: number): Kernel {
  const id = `${inRate}:${outRate}`;
  const cached = kernels.get(id);
  if (cached) return cached;
  const g = gcd(inRate, outRate);
  const up = outRate / g;
  const down = inRate / g;
  const scale = Math.min(1, outRate / inRate);
  const cutoff = CUTOFF * scale;
  const half = Math.ceil(ZERO_CROSSINGS / scale);
  const phases = Math.min(up, MAX_PHASES);
  const taps = 2 * half;
  const table = new Float32Array(phases * taps);
  for (let p = 0; p < phases; p++) {
    const frac = p / phases;
    let sum = 0;
    for (let k = 0; k < taps; k++) {
      // Tap k multiplies input sample (pos - half + 1 + k); its distance from the output instant:
      const t = k - half + 1 - frac;
      const w =
        Math.abs(t) >= half
          ? 0
          : 0.42 + 0.5 * Math.cos((Math.PI * t) / half) + 0.08 * Math.cos((2 * Math.PI * t) / half);
      const value = cutoff * sinc(cutoff * t) * w;
      table[p * taps + k] = value;
      sum += value;
    }
    // Unity gain at DC for every phase, so a constant input stays constant.
    for (let k = 0; k < taps; k++) table[p * taps + k]! /= sum;
  }
  const kernel = { up, down, half, phases, table };
  kernels.set(id, kernel);
  return kernel;
}

/** Resamples one live mono stream from `inRate` to `outRate`; see the file comment. */
export class StreamingResampler {
  private readonly kernel: Kernel | null;
  private history: Float32Array;
  /** Samples held in `history` (the first is input sample `base`). */
  private held = 0;
  private base = 0;
  /** Input position (integer part) and phase (of `up`) of the next output sample. */
  private pos = 0;
  private phase = 0;
  private received = 0;
  private produced = 0;
  /** Outputs {@link settle} handed out ahead that the next drains compute again and drop. */
  private skip = 0;
  private flushed = false;

  constructor(
    readonly inRate: number,
    readonly outRate: number,
  ) {
    if (!Number.isInteger(inRate) || !Number.isInteger(outRate) || inRate <= 0 || outRate <= 0) {
      throw new RangeError(`sample rates must be positive integers, got ${inRate} → ${outRate}`);
    }
    this.kernel = inRate === outRate ? null : kernelFor(inRate, outRate);
    const half = this.kernel?.half ?? 0;
    this.history = new Float32Array(Math.max(1024, 4 * half));
    // The first output sample sits on input 0: `half - 1` zeros stand for the audio before it.
    this.base = -(half - 1);
    this.held = half - 1;
  }

  /** Resamples the next chunk; returns the output samples it completes (possibly none). */
  push(chunk: Float32Array): Float32Array {
    if (this.flushed) throw new Error("the resampler was flushed");
    this.received += chunk.length;
    if (!this.kernel) return chunk.slice();
    this.append(chunk);
    return this.skipSettled(this.drain(this.base + this.held));
  }

  /**
   * The outputs still owed for the input so far, computed as if silence followed, without ending
   * the stream: a stream paused at a flush hands out all of its audio now and goes on later. The
   * outputs given here are not produced again, so when silence does follow (the pause between two
   * sentences) the stream is sample for sample the one that never paused; when audio follows at
   * once, the few samples of the kernel's overlap were computed without it.
   */
  settle(): Float32Array {
    if (this.flushed || !this.kernel) return new Float32Array(0);
    const owed = Math.ceil((this.received * this.kernel.up) / this.kernel.down) - this.produced;
    if (owed <= this.skip) return new Float32Array(0);
    // Computed on a copy of the state: the real stream has not seen the silence yet.
    const saved = {
      history: this.history.slice(0, this.held),
      held: this.held,
      base: this.base,
      pos: this.pos,
      phase: this.phase,
      produced: this.produced,
    };
    this.append(new Float32Array(this.kernel.half + 1));
    const ahead = this.drain(this.base + this.held, owed).subarray(this.skip);
    this.history = new Float32Array(Math.max(this.history.length, saved.history.length));
    this.history.set(saved.history);
    ({ held: this.held, base: this.base, pos: this.pos, phase: this.phase, produced: this.produced } = saved);
    this.skip += ahead.length;
    return ahead;
  }

  /** Ends the stream: pads with silence and returns the outputs still owed (the total matches the duration). */
  flush(): Float32Array {
    if (this.flushed) return new Float32Array(0);
    this.flushed = true;
    if (!this.kernel) return new Float32Array(0);
    const owed = Math.ceil((this.received * this.kernel.up) / this.kernel.down) - this.produced;
    if (owed <= 0) return new Float32Array(0);
    this.append(new Float32Array(this.kernel.half + 1));
    return this.skipSettled(this.drain(this.base + this.held, owed));
  }

  /** `out` less the outputs {@link settle} already handed out. */
  private skipSettled(out: Float32Array): Float32Array {
    if (this.skip === 0) return out;
    const dropped = Math.min(this.skip, out.length);
    this.skip -= dropped;
    return out.subarray(dropped);
  }

  private append(chunk: Float32Array): void {
    if (this.held + chunk.length > this.history.length) {
      const grown = new Float32Array(Math.max(this.history.length * 2, this.held + chunk.length));
      grown.set(this.history.subarray(0, this.held));
      this.history = grown;
    }
    this.history.set(chunk, this.held);
    this.held += chunk.length;
  }

  /** Emits every output whose kernel lies inside the input held so far (at most `limit`). */
  private drain(available: number, limit = Infinity): Float32Array {
    const { up, down, half, phases, table } = this.kernel!;
    const taps = 2 * half;
    const out: number[] = [];
    while (out.length < limit && this.pos + half < available) {
      const row = (phases === up ? this.phase : Math.floor((this.phase * phases) / up)) * taps;
      const start = this.pos - half + 1 - this.base;
      let acc = 0;
      for (let k = 0; k < taps; k++) acc += this.history[start + k]! * table[row + k]!;
      out.push(acc);
      this.phase += down;
      this.pos += Math.floor(this.phase / up);
      this.phase %= up;
    }
    this.produced += out.length;
    // Forget input no future output reaches.
    const keepFrom = this.pos - half + 1;
    const drop = Math.min(this.held, keepFrom - this.base);
    if (drop > 0) {
      this.history.copyWithin(0, drop, this.held);
      this.held -= drop;
      this.base += drop;
    }
    return Float32Array.from(out);
  }
}

/** Resamples a whole recording (the same filter as a stream, so both give the same samples). */
export function resampleAll(samples: Float32Array, inRate: number, outRate: number): Float32Array {
  if (inRate === outRate) return samples;
  const resampler = new StreamingResampler(inRate, outRate);
  return concatSamples([resampler.push(samples), resampler.flush()]);
}
