/**
 * Helpers for ASR tests: a private models directory with constructed packs, the engine built from
 * it exactly as the server builds it, and fixtures encoded by the real ffmpeg.
 */
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildAsrEngine, type AsrEngineResult } from "../../src/asr/loader.ts";
import type { VoiceActivityDetector } from "../../src/asr/recognizer.ts";
import { loadConfig } from "../../src/config/config.ts";
import { log } from "../../src/log/logger.ts";
import { Admission } from "../../src/serving/admission.ts";
import { ffmpegSync } from "../support/audio.ts";
import { writeToneCtcPack } from "../support/models/ctc.ts";
import { startSawt, type SawtProcess } from "../support/sawt.ts";
import { sileroVadFile } from "../support/fixtures/models.ts";
import { englishSpeech } from "../support/fixtures/speech.ts";

/**
 * The real Silero VAD v5 model (from the npm registry by pinned version, verified by SHA-256 on
 * every call: test/support/fixtures/models.ts), or env SAWT_TEST_SILERO.
 */
export function sileroModel(): string {
  if (process.env.SAWT_TEST_SILERO) return process.env.SAWT_TEST_SILERO;
  return sileroVadFile();
}

/** A temporary models directory. */
export function modelsDir(): { dir: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), "sawt-asr-models-"));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * A real `sawt serve` over a fresh models directory holding the tone CTC recogniser (exact
 * transcripts: ../support/models/ctc.ts), with the SAWT_* settings in `env`. The caller stops the
 * server and removes the directory (the directory is removed here when the server fails to start).
 */
export async function startToneCtcSawt(
  env: Record<string, string> = {},
): Promise<{ models: ReturnType<typeof modelsDir>; sawt: SawtProcess }> {
  const models = modelsDir();
  try {
    await writeToneCtcPack(join(models.dir, "tone-ctc"));
    return { models, sawt: await startSawt({ env: { SAWT_MODELS_DIR: models.dir, ...env } }) };
  } catch (error) {
    models.remove();
    throw error;
  }
}

/** Copies the real Silero model into `<dir>/<name>/silero_vad.onnx`. */
export function installSilero(dir: string, name = "silero-vad"): void {
  mkdirSync(join(dir, name), { recursive: true });
  copyFileSync(sileroModel(), join(dir, name, "silero_vad.onnx"));
}

/** Builds the engine over `dir` with optional SAWT_* settings. */
export async function buildEngine(dir: string, env: Record<string, string> = {}): Promise<AsrEngineResult> {
  const config = loadConfig({
    env: { SAWT_MODELS_DIR: dir, SAWT_DATA_DIR: join(dir, ".data"), SAWT_ASR_BUILTIN: "false", ...env },
  });
  const admission = new Admission({
    name: "asr",
    concurrency: config.asr.concurrency,
    maxQueue: config.asr.max_queue,
    queueTimeoutMs: config.asr.queue_timeout_ms,
    busyDetail: "busy",
    timeoutDetail: "timeout",
  });
  return buildAsrEngine(config, admission, log.child({ test: "asr" }));
}

/** Builds the engine and fails the test when it could not be built. */
export async function readyEngine(dir: string, env: Record<string, string> = {}) {
  const engine = await buildEngine(dir, env);
  if (!engine.ok) throw new Error(`ASR engine not built: ${engine.reason}`);
  return engine;
}

/** ffmpeg output arguments for each allowed upload extension. */
export const ENCODINGS: Readonly<Record<string, readonly string[]>> = {
  wav: ["-c:a", "pcm_s16le", "-f", "wav"],
  mp3: ["-c:a", "libmp3lame", "-b:a", "128k", "-f", "mp3"],
  mpga: ["-c:a", "libmp3lame", "-b:a", "128k", "-f", "mp3"],
  mp4: ["-c:a", "aac", "-b:a", "128k", "-f", "mp4"],
  m4a: ["-c:a", "aac", "-b:a", "128k", "-f", "ipod"],
  mpeg: ["-c:a", "mp2", "-b:a", "128k", "-f", "mpeg"],
  ogg: ["-c:a", "libvorbis", "-q:a", "6", "-f", "ogg"],
  webm: ["-c:a", "libopus", "-b:a", "96k", "-f", "webm"],
  flac: ["-c:a", "flac", "-f", "flac"],
};

/** Encodes mono float `samples` at `rate` into `path` with the real ffmpeg. */
export function encodeFile(samples: Float32Array, rate: number, path: string, args: readonly string[]): string {
  const pcm = new Uint8Array(samples.buffer, samples.byteOffset, samples.byteLength);
  ffmpegSync(["-f", "f32le", "-ar", String(rate), "-ac", "1", "-i", "pipe:0", ...args, path], pcm);
  return path;
}

/** `seconds` of silence. */
export function silence(seconds: number, rate = 16000): Float32Array {
  return new Float32Array(Math.round(seconds * rate));
}

/** Concatenates sample arrays. */
export function concat(...parts: readonly Float32Array[]): Float32Array {
  const out = new Float32Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/**
 * The English speech of this run as 16 kHz mono float32: the real 20 s recording of
 * `../shared/audio` where it is, else Sawt's own espeak-ng speech (test/support/fixtures/speech.ts).
 */
export function realSpeech(): Float32Array {
  const args = ["-i", englishSpeech().wav, "-f", "f32le", "-ar", "16000", "-ac", "1", "pipe:1"];
  const bytes = ffmpegSync(args);
  return new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4).slice();
}

/**
 * About a minute of speech with pauses, as the VAD tests and benchmarks use it: the speech
 * three times, with 2, 3.5, 1 and 2 s of silence around and between.
 */
export function realSpeechWithPauses(): Float32Array {
  const speech = realSpeech();
  return concat(silence(2), speech, silence(3.5), speech, silence(1), speech, silence(2));
}

/**
 * `detector` with its batch method hidden: SpeechTracker then falls back to one call per window,
 * the scoring before issue #19 that the batched path must match.
 */
export function perWindowDetector(detector: VoiceActivityDetector): VoiceActivityDetector {
  return {
    ...detector,
    createStream: () => {
      const stream = detector.createStream();
      return { probability: (window) => stream.probability(window) };
    },
  };
}

/** A sine of `frequency` Hz. */
export function sine(frequency: number, seconds: number, rate = 16000, amplitude = 0.3): Float32Array {
  const out = new Float32Array(Math.round(seconds * rate));
  for (let i = 0; i < out.length; i++) out[i] = amplitude * Math.sin((2 * Math.PI * frequency * i) / rate);
  return out;
}

/**
 * A live call on the live core as gRPC StreamingRecognize runs it (the file's segmentation rule,
 * partials every second): every event, in order, after feeding `chunks` and finishing.
 */
export async function liveCall(
  service: Pick<import("../../src/asr/types.ts").AsrService, "openLive">,
  chunks: AsyncIterable<Float32Array> | Iterable<Float32Array>,
  options: Partial<import("../../src/asr/types.ts").LiveTranscriptionOptions> = {},
): Promise<import("../../src/asr/types.ts").LiveEvent[]> {
  const events: import("../../src/asr/types.ts").LiveEvent[] = [];
  const live = service.openLive(
    { endpointing: "segments", turnDetection: null, partialIntervalMs: 1000, ...options },
    (event) => events.push(event),
  );
  for await (const chunk of chunks) await live.push(chunk);
  await live.finish();
  return events;
}
