/**
 * The sine family's pack contract (a test-only TTS family that proves the "adding a model
 * family" recipe of docs/architecture.md): a voice folder holding `sine.json`,
 * `{"frequency_hz": 440, "sample_rate": 16000, "seconds_per_char": 0.02}`.
 */
import { PackError } from "../../../../src/models/errors.ts";
import type { PackFiles } from "../../../../src/models/pack.ts";
import type { VoicePackConfig } from "../../../../src/tts/voice-family.ts";

/** The file that makes a folder a sine pack. */
export const SINE_FILE = "sine.json";

/** A validated sine pack. */
export interface SineConfig extends VoicePackConfig {
  readonly frequencyHz: number;
  readonly secondsPerChar: number;
}

function positive(json: Record<string, unknown>, key: string): number {
  const value = json[key];
  if (typeof value !== "number" || !(value > 0)) throw new PackError(`${SINE_FILE} ${key} must be a positive number`);
  return value;
}

/** Reads and checks `sine.json`; throws PackError naming the bad key. */
export function configureSine(pack: PackFiles): SineConfig {
  let json: unknown;
  try {
    json = JSON.parse(pack.text(SINE_FILE));
  } catch (error) {
    throw error instanceof PackError ? error : new PackError(`${SINE_FILE} is not valid JSON`);
  }
  if (json === null || typeof json !== "object") throw new PackError(`${SINE_FILE} must be an object`);
  const fields = json as Record<string, unknown>;
  const sampleRate = positive(fields, "sample_rate");
  const facts = { family: "sine", sampleRate, phonemeType: "text" as const, speakers: 1, embeddingDim: undefined };
  return { frequencyHz: positive(fields, "frequency_hz"), secondsPerChar: positive(fields, "seconds_per_char"), facts };
}
