/**
 * Encodes synthesized PCM into the response formats of D8. WAV and PCM at the source rate are
 * built in-process; everything else goes through one ffmpeg process fed s16le on stdin and
 * writing to stdout, with fixed arguments from formats.ts.
 */
import { AppError, Detail } from "../errors/taxonomy.ts";
import { concatBytes } from "./concat.ts";
import { encodeG711, type SampleEncoding } from "./g711.ts";
import { log } from "../log/logger.ts";
import { FfmpegError, runFfmpeg, streamFfmpeg, type FfmpegResult } from "./ffmpeg.ts";
import {
  ffmpegEncodeArgs,
  patchFlacTotalSamples,
  planEncoding,
  type AudioFormat,
  type EncodingPlan,
} from "./formats.ts";
import { bytesToInt16, floatToInt16, int16ToBytes, wavHeader } from "./wav.ts";

const logger = log.child({ component: "audio" });

/** Options of {@link encodeAudio} and {@link encodeAudioStream}. */
export interface EncodeOptions {
  /** Resample to this rate (8000–48000), e.g. for telephony. */
  readonly targetSampleRate?: number;
  /** Wall-clock limit of the ffmpeg run; defaults scale with the audio length (buffered) or 15 min (streaming). */
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
  const int16 = floatToInt16(pcm);
  const outFrames = Math.ceil((pcm.length * plan.encoderRate) / plan.inputRate);
  const run = (args: string[], input: Uint8Array, frames: number): Promise<Uint8Array> =>
    runChecked(args, input, {
      // Encoders run far faster than real time; allow 5x real time on a loaded box, plus start-up.
      timeoutMs: options.timeoutMs ?? 30_000 + (pcm.length / sampleRate) * 200,
      // Compressed output never exceeds the s16 size by more than container overhead.
      maxOutputBytes: Math.ceil(frames * 2 * 1.25) + (1 << 20),
      signal: options.signal,
    });
  const result = (bytes: Uint8Array): EncodedAudio => ({
    bytes,
    contentType: plan.contentType,
    sampleRate: plan.sampleRate,
  });
  const resampling = plan.encoderRate !== plan.inputRate;

  if (format === "pcm" || format === "wav") {
    const linear = resampling
      ? await run(ffmpegEncodeArgs(plan, "s16le", false), int16ToBytes(int16), outFrames)
      : int16ToBytes(int16);
    const samples = plan.encoding === "pcm_s16le" ? linear : encodeG711(bytesToInt16(linear), plan.encoding);
    if (format === "pcm") return result(samples);
    return result(concatBytes([wavHeader(plan.encoderRate, samples.byteLength, plan.encoding), samples]));
  }
  if (format === "flac") {
    // Resample first so the exact sample count is known for the STREAMINFO patch.
    const samples = resampling
      ? await run(ffmpegEncodeArgs(plan, "s16le", false), int16ToBytes(int16), outFrames)
      : int16ToBytes(int16);
    const flacPlan: EncodingPlan = { ...plan, inputRate: plan.encoderRate };
    const bytes = await run(ffmpegEncodeArgs(flacPlan, "encoded", false), samples, samples.byteLength >> 1);
    patchFlacTotalSamples(bytes, bytesToInt16(samples).length);
    return result(bytes);
  }
  return result(await run(ffmpegEncodeArgs(plan, "encoded", false), int16ToBytes(int16), outFrames));
}

/**
 * Encodes a stream of float PCM chunks through one ffmpeg process (or in-process for wav/pcm at
 * the source rate). Nothing runs until the stream is read; cancelling it stops ffmpeg and the
 * source iterator. WAV streams carry a header with 0xFFFFFFFF sizes, as the length is unknown when
 * the first bytes leave; streamed FLAC likewise has total samples 0 ("unknown"). A failing source
 * errors the stream with its own error; an ffmpeg failure with an {@link FfmpegError}.
 * Headers: see {@link describeEncoding}.
 */
export function encodeAudioStream(
  chunks: AsyncIterable<Float32Array>,
  sampleRate: number,
  format: AudioFormat,
  options: EncodeOptions = {},
): ReadableStream<Uint8Array> {
  const plan = planEncoding(format, sampleRate, options.targetSampleRate, options.encoding);
  const s16 = toS16Chunks(chunks);
  const raw = format === "wav" || format === "pcm";
  const linear =
    raw && plan.encoderRate === plan.inputRate
      ? iterableStream(s16)
      : streamFfmpeg(ffmpegEncodeArgs(plan, raw ? "s16le" : "encoded", true), {
          stdin: s16,
          timeoutMs: options.timeoutMs ?? 15 * 60_000,
          maxOutputBytes: options.maxOutputBytes ?? 2 ** 30,
          signal: options.signal,
        });
  const body = raw && plan.encoding !== "pcm_s16le" ? iterableStream(toG711(linear, plan.encoding)) : linear;
  if (format !== "wav") return body;
  return iterableStream(prepend(wavHeader(plan.encoderRate, undefined, plan.encoding), body));
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

/** Companding of an s16le byte stream whose chunks may split a sample (ffmpeg's pipe does). */
async function* toG711(
  linear: AsyncIterable<Uint8Array>,
  encoding: "pcm_mulaw" | "pcm_alaw",
): AsyncGenerator<Uint8Array> {
  let carry: Uint8Array = new Uint8Array(0);
  for await (const chunk of linear) {
    const bytes = carry.byteLength > 0 ? concatBytes([carry, chunk]) : chunk;
    const whole = bytes.byteLength & ~1;
    carry = bytes.slice(whole);
    if (whole > 0) yield encodeG711(bytesToInt16(bytes.subarray(0, whole)), encoding);
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
