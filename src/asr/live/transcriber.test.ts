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

  test("does say an utterance ended once utteranceEndMs of audio followed the last final's words, once", async () => {
    const events: LiveEvent[] = [];
    // The final's one word ends 64 ms into the utterance (which starts at window 1).
    const timed: LivePort = {
      ...engine,
      transcribeUtterance: async () => ({ text: "w", words: [{ word: "w", start: 0, end: 0.064 }] }),
    };
    const options = {
      turnDetection: { threshold: 0.5, prefixPaddingMs: 0, silenceDurationMs: 64 },
      partialIntervalMs: 0,
      utteranceEndMs: 320,
    };
    const live = new LiveTranscriber(timed, options, (e) => events.push(e));
    await live.push(windows([0, 0.9, 0.9, 0.1, 0.1, 0, 0, 0, 0, 0]));
    // The word ends at 32 + 64 = 96 ms: 320 ms later is 416 ms, past the 320 ms heard so far.
    expect(events.filter((e) => e.type === "utterance_end")).toEqual([]);
    await live.push(windows([0, 0, 0]));
    expect(events.filter((e) => e.type === "utterance_end")).toEqual([{ type: "utterance_end", lastWordEnd: 0.096 }]);
    await live.push(windows([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]));
    expect(events.filter((e) => e.type === "utterance_end").length).toBe(1);
    expect(events.map((e) => e.type).indexOf("utterance_end")).toBeGreaterThan(
      events.map((e) => e.type).indexOf("final"),
    );
  });

  test("does hold the utterance end while open speech may have words, and say none without words", async () => {
    const events: LiveEvent[] = [];
    const options = {
      turnDetection: { threshold: 0.5, prefixPaddingMs: 0, silenceDurationMs: 64 },
      partialIntervalMs: 0,
      utteranceEndMs: 96,
    };
    const live = new LiveTranscriber(engine, options, (e) => events.push(e));
    // A final, then new speech starts before its gap is over and runs on: no utterance end yet.
    await live.push(windows([0.9, 0.9, 0.1, 0.1, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9]));
    expect(events.filter((e) => e.type === "final").length).toBe(1);
    expect(events.some((e) => e.type === "utterance_end")).toBe(false);
    await live.push(windows([0.1, 0.1, 0, 0, 0, 0]));
    expect(events.filter((e) => e.type === "utterance_end").length).toBe(1);
    // Without words (an empty final) nothing is owed.
    const silent: LiveEvent[] = [];
    const quiet = new LiveTranscriber({ ...engine, transcribeUtterance: async () => ({ text: "" }) }, options, (e) =>
      silent.push(e),
    );
    await quiet.push(windows([0.9, 0.9, 0.1, 0.1, 0, 0, 0, 0, 0, 0]));
    expect(silent.some((e) => e.type === "final") && !silent.some((e) => e.type === "utterance_end")).toBe(true);
  });
});
