/**
 * Whisper's log-mel spectrogram, as openai-whisper's `log_mel_spectrogram` computes it on audio
 * padded or trimmed to the encoder window: exact 400-point STFT (periodic Hann, hop 160,
 * center=True with reflect padding, last frame dropped), power |X|², Slaney mel filterbank,
 * log10(max(x, 1e-10)), clamp to (global max − 8), then (x + 4) / 4.
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

/** STFT size of Whisper's front end. */
export const WHISPER_N_FFT = 400;
/** Hop between frames (10 ms). */
export const WHISPER_HOP = 160;
/** Frames in the 30 s encoder window. */
export const WHISPER_N_FRAMES = 3000;

/** Options of {@link whisperLogMel}. */
export interface WhisperMelOptions {
  /** 80 (most models) or 128 (large-v3); from the encoder's `n_mels` metadata. */
  readonly nMels: number;
  /**
   * Pad (zeros) or trim the audio to `nFrames · 160` samples so exactly `nFrames` frames come out;
   * default 3000 (30 s, what the encoder's `mel` input expects). `null` keeps the audio's own
   * length: ⌊samples / 160⌋ frames.
   */
  readonly nFrames?: number | null;
}

const banks = new Map<number, MelFilterbank>();

function whisperBank(nMels: number): MelFilterbank {
  let bank = banks.get(nMels);
  if (bank === undefined) {
    bank = melFilterbank({ sampleRate: SPEECH_SAMPLE_RATE, nFft: WHISPER_N_FFT, nMels });
    banks.set(nMels, bank);
  }
  return bank;
}

/** Computes Whisper's normalised log-mel features of 16 kHz mono audio. */
export function whisperLogMel(samples: Float32Array, options: WhisperMelOptions): FeatureMatrix {
  const { nMels } = options;
  if (!Number.isInteger(nMels) || nMels < 1) throw new RangeError(`nMels must be a positive integer, got ${nMels}`);
  const target = options.nFrames === undefined ? WHISPER_N_FRAMES : options.nFrames;
  const length = target === null ? samples.length : target * WHISPER_HOP;
  const nFrames = Math.floor(length / WHISPER_HOP);
  const data = new Float32Array(nMels * nFrames);
  if (nFrames === 0) return { data, nMels, nFrames };

  const padded = reflectPadded(samples, length, WHISPER_N_FFT >> 1);
  const window = hannWindow(WHISPER_N_FFT, true);
  const fft = createRealFft(WHISPER_N_FFT);
  const bank = whisperBank(nMels);
  const frame = new Float64Array(WHISPER_N_FFT);
  const power = new Float64Array(fft.bins);
  const mel = new Float64Array(nMels);
  const logMel = new Float64Array(nMels * nFrames);
  let max = Number.NEGATIVE_INFINITY;

  // torch.stft(center=True) yields 1 + length/hop frames; Whisper drops the last one.
  for (let t = 0; t < nFrames; t++) {
    const offset = t * WHISPER_HOP;
    for (let i = 0; i < WHISPER_N_FFT; i++) frame[i] = padded[offset + i]! * window[i]!;
    fft.power(frame, power);
    applyMelFilterbank(bank, power, mel);
    for (let m = 0; m < nMels; m++) {
      const value = Math.log10(Math.max(mel[m]!, 1e-10));
      logMel[m * nFrames + t] = value;
      if (value > max) max = value;
    }
  }
  const floor = max - 8;
  for (let i = 0; i < logMel.length; i++) data[i] = (Math.max(logMel[i]!, floor) + 4) / 4;
  return { data, nMels, nFrames };
}
