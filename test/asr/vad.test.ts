/**
 * Speech segmentation: the segmenter's rules on exact probability sequences, and the real Silero
 * VAD v5 model splitting a three-minute spoken recording (espeak-ng speech with pauses) into
 * ≤ 30 s segments whose verbose_json timestamps (through the running service) are ordered and
 * inside the audio.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { loadAsrPacks } from "../../src/asr/packs.ts";
import { createEnergyDetector } from "../../src/asr/vad/energy.ts";
import { segmentSpeech, SpeechTracker } from "../../src/asr/vad/endpointer.ts";
import { SpeechSegmenter, type SpeechSpan } from "../../src/asr/vad/segmenter.ts";
import { loadSilero } from "../../src/asr/vad/silero.ts";
import { synthesizeEspeak } from "../../src/tts/espeak/synth.ts";
import { ffmpegSync } from "../support/audio.ts";
import { writeWhisperPack } from "../support/models/whisper.ts";
import { startSawt, until } from "../support/sawt.ts";
import { concat, encodeFile, ENCODINGS, installSilero, modelsDir, silence, sileroModel, sine } from "./support.ts";

const W = 512;

/** Runs probabilities (one per 512-sample window) through a fresh segmenter. */
function spans(probabilities: readonly number[], options = {}): SpeechSpan[] {
  const segmenter = new SpeechSegmenter(options);
  const out = probabilities.flatMap((p) => segmenter.push(p));
  return [...out, ...segmenter.finish(probabilities.length * W)];
}

const run = (p: number, windows: number) => Array.from({ length: windows }, () => p);

describe("speech segmenter", () => {
  test("does open at the threshold and close after 100 ms below the negative threshold", () => {
    // 10 silent windows, 20 speech windows, 0.4 (between thresholds) ×3, speech, then silence.
    const result = spans([...run(0, 10), ...run(0.9, 20), ...run(0.4, 3), ...run(0.9, 5), ...run(0.1, 20)]);
    expect(result).toEqual([{ start: 10 * W - 480, end: 38 * W + 480 }]);
  });

  test("does drop speech shorter than 250 ms", () => {
    expect(spans([...run(0, 5), ...run(0.9, 7), ...run(0, 20)])).toEqual([]);
  });

  test("does not let padding overlap the previous span", () => {
    const result = spans([...run(0.9, 10), ...run(0, 4), ...run(0.9, 10), ...run(0, 10)]);
    expect(result.length).toBe(2);
    expect(result[0]!.end).toBeLessThanOrEqual(result[1]!.start);
  });

  test("does cut speech that runs on at its least speech-like window so every span fits 30 s", () => {
    // 70 s of speech with a dip to 0.45 (not enough to end it) at 20 s.
    const probabilities = run(0.95, Math.round((70 * 16000) / W));
    const dip = Math.round((20 * 16000) / W);
    probabilities[dip] = 0.45;
    const result = spans(probabilities);
    expect(result.length).toBe(3);
    expect(result[0]!.end).toBe(dip * W);
    for (const span of result) expect(span.end - span.start).toBeLessThanOrEqual(30 * 16000);
    for (let i = 1; i < result.length; i++) expect(result[i]!.start).toBe(result[i - 1]!.end);
  });

  test("does give a stream the same spans as the whole file however the audio is chunked", async () => {
    const audio = concat(
      silence(0.5),
      sine(600, 1.2),
      silence(0.7),
      sine(900, 0.8),
      silence(0.3),
      sine(700, 2),
      silence(0.2),
    );
    const detector = createEnergyDetector();
    const whole = (await segmentSpeech(audio, detector)).map(({ start, end }) => ({ start, end }));
    const tracker = new SpeechTracker(detector);
    const streamed: { start: number; end: number; samples: Float32Array }[] = [];
    for (let at = 0, size = 37; at < audio.length; at += size, size = ((size * 7) % 3001) + 13)
      streamed.push(...(await tracker.push(audio.subarray(at, at + size))));
    streamed.push(...(await tracker.end()));
    expect(streamed.map(({ start, end }) => ({ start, end }))).toEqual(whole);
    expect(whole.length).toBe(3);
    for (const piece of streamed) expect(piece.samples).toEqual(audio.subarray(piece.start, piece.end));
  });
});

/** Speech at 16 kHz from espeak-ng (Silero hears it as speech), leading/trailing silence trimmed. */
async function speech(text: string): Promise<Float32Array> {
  const spoken = await synthesizeEspeak(text, "Yara");
  const pcm = new Uint8Array(spoken.samples.buffer, spoken.samples.byteOffset, spoken.samples.byteLength);
  const out = ffmpegSync(
    [
      "-f",
      "s16le",
      "-ar",
      String(spoken.sampleRate),
      "-ac",
      "1",
      "-i",
      "pipe:0",
      "-af",
      "silenceremove=start_periods=1:start_threshold=-50dB,areverse,silenceremove=start_periods=1:start_threshold=-50dB,areverse",
      "-ar",
      "16000",
      "-f",
      "f32le",
      "pipe:1",
    ],
    pcm,
  );
  return new Float32Array(out.buffer, out.byteOffset, out.byteLength >> 2);
}

describe("Silero VAD v5 (real model)", () => {
  let models: ReturnType<typeof modelsDir>;
  let recording: Float32Array;
  const utterances: { start: number; end: number }[] = [];

  beforeAll(async () => {
    models = modelsDir();
    const sentences = [
      "مرحبا بكم في خدمة العملاء",
      "كيف يمكنني مساعدتك اليوم",
      "رقم الحساب هو واحد اثنان ثلاثة أربعة",
      "شكرا لاتصالكم وإلى اللقاء",
    ];
    const parts: Float32Array[] = [];
    let at = 0;
    let n = 0;
    // About three minutes: sentences with pauses of 0.6–2.4 s, and one 45 s run of back-to-back speech.
    while (at < 180 * 16000) {
      const said = await speech(sentences[n % sentences.length]!);
      if (n === 6) {
        const block: Float32Array[] = [];
        for (let total = 0; total < 45 * 16000; total += said.length) block.push(said);
        parts.push(...block);
        utterances.push({ start: at, end: at + block.length * said.length });
        at += block.length * said.length;
      } else {
        parts.push(said);
        utterances.push({ start: at, end: at + said.length });
        at += said.length;
      }
      const pause = silence(0.6 + ((n * 7) % 10) * 0.2);
      parts.push(pause);
      at += pause.length;
      n++;
    }
    recording = concat(...parts);
  });

  afterAll(() => models?.remove());

  test("does find every utterance and keep each segment within 30 s", async () => {
    const vad = await loadSilero(sileroModel(), "silero");
    try {
      const pieces = await segmentSpeech(recording, vad);
      for (const piece of pieces) expect(piece.end - piece.start).toBeLessThanOrEqual(30 * 16000);
      for (const u of utterances) {
        const covered = pieces
          .filter((p) => p.end > u.start && p.start < u.end)
          .reduce((sum, p) => sum + Math.min(p.end, u.end) - Math.max(p.start, u.start), 0);
        expect(covered / (u.end - u.start)).toBeGreaterThan(0.8);
      }
      // The 45 s run was cut into at least two segments.
      const long = utterances.find((u) => u.end - u.start > 40 * 16000)!;
      expect(
        pieces.filter((p) => p.start >= long.start - 16000 && p.end <= long.end + 16000).length,
      ).toBeGreaterThanOrEqual(2);
    } finally {
      await vad.release();
    }
  });

  test("does give verbose_json segments over HTTP that are ordered, within the audio and at most 30 s", async () => {
    installSilero(models.dir);
    await writeWhisperPack(join(models.dir, "whisper"), {
      rows: ["نعم", "لا", "ربما"],
      bands: [
        [0, 700],
        [700, 2000],
        [2000, 8000],
      ],
    });
    const mp3 = readFileSync(encodeFile(recording, 16000, join(models.dir, "call.mp3"), ENCODINGS.mp3!));
    const sawt = await startSawt({ env: { SAWT_MODELS_DIR: models.dir } });
    try {
      const healthOf = async () =>
        (await (await fetch(`${sawt.baseUrl}/v1/asr/health`)).json()) as Record<string, unknown>;
      const healthy = async () => {
        const health = await healthOf();
        return health.status === "healthy" ? health : undefined;
      };
      const health = await until(healthy, "the ASR engine to be healthy", { timeoutMs: 30_000, everyMs: 100 });
      expect(health.vad).toBe("silero (silero-vad)");
      const { key } = await sawt.createKey({ name: "vad" });
      const form = new FormData();
      form.append("file", new Blob([mp3]), "call.mp3");
      form.append("response_format", "verbose_json");
      const res = await fetch(`${sawt.baseUrl}/v1/asr/audio/transcriptions`, {
        method: "POST",
        headers: { "X-API-Key": key },
        body: form,
      });
      expect(res.status).toBe(200);
      const transcript = (await res.json()) as {
        duration: number;
        segments: { id: number; start: number; end: number; text: string }[];
      };
      expect(transcript.duration).toBeCloseTo(recording.length / 16000, 1);
      expect(transcript.segments.length).toBeGreaterThanOrEqual(utterances.length);
      let previousEnd = 0;
      for (const segment of transcript.segments) {
        expect(segment.start).toBeGreaterThanOrEqual(previousEnd);
        expect(segment.end).toBeGreaterThan(segment.start);
        expect(segment.end - segment.start).toBeLessThanOrEqual(30);
        expect(segment.end).toBeLessThanOrEqual(transcript.duration);
        expect(segment.text.length).toBeGreaterThan(0);
        previousEnd = segment.end;
      }
      expect(transcript.segments.map((s) => s.id)).toEqual(transcript.segments.map((_, i) => i));
    } finally {
      await sawt.stop();
    }
  });

  test("does load the Silero pack from the models directory as the engine's VAD", async () => {
    const loaded = await loadAsrPacks(models.dir);
    try {
      expect(loaded.vad?.kind).toBe("silero");
    } finally {
      await loaded.release();
    }
  });
});
