/** The one 16 kHz constant: uploads are decoded to it; ASR models and the speaker encoder take it. */
export const SPEECH_SAMPLE_RATE = 16000;

/** Seconds rounded to the millisecond, as transcripts and live events report times. */
export function roundSeconds(seconds: number): number {
  return Math.round(seconds * 1000) / 1000;
}

/** The duration of `samples` 16 kHz samples in seconds, rounded to the millisecond. */
export function secondsOf(samples: number): number {
  return roundSeconds(samples / SPEECH_SAMPLE_RATE);
}

/** The duration of `samples` 16 kHz samples in whole milliseconds. */
export function msOf(samples: number): number {
  return Math.round((samples * 1000) / SPEECH_SAMPLE_RATE);
}

/** The number of 16 kHz samples in `ms` milliseconds, rounded to a whole sample. */
export function samplesOfMs(ms: number): number {
  return Math.round((ms * SPEECH_SAMPLE_RATE) / 1000);
}
