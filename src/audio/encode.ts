/**
 * Encodes synthesized PCM into the response formats of D8. WAV, PCM (any rate, G.711 too), MP3,
 * Ogg Opus and FLAC are made in-process (encoders/encode-path.ts); AAC (and any format whose codec
 * library is missing) goes through one ffmpeg process fed s16le on stdin and writing to stdout,
 * with fixed arguments from formats.ts.
 */
import { AppError, Detail } from "../errors/taxonomy.ts";
import { concatBytes } from "./concat.ts";
import type { SampleEncoding } from "./g711.ts";
import { encodeChunks, encodesInProcess } from "./encoders/encode-path.ts";
import { resampleAll } from "./resampler.ts";
import { log } from "../log/logger.ts";
import { FfmpegError, runFfmpeg, streamFfmpeg, type FfmpegResult } from "./ffmpeg.ts";
import {
  ffmpegEncodeArgs,
  patchFlacTotalSamples,
  planEncoding,
  type AudioFormat,
  type EncodingPlan,
} from "./formats.ts";
import { floatToInt16, int16ToBytes, wavHeader } from "./wav.ts";

const logger = log.child({ component: "audio" });

/** Options of {@link encodeAudio} and {@link encodeAudioStream}. */
export interface EncodeOptions {
  /** Resample to this rate (8000–48000), e.g. for telephony. */
  readonly targetSampleRate?: number;
  /** Wall-clock limit of an ffmpeg run (flac, aac); defaults scale with the audio length (buffered) or 15 min (streaming). */
  readonly timeoutMs?: number;
  /** Streaming only: cap on the encoded bytes (default 1 GiB). */
  readonly maxOutputBytes?: number;
  readonly signal?: AbortSignal;
  /** pcm/wav only: linear 16-bit samples (default) or G.711 μ-law / A-law (D19). */
  readonly encoding?: SampleEncoding;
}

/** Encoded audio plus what the response headers need. */
export interface EncodedAudio {
  readonly bytes: Uint8Array;
  readonly contentType: string;
  /** `X-Sample-Rate`: the rate a client decoding `bytes` gets. */
  readonly sampleRate: number;
}

/** Content type and sample rate an encode will report, for headers sent before a stream starts. */
export function describeEncoding(
  format: AudioFormat,
  sampleRate: number,
  options: EncodeOptions = {},
): { contentType: string; sampleRate: number } {
  const plan = planEncoding(format, sampleRate, options.targetSampleRate, options.encoding);
  return { contentType: plan.contentType, sampleRate: plan.sampleRate };
}

/** Encodes mono float PCM (`sampleRate` Hz, clipped to [-1, 1]) as `format`. Failures are AppError `internal`. */
export async function encodeAudio(
  pcm: Float32Array,
  sampleRate: number,
  format: AudioFormat,
  options: EncodeOptions = {},
): Promise<EncodedAudio> {
  const plan = planEncoding(format, sampleRate, options.targetSampleRate, options.encoding);
  const outFrames = Math.ceil((pcm.length * plan.encoderRate) / plan.inputRate);
  // Compressed output never exceeds the s16 size by more than container overhead.
  const maxOutputBytes = Math.ceil(outFrames * 2 * 1.25) + (1 << 20);
  const result = (bytes: Uint8Array): EncodedAudio => ({
    bytes,
    contentType: plan.contentType,
    sampleRate: plan.sampleRate,
  });

  if (encodesInProcess(plan)) {
    const pieces: Uint8Array[] = [];
    const limits = { maxOutputBytes, totalFrames: outFrames, signal: options.signal };
    for await (const piece of encodeChunks(once(pcm), plan, limits)) pieces.push(piece);
    const bytes = concatBytes(pieces);
    if (format !== "wav") return result(bytes);
    return result(concatBytes([wavHeader(plan.encoderRate, bytes.byteLength, plan.encoding), bytes]));
  }
  const run = (args: string[], input: Uint8Array): Promise<Uint8Array> =>
    runChecked(args, input, {
      // Encoders run far faster than real time; allow 5x real time on a loaded box, plus start-up.
      timeoutMs: options.timeoutMs ?? 30_000 + (pcm.length / sampleRate) * 200,
      maxOutputBytes,
      signal: options.signal,
    });
  if (format === "flac") {
    // Resample first (in-process) so the exact sample count is known for the STREAMINFO patch.
    const samples = floatToInt16(resampleAll(pcm, plan.inputRate, plan.encoderRate));
    const flacPlan: EncodingPlan = { ...plan, inputRate: plan.encoderRate };
    const bytes = await run(ffmpegEncodeArgs(flacPlan, "encoded", false), int16ToBytes(samples));
    patchFlacTotalSamples(bytes, samples.length);
    return result(bytes);
  }
  return result(await run(ffmpegEncodeArgs(plan, "encoded", false), int16ToBytes(floatToInt16(pcm))));
}

/**
 * Encodes a stream of float PCM chunks: in-process for pcm, wav, mp3, opus and flac (see
 * encoders/encode-path.ts), through one ffmpeg process for aac. Nothing runs until the
 * stream is read; cancelling it stops the encoder and the source iterator. WAV streams carry a
 * header with 0xFFFFFFFF sizes, as the length is unknown when the first bytes leave; streamed FLAC
 * likewise has total samples 0 ("unknown"). A failing source errors the stream with its own
 * error; an encoder failure with AppError `internal` (in-process) or an {@link FfmpegError}.
 * Headers: see {@link describeEncoding}.
 */
export function encodeAudioStream(
  chunks: AsyncIterable<Float32Array>,
  sampleRate: number,
  format: AudioFormat,
  options: EncodeOptions = {},
): ReadableStream<Uint8Array> {
  const plan = planEncoding(format, sampleRate, options.targetSampleRate, options.encoding);
  const maxOutputBytes = options.maxOutputBytes ?? 2 ** 30;
  if (!encodesInProcess(plan)) {
    return streamFfmpeg(ffmpegEncodeArgs(plan, "encoded", true), {
      stdin: toS16Chunks(chunks),
      timeoutMs: options.timeoutMs ?? 15 * 60_000,
      maxOutputBytes,
      signal: options.signal,
    });
  }
  const body = encodeChunks(chunks, plan, { maxOutputBytes, signal: options.signal });
  if (format !== "wav") return iterableStream(body);
  return iterableStream(prepend(wavHeader(plan.encoderRate, undefined, plan.encoding), body));
}

async function* once(pcm: Float32Array): AsyncGenerator<Float32Array> {
  yield pcm;
}

async function runChecked(
  args: string[],
  stdin: Uint8Array,
  limits: { timeoutMs: number; maxOutputBytes: number; signal: AbortSignal | undefined },
): Promise<Uint8Array> {
  const outcome: FfmpegResult = await runFfmpeg(args, { stdin, ...limits });
  if (outcome.ok) return outcome.stdout;
  logger.warn("audio encode failed", { failure: outcome.failure, reason: outcome.reason });
  throw new AppError("internal", Detail.internal, {
    cause: new FfmpegError(outcome.failure, outcome.reason, outcome.cause),
  });
}

async function* toS16Chunks(chunks: AsyncIterable<Float32Array>): AsyncGenerator<Uint8Array> {
  for await (const chunk of chunks) {
    if (chunk.length > 0) yield int16ToBytes(floatToInt16(chunk));
  }
}

async function* prepend(head: Uint8Array, rest: AsyncIterable<Uint8Array>): AsyncGenerator<Uint8Array> {
  yield head;
  yield* rest;
}

/** A pull-driven byte stream over an async iterable; cancel ends the iterable. */
function iterableStream(source: AsyncIterable<Uint8Array>): ReadableStream<Uint8Array> {
  const iterator = source[Symbol.asyncIterator]();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await iterator.next();
      if (next.done) controller.close();
      else controller.enqueue(next.value);
    },
    async cancel(reason) {
      await iterator.return?.(reason);
    },
  });
}
