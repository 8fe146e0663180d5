/** The one 16 kHz constant: uploads are decoded to it; ASR models and the speaker encoder take it. */
export const SPEECH_SAMPLE_RATE = 16000;

/** Seconds of `samples` at the speech rate, rounded to the millisecond (what transcripts report). */
export function secondsOf(samples: number): number {
  return Math.round((samples / SPEECH_SAMPLE_RATE) * 1000) / 1000;
}

/** Whole milliseconds of `samples` at the speech rate (what live events report). */
export function msOf(samples: number): number {
  return Math.round((samples * 1000) / SPEECH_SAMPLE_RATE);
}

/** Samples at the speech rate in `ms` milliseconds. */
export function samplesOfMs(ms: number): number {
  return Math.round((ms * SPEECH_SAMPLE_RATE) / 1000);
}
