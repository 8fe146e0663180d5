import { describe, expect, test } from "bun:test";
import type { LiveEvent, TurnDetection } from "../../core/asr.ts";
import { VAD_WINDOW, type Recognizer, type VoiceActivityDetector } from "../recognizer.ts";
import type { LivePort } from "./port.ts";
import { LiveTranscriber } from "./transcriber.ts";

/** A VAD that reads the probability off each window's first sample (the test writes it there). */
const probe = { createStream: () => ({ probability: async (window: Float32Array) => window[0]! }) };
const windows = (probabilities: number[]) => {
  const audio = new Float32Array(probabilities.length * VAD_WINDOW);
  for (const [i, p] of probabilities.entries()) audio.fill(p, i * VAD_WINDOW, (i + 1) * VAD_WINDOW);
  return audio;
};
const msOfWindows = (n: number) => (n * VAD_WINDOW * 1000) / 16000;

/** An engine whose finals name the utterance's length in samples. */
const engine: LivePort = {
  detector: probe as unknown as VoiceActivityDetector,
  dialectIdentifier: null,
  dialectSeconds: 30,
  recognizerFor: () => ({}) as Recognizer,
  transcribeUtterance: async (samples) => ({ text: `${samples.length}` }),
  admitted: (job) => job(),
  observe: () => {},
};

async function turns(detection: TurnDetection, probabilities: number[]) {
  const events: LiveEvent[] = [];
  const live = new LiveTranscriber(engine, { turnDetection: detection, partialIntervalMs: 0 }, (e) => events.push(e));
  await live.push(windows(probabilities));
  return events.flatMap((e) =>
    e.type === "speech_started"
      ? [["start", e.audioStartMs]]
      : e.type === "speech_stopped"
        ? [["end", e.audioEndMs]]
        : [],
  );
}

describe("live transcriber: turn detection (OpenAI server_vad settings)", () => {
  test("does start at threshold, reach back prefix_padding_ms, and end after silence_duration_ms", async () => {
    const probabilities = [0, 0, 0, 0, 0.55, 0.7, 0.9, 0.9, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1];
    // Speech starts with window 5 (0.55 is under 0.6) and reaches back 64 ms (two windows); 128 ms
    // of silence is 4 windows: windows 8–11 are quiet, so the turn ends with window 11.
    expect(await turns({ threshold: 0.6, prefixPaddingMs: 64, silenceDurationMs: 128 }, probabilities)).toEqual([
      ["start", msOfWindows(3)],
      ["end", msOfWindows(12)],
    ]);
  });

  test("does keep the utterance open through a pause shorter than silence_duration_ms", async () => {
    const events = await turns(
      { threshold: 0.5, prefixPaddingMs: 0, silenceDurationMs: 160 },
      [0.9, 0.1, 0.1, 0.9, 0.1, 0.1, 0.1, 0.1, 0.1],
    );
    expect(events).toEqual([
      ["start", 0],
      ["end", msOfWindows(9)],
    ]);
  });

  test("does never reach back into the previous utterance", async () => {
    const events = await turns({ threshold: 0.5, prefixPaddingMs: 1000, silenceDurationMs: 32 }, [0.9, 0.1, 0.9]);
    expect(events).toEqual([
      ["start", 0],
      ["end", msOfWindows(2)],
      ["start", msOfWindows(2)],
    ]);
  });

  test("does give a final per ended turn with the turn's audio and times", async () => {
    const events: LiveEvent[] = [];
    const live = new LiveTranscriber(
      engine,
      { turnDetection: { threshold: 0.5, prefixPaddingMs: 0, silenceDurationMs: 64 }, partialIntervalMs: 0 },
      (e) => events.push(e),
    );
    await live.push(windows([0, 0.9, 0.9, 0.1, 0.1, 0, 0]));
    const final = events.find((e) => e.type === "final");
    // Turn from window 1 to the end of the second quiet window (the decision), 4 windows long.
    expect(final).toMatchObject({ text: `${4 * VAD_WINDOW}`, start: 0.032, end: 0.16, dialect: null });
  });
});
