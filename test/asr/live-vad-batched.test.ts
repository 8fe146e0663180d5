/**
 * Issue #19: the live endpointer scores every Silero window a pushed chunk completes in one worker
 * call (the batched scan the file segmentation uses), and its turns are those of scoring window by
 * window: same events on a minute of real speech with pauses, whatever the chunk size.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { LiveEvent } from "../../src/core/asr.ts";
import type { Recognizer, VadStream, VoiceActivityDetector } from "../../src/asr/recognizer.ts";
import type { LivePort } from "../../src/asr/live/port.ts";
import { LiveTranscriber } from "../../src/asr/live/transcriber.ts";
import { loadSilero } from "../../src/asr/vad/silero.ts";
import { realSpeechWithPauses, sileroModel } from "./support.ts";

const audio = realSpeechWithPauses();

/** An engine whose finals carry the utterance's length (and no compute time, which varies). */
function engineOver(detector: VoiceActivityDetector): LivePort {
  return {
    detector,
    dialectIdentifier: null,
    dialectSeconds: 30,
    recognizerFor: () => ({}) as Recognizer,
    transcribeUtterance: async (samples) => ({ text: `${samples.length}` }),
    admitted: (job) => job(),
    observe: () => {},
  };
}

/** A stream that counts its calls; `batched` false hides the batch method (the per-window path). */
function counted(stream: VadStream, batched: boolean, calls: { single: number; batch: number[] }): VadStream {
  const single = (window: Float32Array) => {
    calls.single++;
    return stream.probability(window);
  };
  if (!batched) return { probability: single };
  return {
    probability: single,
    probabilities: (windows) => {
      calls.batch.push(windows.length);
      return stream.probabilities!(windows);
    },
  };
}

async function liveEvents(detector: VoiceActivityDetector, batched: boolean, chunkSamples: number) {
  const events: LiveEvent[] = [];
  const calls = { single: 0, batch: [] as number[] };
  const countedDetector: VoiceActivityDetector = {
    ...detector,
    createStream: () => counted(detector.createStream(), batched, calls),
  };
  const live = new LiveTranscriber(
    engineOver(countedDetector),
    { turnDetection: { threshold: 0.5, prefixPaddingMs: 300, silenceDurationMs: 500 }, partialIntervalMs: 0 },
    (event) => events.push(event.type === "final" ? { ...event, computeSeconds: 0 } : event),
  );
  for (let at = 0; at < audio.length; at += chunkSamples) await live.push(audio.subarray(at, at + chunkSamples));
  await live.finish();
  return { events, calls };
}

describe("live endpointer over Silero", () => {
  let detector: VoiceActivityDetector;
  beforeAll(async () => {
    detector = await loadSilero(sileroModel(), "silero-vad");
  });
  afterAll(async () => {
    await detector.release();
  });

  test("does score a chunk's windows in one call and turn as window-by-window scoring does", async () => {
    const oneByOne = await liveEvents(detector, false, 4000);
    expect(oneByOne.calls.single).toBe(Math.floor(audio.length / 512));
    expect(oneByOne.events.filter((e) => e.type === "final").length).toBeGreaterThanOrEqual(3);
    for (const chunk of [4000, 320, 16000 * 7]) {
      const batched = await liveEvents(detector, true, chunk);
      expect(batched.events).toEqual(oneByOne.events);
      expect(batched.calls.single).toBe(0);
      expect(batched.calls.batch.reduce((a, b) => a + b, 0)).toBe(Math.floor(audio.length / 512));
      // One call per pushed chunk that completes a window, never one per window.
      expect(batched.calls.batch.length).toBeLessThanOrEqual(Math.ceil(audio.length / chunk));
    }
  });
});
