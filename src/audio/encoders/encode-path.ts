/**
 * The in-process encode path of TTS output: float PCM chunks are resampled with the one
 * {@link StreamingResampler}, turned into 16-bit samples and then raw s16le, G.711, MP3
 * (libmp3lame), Ogg Opus (libopus) or FLAC (libFLAC). No process is started; the same chunks give the same bytes
 * whether they arrive at once (buffered responses) or one sentence at a time (streams).
 */
import { AppError, Detail } from "../../errors/taxonomy.ts";
import { log } from "../../log/logger.ts";
import { concatBytes } from "../concat.ts";
import type { EncodingPlan } from "../formats.ts";
import { encodeG711 } from "../g711.ts";
import { StreamingResampler } from "../resampler.ts";
import { floatToInt16, int16ToBytes } from "../wav.ts";
import type { PcmEncoder } from "./encoder.ts";
import { createFlacEncoder, flacStatus } from "./flac.ts";
import { createMp3Encoder, lameStatus } from "./lame.ts";
import { createOggOpusEncoder, opusStatus } from "./opus.ts";

const logger = log.child({ component: "audio" });
const warned = new Set<string>();

/** Bit rates (kbit/s) of the compressed formats: narrow-band (≤ 16 kHz) speech needs less. */
export function bitrateKbps(format: "mp3" | "aac" | "opus", encoderRate: number): number {
  const narrow = encoderRate <= 16000;
  if (format === "opus") return narrow ? 24 : 32;
  return narrow ? 32 : 64;
}

/**
 * Whether `plan` can be encoded in process: always for pcm/wav, for mp3/opus/flac when the codec
 * library loads (otherwise ffmpeg stays the fallback, with one warning per format). AAC always
 * goes through ffmpeg: Debian has no in-process AAC encoder short of libavcodec itself.
 */
export function encodesInProcess(plan: EncodingPlan): boolean {
  if (plan.format === "pcm" || plan.format === "wav") return true;
  if (plan.format === "aac") return false;
  const status = plan.format === "mp3" ? lameStatus() : plan.format === "opus" ? opusStatus() : flacStatus();
  if (!status.ok && !warned.has(plan.format)) {
    warned.add(plan.format);
    logger.warn("codec library missing, encoding through ffmpeg", { format: plan.format, reason: status.reason });
  }
  return status.ok;
}

/** Limits of one in-process encode. */
export interface EncodeLimits {
  readonly maxOutputBytes: number;
  /** Samples the encoder will get, when known before the first (FLAC writes it into STREAMINFO). */
  readonly totalFrames?: number;
  readonly signal?: AbortSignal;
}

/**
 * One stream's in-process encode (see {@link encodesInProcess}), fed synchronously: float PCM at
 * the plan's input rate in, the bytes it completes out (raw s16le or G.711 for pcm and a wav body,
 * MP3 frames, Ogg pages, FLAC frames). The same samples give the same bytes however they are cut.
 * {@link close} frees the native encoder however the stream ends.
 */
export class StreamEncoder {
  private readonly resampler: StreamingResampler | undefined;
  private readonly encoder: PcmEncoder | undefined;
  private sent = 0;
  /** Samples handed to the encoder so far, at its rate. */
  encodedSamples = 0;

  constructor(
    private readonly plan: EncodingPlan,
    private readonly maxOutputBytes = Number.POSITIVE_INFINITY,
    totalFrames?: number,
  ) {
    this.resampler =
      plan.encoderRate === plan.inputRate ? undefined : new StreamingResampler(plan.inputRate, plan.encoderRate);
    this.encoder = native(() => openEncoder(plan, totalFrames));
  }

  /** Encodes the next samples; returns the bytes they complete (possibly none). */
  push(samples: Float32Array): Uint8Array {
    if (samples.length === 0) return new Uint8Array(0);
    return this.emit(this.resampler ? this.resampler.push(samples) : samples);
  }

  /**
   * Hands out what the resampler still owes for the samples so far, as if silence followed (a
   * stream paused at a flush); raw formats then hold nothing back. A codec's partial frame stays
   * in the codec until more audio or {@link finish}.
   */
  settle(): Uint8Array {
    return this.resampler ? this.emit(this.resampler.settle()) : new Uint8Array(0);
  }

  /** Ends the stream: the resampler's tail and what the codec still held. */
  finish(): Uint8Array {
    const tail = this.resampler ? this.emit(this.resampler.flush()) : new Uint8Array(0);
    const encoder = this.encoder;
    const held = encoder === undefined ? new Uint8Array(0) : this.checked(native(() => encoder.finish()));
    return concatBytes([tail, held]);
  }

  /** Frees the native encoder; safe to call more than once. */
  close(): void {
    this.encoder?.close();
  }

  private emit(samples: Float32Array): Uint8Array {
    if (samples.length === 0) return new Uint8Array(0);
    this.encodedSamples += samples.length;
    const int16 = floatToInt16(samples);
    const encoder = this.encoder;
    if (encoder !== undefined) return this.checked(native(() => encoder.encode(int16)));
    return this.checked(
      this.plan.encoding === "pcm_s16le" ? int16ToBytes(int16) : encodeG711(int16, this.plan.encoding),
    );
  }

  private checked(bytes: Uint8Array): Uint8Array {
    this.sent += bytes.byteLength;
    if (this.sent > this.maxOutputBytes)
      throw new AppError("internal", Detail.internal, { cause: new Error("encoded output over its limit") });
    return bytes;
  }
}

/**
 * Encodes `chunks` per `plan` (pcm, wav body, mp3 or opus; see {@link encodesInProcess}). A
 * failing source ends the generator with the source's own error; a codec failure is AppError
 * `internal`. The native encoder is freed however the generator ends.
 */
export async function* encodeChunks(
  chunks: AsyncIterable<Float32Array>,
  plan: EncodingPlan,
  limits: EncodeLimits,
): AsyncGenerator<Uint8Array> {
  const encoder = new StreamEncoder(plan, limits.maxOutputBytes, limits.totalFrames);
  try {
    for await (const chunk of chunks) {
      limits.signal?.throwIfAborted();
      const bytes = encoder.push(chunk);
      if (bytes.byteLength > 0) yield bytes;
    }
    const rest = encoder.finish();
    if (rest.byteLength > 0) yield rest;
  } finally {
    encoder.close();
  }
}

function openEncoder(plan: EncodingPlan, totalFrames: number | undefined): PcmEncoder | undefined {
  if (plan.format === "flac") return createFlacEncoder(plan.encoderRate, totalFrames);
  if (plan.format === "mp3") return createMp3Encoder(plan.encoderRate, bitrateKbps("mp3", plan.encoderRate));
  if (plan.format === "opus") return createOggOpusEncoder(plan.encoderRate, bitrateKbps("opus", plan.encoderRate));
  return undefined;
}

/** Runs a codec call; its failure becomes AppError `internal` (logged without user data). */
function native<T>(call: () => T): T {
  try {
    return call();
  } catch (error) {
    logger.warn("audio encode failed", { reason: error instanceof Error ? error.message : String(error) });
    throw new AppError("internal", Detail.internal, { cause: error });
  }
}
