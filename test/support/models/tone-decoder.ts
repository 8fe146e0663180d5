/**
 * Reads the tone voice's audio back into phoneme ids, segment length and speaker amplitude, so a
 * test can check what the service fed the model (ids, length_scale, sid) from the audio alone.
 */
import { maxToneId, TONE, toneBaseSamples, toneFrequency, toneSegmentSamples } from "./tone-voice.ts";

/** Options of {@link decodeToneAudio}. */
export interface ToneDecodeOptions {
  /** Segment length at length_scale 1; default {@link toneBaseSamples} of the rate. */
  readonly baseSamples?: number;
  /** The length_scale the audio was made with; when omitted the segment length is estimated. */
  readonly lengthScale?: number;
}

/** What {@link decodeToneAudio} recovered. */
export interface DecodedTones {
  /** One id per segment. */
  readonly ids: number[];
  /** Samples per segment (the graph's L). */
  readonly segmentSamples: number;
  /** Tone amplitude per segment; see {@link sidFromAmplitude}. */
  readonly amplitude: number[];
}

/**
 * Splits `samples` into segments and names each segment's tone. With `lengthScale` the segment
 * length is the graph's; without it, {@link estimateSegmentSamples} is snapped to a length that
 * divides the audio evenly, which is exact for audio straight from the model.
 */
export function decodeToneAudio(
  samples: Float32Array,
  sampleRate: number,
  options: ToneDecodeOptions = {},
): DecodedTones {
  const base = options.baseSamples ?? toneBaseSamples(sampleRate);
  const segment =
    options.lengthScale !== undefined
      ? toneSegmentSamples(base, options.lengthScale)
      : snapToLength(estimateSegmentSamples(samples, sampleRate), samples.length);
  const ids: number[] = [];
  const amplitude: number[] = [];
  const count = Math.round(samples.length / segment);
  for (let k = 0; k < count; k++) {
    const start = k * segment;
    const end = Math.min(samples.length, start + segment);
    // Skip 5% at each edge so that smearing at boundaries (resampling, codecs) does not decide.
    const trim = Math.floor((end - start) * 0.05);
    const id = strongestTone(samples, start + trim, end - trim, sampleRate);
    ids.push(id);
    amplitude.push(fitTone(samples, start + trim, end - trim, toneFrequency(id), sampleRate, start).amplitude);
  }
  return { ids, segmentSamples: segment, amplitude };
}

/**
 * Estimates the segment length from where the first tone stops: fits the first 10 ms, then finds
 * the first sample that departs from that sinusoid. Within a sample or two of the true length
 * for model output; the whole length when the audio never changes tone. The first two ids must
 * differ (Piper sequences start `^ _`, so they do).
 */
export function estimateSegmentSamples(samples: Float32Array, sampleRate: number): number {
  const probe = Math.min(samples.length, Math.round(sampleRate / TONE.STEP_HZ));
  if (probe < 8) return samples.length;
  const f = toneFrequency(strongestTone(samples, 0, probe, sampleRate));
  const fit = fitTone(samples, 0, probe, f, sampleRate, 0);
  const w = (2 * Math.PI * f) / sampleRate;
  const tolerance = 0.01 * fit.amplitude + 1e-4;
  const zero = Math.min(5e-4, tolerance / 3);
  for (let t = probe; t < samples.length; t++) {
    const predicted = fit.sin * Math.sin(w * t) + fit.cos * Math.cos(w * t);
    if (Math.abs((samples[t] as number) - predicted) <= tolerance) continue;
    // Every segment starts at phase 0. If the old tone was crossing zero there too, the first
    // mismatch shows one sample late; the exact zero at the new segment's start gives it away.
    if (Math.abs(samples[t] as number) > zero && Math.abs(samples[t - 1] as number) <= zero) return t - 1;
    return t;
  }
  return samples.length;
}

/** The speaker id whose amplitude is closest to `amplitude`. */
export function sidFromAmplitude(amplitude: number): number {
  return Math.round((amplitude - TONE.AMPLITUDE) / TONE.AMPLITUDE_STEP);
}

function snapToLength(estimate: number, total: number): number {
  const count = Math.max(1, Math.round(total / estimate));
  return total % count === 0 ? total / count : estimate;
}

/** The id whose tone has the most energy in `[from, to)` (Goertzel at each candidate). */
function strongestTone(x: Float32Array, from: number, to: number, sampleRate: number): number {
  let best = 0;
  let bestPower = -1;
  for (let id = 0; id <= maxToneId(sampleRate); id++) {
    const c = 2 * Math.cos((2 * Math.PI * toneFrequency(id)) / sampleRate);
    let s1 = 0;
    let s2 = 0;
    for (let i = from; i < to; i++) {
      const s0 = (x[i] as number) + c * s1 - s2;
      s2 = s1;
      s1 = s0;
    }
    const power = s1 * s1 + s2 * s2 - c * s1 * s2;
    if (power > bestPower) {
      bestPower = power;
      best = id;
    }
  }
  return best;
}

/**
 * Least-squares fit of `sin·sin(ω(t−origin)) + cos·cos(ω(t−origin))` over `[from, to)`: exact for
 * a pure tone whatever the window, unlike an FFT bin's magnitude.
 */
function fitTone(
  x: Float32Array,
  from: number,
  to: number,
  freq: number,
  sampleRate: number,
  origin: number,
): { sin: number; cos: number; amplitude: number } {
  const w = (2 * Math.PI * freq) / sampleRate;
  let ss = 0;
  let cc = 0;
  let sc = 0;
  let xs = 0;
  let xc = 0;
  for (let t = from; t < to; t++) {
    const s = Math.sin(w * (t - origin));
    const c = Math.cos(w * (t - origin));
    const v = x[t] as number;
    ss += s * s;
    cc += c * c;
    sc += s * c;
    xs += v * s;
    xc += v * c;
  }
  const det = ss * cc - sc * sc;
  if (Math.abs(det) < 1e-12) return { sin: 0, cos: 0, amplitude: 0 };
  const sin = (xs * cc - xc * sc) / det;
  const cos = (xc * ss - xs * sc) / det;
  return { sin, cos, amplitude: Math.hypot(sin, cos) };
}
