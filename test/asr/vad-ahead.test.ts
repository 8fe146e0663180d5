/**
 * Issue #19: a recording longer than the window is planned while the detector still runs, so its
 * first pieces decode during the VAD of the rest. The pieces must be exactly the policy's pieces
 * over all the spans — on real speech with the real Silero model, and on a long constructed
 * recording with a run of speech longer than the window (cut at its pauses).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { VoiceActivityDetector } from "../../src/asr/recognizer.ts";
import { piecesAhead, runAhead } from "../../src/asr/segmentation/ahead.ts";
import { decodePieces, policyOptions, type DecodePiece } from "../../src/asr/segmentation/policy.ts";
import { createEnergyDetector } from "../../src/asr/vad/energy.ts";
import { segmentSpeech } from "../../src/asr/vad/pipeline.ts";
import { loadSilero } from "../../src/asr/vad/silero.ts";
import { ffmpegSync } from "../support/audio.ts";
import { letterToneAudio } from "../support/models/ctc.ts";
import { sharedFile } from "../support/sawt.ts";
import { concat, sileroModel, silence } from "./support.ts";

const policy = policyOptions(30);

async function bothWays(audio: Float32Array, detector: VoiceActivityDetector) {
  const spans = await segmentSpeech(audio, detector, { maxSegmentSeconds: 30 });
  const planned = decodePieces(spans, audio.length, policy);
  const ahead: DecodePiece[] = [];
  for await (const piece of piecesAhead(audio, detector, { maxSegmentSeconds: 30 }, policy)) ahead.push(piece);
  return { planned, ahead };
}

describe("pieces planned while the VAD runs ahead", () => {
  let silero: VoiceActivityDetector;
  beforeAll(async () => {
    silero = await loadSilero(sileroModel(), "silero-vad");
  });
  afterAll(async () => {
    await silero.release();
  });

  test("does give the policy's pieces of a minute of real speech scored by Silero", async () => {
    const bytes = ffmpegSync(["-i", sharedFile("audio/en-speech-20s.wav"), "-f", "f32le", "-ac", "1", "pipe:1"]);
    const speech = new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4).slice();
    const audio = concat(silence(2), speech, silence(3.5), speech, silence(1), speech, silence(2));
    const { planned, ahead } = await bothWays(audio, silero);
    expect(planned.length).toBeGreaterThanOrEqual(3);
    expect(ahead).toEqual(planned);

    // The first piece is handed out while most of the recording is still unscored.
    let scored = 0;
    const counting: VoiceActivityDetector = {
      ...silero,
      createStream: () => {
        const stream = silero.createStream();
        return {
          probability: (window) => stream.probability(window),
          probabilities: (windows) => {
            scored += windows.length;
            return stream.probabilities!(windows);
          },
        };
      },
    };
    for await (const _ of piecesAhead(audio, counting, { maxSegmentSeconds: 30 }, policy)) {
      expect(scored).toBeLessThan(audio.length / 512 / 2);
      break;
    }
  });

  test("does give the policy's pieces of a long recording with a run of speech longer than the window", async () => {
    const parts: Float32Array[] = [silence(0.7)];
    for (let n = 0; n < 30; n++) {
      // Sentences 10–25 run together (0.3 s pauses join them): a 40 s utterance cut at its pauses.
      const pause = n >= 10 && n < 25 ? 0.3 : 0.45 + (n % 4) * 0.2;
      parts.push(letterToneAudio(n % 2 ? "سلام عليكم " : "كيف حالك "), silence(pause));
    }
    const audio = concat(...parts);
    expect(audio.length / 16000).toBeGreaterThan(60);
    const { planned, ahead } = await bothWays(audio, createEnergyDetector());
    expect(planned.some((p) => p.end - p.start > 20 * 16000)).toBe(true);
    expect(ahead).toEqual(planned);
  });

  test("does throw the producer's error to the consumer and stop the producer when the consumer stops", async () => {
    const failing = runAhead<number>(async (emit) => {
      emit([1]);
      throw new Error("detector failed");
    });
    await expect(
      (async () => {
        for await (const _ of failing) void _;
      })(),
    ).rejects.toThrow("detector failed");

    let stopped = false;
    const endless = runAhead<number>(async (emit, signal) => {
      for (let i = 0; !signal.aborted; i++) {
        emit([i]);
        await Bun.sleep(1);
      }
      stopped = true;
    });
    for await (const item of endless) if (item === 3) break;
    expect(stopped).toBe(true);
  });
});
