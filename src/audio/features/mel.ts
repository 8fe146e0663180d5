/**
 * Pieces shared by the ASR front ends: Hann windows, STFT reflect padding, the feature matrix
 * layout, and the Slaney-style mel filterbank that librosa.filters.mel builds by default
 * (htk=False, norm="slaney"), which both Whisper (mel_filters.npz) and NeMo (FilterbankFeatures)
 * use. Weights are rounded to float32 as librosa returns them.
 */

/** Hann window of length n. `periodic` (torch default, Whisper) divides by n; symmetric (NeMo) by n-1. */
export function hannWindow(n: number, periodic: boolean): Float64Array {
  const out = new Float64Array(n);
  const denominator = periodic ? n : n - 1;
  if (denominator <= 0) return out.fill(1);
  for (let i = 0; i < n; i++) out[i] = 0.5 - 0.5 * Math.cos((2 * Math.PI * i) / denominator);
  return out;
}

// Slaney's Auditory Toolbox scale: linear below 1 kHz (200/3 Hz per mel), logarithmic above
// (27 mels per factor 6.4).
const F_SP = 200 / 3;
const MIN_LOG_HZ = 1000;
const MIN_LOG_MEL = MIN_LOG_HZ / F_SP;
const LOG_STEP = Math.log(6.4) / 27;

/** Hz → mel on the Slaney scale. */
export function hzToMel(hz: number): number {
  return hz >= MIN_LOG_HZ ? MIN_LOG_MEL + Math.log(hz / MIN_LOG_HZ) / LOG_STEP : hz / F_SP;
}

/** Mel → Hz on the Slaney scale. */
export function melToHz(mel: number): number {
  return mel >= MIN_LOG_MEL ? MIN_LOG_HZ * Math.exp(LOG_STEP * (mel - MIN_LOG_MEL)) : mel * F_SP;
}

/** A mel filterbank stored densely plus, per filter, the range of bins where it is non-zero. */
export interface MelFilterbank {
  readonly nMels: number;
  /** n_fft/2 + 1. */
  readonly nBins: number;
  /** [nMels, nBins] row-major, float32 values. */
  readonly weights: Float32Array;
  /** First non-zero bin of each filter. */
  readonly start: Int32Array;
  /** One past the last non-zero bin of each filter. */
  readonly end: Int32Array;
}

/** Parameters of {@link melFilterbank}. */
export interface MelFilterbankOptions {
  readonly sampleRate: number;
  readonly nFft: number;
  readonly nMels: number;
  readonly fMin?: number;
  /** Defaults to sampleRate / 2. */
  readonly fMax?: number;
}

/**
 * Triangular filters with centres evenly spaced in Slaney mel between fMin and fMax, each scaled
 * by 2 / (upper edge − lower edge) in Hz ("slaney" area normalisation).
 */
export function melFilterbank(options: MelFilterbankOptions): MelFilterbank {
  const { sampleRate, nFft, nMels } = options;
  const fMin = options.fMin ?? 0;
  const fMax = options.fMax ?? sampleRate / 2;
  const nBins = (nFft >> 1) + 1;
  const melMin = hzToMel(fMin);
  const melMax = hzToMel(fMax);
  const edges = new Float64Array(nMels + 2);
  for (let i = 0; i < edges.length; i++) edges[i] = melToHz(melMin + ((melMax - melMin) * i) / (nMels + 1));

  const weights = new Float32Array(nMels * nBins);
  const start = new Int32Array(nMels);
  const end = new Int32Array(nMels);
  for (let m = 0; m < nMels; m++) {
    const lower = edges[m]!;
    const centre = edges[m + 1]!;
    const upper = edges[m + 2]!;
    const norm = 2 / (upper - lower);
    let first = -1;
    let last = -1;
    for (let k = 0; k < nBins; k++) {
      const hz = (k * sampleRate) / nFft;
      const rising = (hz - lower) / (centre - lower);
      const falling = (upper - hz) / (upper - centre);
      const w = Math.max(0, Math.min(rising, falling)) * norm;
      weights[m * nBins + k] = w;
      if (weights[m * nBins + k]! > 0) {
        if (first < 0) first = k;
        last = k;
      }
    }
    start[m] = first < 0 ? 0 : first;
    end[m] = first < 0 ? 0 : last + 1;
  }
  return { nMels, nBins, weights, start, end };
}

/** `out[m] = Σ_k weights[m,k] · power[k]`, touching only each filter's non-zero bins. */
export function applyMelFilterbank(bank: MelFilterbank, power: Float64Array, out: Float64Array): void {
  const { nMels, nBins, weights, start, end } = bank;
  for (let m = 0; m < nMels; m++) {
    let sum = 0;
    const row = m * nBins;
    for (let k = start[m]!; k < end[m]!; k++) sum += weights[row + k]! * power[k]!;
    out[m] = sum;
  }
}

/** A feature matrix laid out [nMels, nFrames] row-major, i.e. the `[1, n_mels, T]` tensor body. */
export interface FeatureMatrix {
  readonly data: Float32Array;
  readonly nMels: number;
  readonly nFrames: number;
}

/**
 * The first `length` samples of `samples` (zero-extended when shorter), with `pad` samples of
 * reflection (edge excluded, as torch's "reflect" mode) on both sides. Reflection bounces back
 * and forth when the signal is shorter than the pad, where torch would refuse.
 */
export function reflectPadded(samples: Float32Array, length: number, pad: number): Float64Array {
  const out = new Float64Array(length + 2 * pad);
  const body = Math.min(length, samples.length);
  for (let i = 0; i < body; i++) out[pad + i] = samples[i]!;
  if (length <= 1) return out;
  const period = 2 * (length - 1);
  const at = (index: number): number => {
    let j = ((index % period) + period) % period;
    if (j >= length) j = period - j;
    return out[pad + j]!;
  };
  for (let i = 1; i <= pad; i++) {
    out[pad - i] = at(-i);
    out[pad + length - 1 + i] = at(length - 1 + i);
  }
  return out;
}
