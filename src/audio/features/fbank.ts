/**
 * NeMo's `AudioToMelSpectrogramPreprocessor` (FilterbankFeatures) at inference: preemphasis,
 * centred STFT (n_fft 512, 25 ms window, 10 ms hop), power spectrum, Slaney mel filterbank,
 * natural log with an additive guard, per-feature normalisation over the valid frames.
 *
 * Choices that follow NeMo's code rather than intuition:
 * - The window is `torch.hann_window(win_length, periodic=False)`: a *symmetric* Hann of 400,
 *   centred inside the 512-point frame (56 zeros each side), as torch.stft pads a short window.
 * - Centre padding: NeMo 2.x passes `pad_mode="constant"` (zeros); NeMo 1.x left torch's default
 *   "reflect". Both are offered; the default is the current one.
 * - The valid length is ⌊samples / hop⌋ (NeMo 2.x `get_seq_len`); the STFT gives one frame more,
 *   which is zeroed (pad_value 0) like NeMo's mask does and excluded from the statistics.
 * - Dither is a training-time augmentation (NeMo applies it only when `self.training`): none here.
 * - per_feature std is torch's unbiased one (n − 1), then + 1e-5.
 */
import { SPEECH_SAMPLE_RATE } from "../speech-rate.ts";
import { createRealFft } from "./fft.ts";
import {
  applyMelFilterbank,
  hannWindow,
  melFilterbank,
  reflectPadded,
  type FeatureMatrix,
  type MelFilterbank,
} from "./mel.ts";

/** Options of {@link nemoFbank}; defaults are the usual Conformer/FastConformer CTC config. */
export interface FbankOptions {
  readonly sampleRate?: number;
  readonly nMels?: number;
  readonly nFft?: number;
  readonly winLength?: number;
  readonly hop?: number;
  /** Preemphasis coefficient; 0 disables it. Default 0.97. */
  readonly preemphasis?: number;
  /** Default "per_feature". */
  readonly normalize?: "per_feature" | "none";
  /** Default "constant" (NeMo 2.x). */
  readonly padMode?: "constant" | "reflect";
  /** Added before the log. Default 2^-24. */
  readonly logGuard?: number;
}

/** NeMo features plus the length the model's `length` input takes. */
export interface FbankFeatures extends FeatureMatrix {
  /** Frames that carry audio (⌊samples / hop⌋); the rest are zero padding. */
  readonly validFrames: number;
}

const banks = new Map<string, MelFilterbank>();

/** Computes NeMo-style log-mel features of mono audio, laid out [nMels, nFrames]. */
export function nemoFbank(samples: Float32Array, options: FbankOptions = {}): FbankFeatures {
  const sampleRate = options.sampleRate ?? SPEECH_SAMPLE_RATE;
  const nMels = options.nMels ?? 80;
  const nFft = options.nFft ?? 512;
  const winLength = options.winLength ?? 400;
  const hop = options.hop ?? 160;
  const coefficient = options.preemphasis ?? 0.97;
  const guard = options.logGuard ?? 2 ** -24;
  if (winLength > nFft) throw new RangeError("winLength must not exceed nFft");

  const nFrames = 1 + Math.floor(samples.length / hop);
  const validFrames = Math.floor(samples.length / hop);
  const data = new Float32Array(nMels * nFrames);

  const emphasised = new Float32Array(samples.length);
  if (samples.length > 0) emphasised[0] = samples[0]!;
  for (let i = 1; i < samples.length; i++) emphasised[i] = samples[i]! - coefficient * samples[i - 1]!;

  const half = nFft >> 1;
  const padded =
    options.padMode === "reflect" ? reflectPadded(emphasised, emphasised.length, half) : zeroPadded(emphasised, half);
  const window = new Float64Array(nFft);
  window.set(hannWindow(winLength, false), (nFft - winLength) >> 1);
  const key = `${sampleRate}/${nFft}/${nMels}`;
  let bank = banks.get(key);
  if (bank === undefined) {
    bank = melFilterbank({ sampleRate, nFft, nMels });
    banks.set(key, bank);
  }

  const fft = createRealFft(nFft);
  const frame = new Float64Array(nFft);
  const power = new Float64Array(fft.bins);
  const mel = new Float64Array(nMels);
  for (let t = 0; t < validFrames; t++) {
    const offset = t * hop;
    for (let i = 0; i < nFft; i++) frame[i] = padded[offset + i]! * window[i]!;
    fft.power(frame, power);
    applyMelFilterbank(bank, power, mel);
    for (let m = 0; m < nMels; m++) data[m * nFrames + t] = Math.log(mel[m]! + guard);
  }
  if ((options.normalize ?? "per_feature") === "per_feature") normalizePerFeature(data, nMels, nFrames, validFrames);
  return { data, nMels, nFrames, validFrames };
}

function zeroPadded(samples: Float32Array, pad: number): Float64Array {
  const out = new Float64Array(samples.length + 2 * pad);
  for (let i = 0; i < samples.length; i++) out[pad + i] = samples[i]!;
  return out;
}

/** (x − mean) / (std + 1e-5) per mel row over the first `valid` frames, in place. */
function normalizePerFeature(data: Float32Array, nMels: number, nFrames: number, valid: number): void {
  if (valid === 0) return;
  for (let m = 0; m < nMels; m++) {
    const row = m * nFrames;
    let sum = 0;
    for (let t = 0; t < valid; t++) sum += data[row + t]!;
    const mean = sum / valid;
    let squares = 0;
    for (let t = 0; t < valid; t++) squares += (data[row + t]! - mean) ** 2;
    // NeMo raises on a single frame (torch.std gives NaN); dividing by max(n − 1, 1) yields zeros instead.
    const std = Math.sqrt(squares / Math.max(valid - 1, 1)) + 1e-5;
    for (let t = 0; t < valid; t++) data[row + t] = (data[row + t]! - mean) / std;
  }
}
