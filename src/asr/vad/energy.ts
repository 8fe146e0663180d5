/**
 * The built-in voice-activity detector used when no Silero pack is installed: a window's RMS level
 * mapped linearly from 0 at {@link ENERGY_FLOOR_DB} to 1 at {@link ENERGY_FULL_DB}, so the
 * segmenter's 0.5 threshold sits at −40 dBFS. It knows loudness, not speech: noise counts as
 * speech and quiet speech may not. Good enough to split long recordings at their pauses.
 */
import type { VadStream, VoiceActivityDetector } from "../recognizer.ts";

/** Level (dBFS) scored 0. */
export const ENERGY_FLOOR_DB = -50;
/** Level (dBFS) scored 1. */
export const ENERGY_FULL_DB = -30;

/** Speech-likeness of one window from its RMS level alone. */
export function energyProbability(window: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < window.length; i++) sum += window[i]! * window[i]!;
  const rms = Math.sqrt(sum / Math.max(1, window.length));
  const db = 20 * Math.log10(Math.max(rms, 1e-10));
  return Math.min(1, Math.max(0, (db - ENERGY_FLOOR_DB) / (ENERGY_FULL_DB - ENERGY_FLOOR_DB)));
}

/** The energy detector (stateless, so every stream is the same function). */
export function createEnergyDetector(): VoiceActivityDetector {
  const stream: VadStream = { probability: async (window) => energyProbability(window) };
  return { kind: "energy", name: null, createStream: () => stream, release: async () => {} };
}
