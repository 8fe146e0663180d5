/**
 * Issue #19: a recording longer than the window is planned while the detector still runs, so its
 * first pieces decode during the VAD of the rest. The pieces must be exactly the policy's pieces
 * over all the spans — on real speech with the real Silero model, and on a long constructed
 * recording with a run of speech longer than the window (cut at its pauses).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { loadAsrPacks, type LoadedAsrPacks } from "../../src/asr/packs.ts";
import { AsrPolicy } from "../../src/asr/policy.ts";
import { AsrEngineService } from "../../src/asr/service.ts";
import { encodeWav } from "../../src/audio/wav.ts";
import { PcmBudget } from "../../src/audio/pcm-budget.ts";
import { Admission } from "../../src/serving/admission.ts";
import { writeToneCtcPack } from "../support/models/ctc.ts";
import type { VoiceActivityDetector } from "../../src/asr/recognizer.ts";
import { piecesAhead, runAhead, speechPiecesAhead } from "../../src/asr/segmentation/ahead.ts";
import { decodePieces, policyOptions, type DecodePiece } from "../../src/asr/segmentation/policy.ts";
import { createEnergyDetector } from "../../src/asr/vad/energy.ts";
import { segmentSpeech, SpeechTracker } from "../../src/asr/vad/endpointer.ts";
import { loadSilero } from "../../src/asr/vad/silero.ts";
import { letterToneAudio } from "../support/models/ctc.ts";
import { concat, modelsDir, realSpeechWithPauses, sileroModel, silence } from "./support.ts";

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
    const audio = realSpeechWithPauses();
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

  test("does read a long upload ahead of a slow consumer only within the audio a request may hold", async () => {
    const parts: Float32Array[] = [];
    while (parts.reduce((n, p) => n + p.length, 0) < 60 * 16000) parts.push(letterToneAudio("سلام"), silence(0.2));
    const audio = concat(...parts);
    let read = 0;
    async function* chunks() {
      for (let at = 0; at < audio.length; at += 16000) {
        read = Math.min(audio.length, at + 16000);
        yield audio.slice(at, at + 16000);
      }
    }
    const limit = 8 * 16000;
    const tracker = new SpeechTracker(createEnergyDetector(), { maxSegmentSeconds: 30 });
    let ahead = 0;
    let pieces = 0;
    for await (const piece of speechPiecesAhead(chunks(), tracker, limit)) {
      pieces++;
      // From this piece's start to what was read is held speech and its short pauses (a fifth of it).
      expect(read - piece.start).toBeLessThanOrEqual(1.3 * (limit + 16000));
      ahead = Math.max(ahead, read - piece.end);
      await Bun.sleep(15); // a recogniser slower than the detector
    }
    expect(pieces).toBe(parts.length / 2);
    expect(ahead).toBeGreaterThan(3 * 16000);
  });

  test("does throw the producer's error to the consumer and stop the producer when the consumer stops", async () => {
    const failing = runAhead<number>(async ({ emit }) => {
      emit([1]);
      throw new Error("detector failed");
    });
    await expect(
      (async () => {
        for await (const _ of failing) void _;
      })(),
    ).rejects.toThrow("detector failed");

    let stopped = false;
    const endless = runAhead<number>(async ({ emit, signal }) => {
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

describe("one VAD pass per recording", () => {
  let models: ReturnType<typeof modelsDir>;
  let packs: LoadedAsrPacks;
  let service: AsrEngineService;
  let scored = 0;

  beforeAll(async () => {
    models = modelsDir();
    await writeToneCtcPack(join(models.dir, "tone-ctc"));
    packs = await loadAsrPacks(models.dir);
    // The energy detector (tones are not speech to Silero), counting the windows it scores.
    const energy = createEnergyDetector();
    const counting: VoiceActivityDetector = {
      ...energy,
      createStream: () => {
        const stream = energy.createStream();
        return { probability: (window) => ((scored += 1), stream.probability(window)) };
      },
    };
    service = new AsrEngineService({
      policy: new AsrPolicy({ config: { redact: [], digits: "western" } }),
      packs: { ...packs, vad: counting },
      defaultRecognizer: packs.recognizers.get("tone-ctc")!,
      dialectRoutes: new Map(),
      admission: new Admission({
        name: "asr",
        concurrency: 1,
        maxQueue: 1,
        queueTimeoutMs: 60_000,
        busyDetail: "busy",
        timeoutDetail: "timeout",
      }),
      decode: { maxDurationSeconds: 3600, timeoutMs: 60_000, spoolDir: models.dir },
      memory: { budget: new PcmBudget({ totalBytes: 64 << 20, busyDetail: "busy" }), requestSeconds: 40 },
    });
  });

  afterAll(async () => {
    await packs?.release();
    models?.remove();
  });

  test("does score every window of a long recording once, held whole or uploaded longer than a request holds", async () => {
    const parts: Float32Array[] = [];
    while (parts.reduce((n, p) => n + p.length, 0) < 50 * 16000)
      parts.push(letterToneAudio("سلام عليكم"), silence(0.8));
    const audio = concat(...parts);
    const windows = Math.ceil(audio.length / 512);
    const said = Array.from({ length: parts.length / 2 }, () => "سلام عليكم").join(" ");

    scored = 0;
    expect((await service.transcribeSamples(audio)).text).toBe(said);
    expect(scored).toBe(windows);

    // 50 s is more than the 40 s a request holds: the upload is cut into speech pieces as it is read,
    // and each piece is transcribed without scoring it again.
    const path = join(models.dir, "long.wav");
    await Bun.write(path, encodeWav(audio, 16000));
    scored = 0;
    expect((await service.transcribeFile(path)).text).toBe(said);
    expect(scored).toBe(windows);
  });
});
