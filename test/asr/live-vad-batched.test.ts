/**
 * Issue #19: the live endpointer scores every Silero window a pushed chunk completes in one worker
 * call (the batched scan the file segmentation uses), and its turns are those of scoring window by
 * window: same events on a minute of real speech with pauses, whatever the chunk size.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { LiveEvent } from "../../src/core/asr.ts";
import type { VadStream, VoiceActivityDetector } from "../../src/asr/recognizer.ts";
import { OfflineLiveTranscription, type UtteranceDecoder } from "../../src/asr/streaming/live.ts";
import { loadSilero } from "../../src/asr/vad/silero.ts";
import { realSpeechWithPauses, sileroModel } from "./support.ts";

const audio = realSpeechWithPauses();

/** Finals carry the utterance's span (and no compute time, which varies). */
const decoder: UtteranceDecoder = {
  final: async (samples) => ({ text: `${samples.length}`, dialect: null }),
  partial: async () => "",
};

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
  const live = new OfflineLiveTranscription(
    counted(detector.createStream(), batched, calls),
    { turnDetection: { threshold: 0.5, prefixPaddingMs: 300, silenceDurationMs: 500 }, partialIntervalMs: 0 },
    decoder,
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
