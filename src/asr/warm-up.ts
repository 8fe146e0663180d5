/**
 * Start-up warm-up input for ASR models: half a second of quiet noise, so sessions are warm for
 * the first request and a model that loads but cannot run is caught at start-up. (Noise, not
 * zeros: some exports special-case all-zero input.)
 */
import { SPEECH_SAMPLE_RATE } from "../audio/speech-rate.ts";

/** Half a second of quiet, deterministic noise at the ASR rate. */
export function warmUpAudio(): Float32Array {
  const audio = new Float32Array(SPEECH_SAMPLE_RATE / 2);
  for (let i = 0; i < audio.length; i++) audio[i] = 1e-3 * Math.sin(i * 0.37);
  return audio;
}
