/**
 * Hardened decoding of an uploaded file to 16 kHz mono float32 for the ASR engines. Plain WAV
 * files (PCM, float, G.711; mono or stereo) are read in-process by ./wav-upload.ts, with the same
 * limits, samples and errors; everything else goes to ffmpeg. Uploads are hostile input to a large
 * C parser, so ffmpeg may only use local files and pipes, only the demuxers and audio decoders of
 * the accepted upload types, a bounded probe, a bounded duration and output, a wall-clock limit
 * and a limiter slot. Every failure becomes the spec's `Couldn't transcribe the file: <reason>`
 * with one of a few fixed reasons; ffmpeg's own text (which names the file) is only logged,
 * sanitized.
 */
import { randomBytes } from "node:crypto";
import { open, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import { AppError, Detail, cannotTranscribe } from "../errors/taxonomy.ts";
import { log } from "../log/logger.ts";
import { concatSamples } from "./concat.ts";
import { FfmpegError, runFfmpeg, streamFfmpeg, type FfmpegFailure } from "./ffmpeg.ts";
import { SPEECH_SAMPLE_RATE } from "./speech-rate.ts";
import { inspectWavUpload, readWavUpload, WavReadTimeout, type WavReadOptions, type WavUpload } from "./wav-upload.ts";

const logger = log.child({ component: "audio" });

/**
 * Demuxers an upload may be read with (`-format_whitelist`). ffmpeg matches any one name of a
 * demuxer's comma-separated list, so `mov` admits "mov,mp4,m4a,3gp,3g2,mj2" (mp4, m4a) and
 * `matroska` admits "matroska,webm". `mp3` also covers .mpga and raw MP2; `mpeg` is MPEG-PS and
 * `mpegts` MPEG-TS (.mpeg). Playlists and indirections (concat/ffconcat, hls, image2, …) are
 * absent on purpose: they would make ffmpeg open further files named by the upload.
 */
export const ALLOWED_DEMUXERS: readonly string[] = ["wav", "mp3", "mov", "mpeg", "mpegts", "ogg", "matroska", "flac"];

/**
 * Decoders ffmpeg may open (`-codec_whitelist`): the audio codecs those containers carry for
 * speech. Video decoders are excluded so ffmpeg's stream probing never parses video bitstreams of
 * an upload; files with a video track still decode their audio.
 */
export const ALLOWED_DECODERS: readonly string[] = [
  "pcm_s16le",
  "pcm_s16be",
  "pcm_s24le",
  "pcm_s32le",
  "pcm_f32le",
  "pcm_f64le",
  "pcm_u8",
  "pcm_mulaw",
  "pcm_alaw",
  "adpcm_ms",
  "adpcm_ima_wav",
  "gsm_ms",
  "mp1",
  "mp1float",
  "mp2",
  "mp2float",
  "mp3",
  "mp3float",
  "aac",
  "aac_fixed",
  "aac_latm",
  "alac",
  "ac3",
  "ac3_fixed",
  "opus",
  "libopus",
  "vorbis",
  "libvorbis",
  "flac",
];

/** Limits of one decode. */
export interface DecodeOptions {
  /** Audio beyond this is not decoded (`-t`). Default 3 hours. */
  readonly maxDurationSeconds?: number;
  /** Wall-clock limit of the ffmpeg run. Default 120 s. */
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
  /**
   * One channel (0-based) of a multi-channel file instead of the mono mix: how a recording whose
   * channels are transcribed apart is read (./channel-count.ts says how many there are).
   */
  readonly channel?: number;
}

/** Decoded upload. */
export interface DecodedAudio {
  readonly samples: Float32Array;
  readonly sampleRate: typeof SPEECH_SAMPLE_RATE;
  readonly durationSeconds: number;
}

/** Reasons the client may see after `Couldn't transcribe the file: `. */
export const DecodeReason = {
  noAudio: "no audio stream",
  corrupt: "unsupported or corrupt audio",
  empty: "audio is empty",
  timeout: "decoding timed out",
} as const;

/** ffmpeg arguments decoding `path` (hardened prefix excluded): the mono mix, or one `channel`. */
export function decodeArgs(path: string, maxDurationSeconds: number, channel?: number): string[] {
  return [
    "-protocol_whitelist",
    "file,pipe",
    "-format_whitelist",
    ALLOWED_DEMUXERS.join(","),
    "-codec_whitelist",
    ALLOWED_DECODERS.join(","),
    "-probesize",
    "5000000",
    "-analyzeduration",
    "10000000",
    "-t",
    String(maxDurationSeconds),
    // The explicit `file:` keeps a name containing ':' from being read as a protocol.
    "-i",
    `file:${path}`,
    "-map",
    "0:a:0",
    "-vn",
    "-sn",
    "-dn",
    "-threads",
    "1",
    // One channel is picked by the pan filter (unity gain, no mixing); otherwise ffmpeg's mix.
    ...(channel === undefined ? ["-ac", "1"] : ["-af", `pan=mono|c0=c${Math.trunc(channel)}`]),
    "-ar",
    String(SPEECH_SAMPLE_RATE),
    "-f",
    "f32le",
    "pipe:1",
  ];
}

/**
 * Decodes the first audio stream of the file at `path` (an upload Sawt stored; the path is never
 * logged or returned) to 16 kHz mono float32. Throws `cannotTranscribe(reason)` for unusable input.
 */
export async function decodeAudioFile(path: string, options: DecodeOptions = {}): Promise<DecodedAudio> {
  const maxDurationSeconds = options.maxDurationSeconds ?? 3 * 3600;
  await assertReadableUpload(path);

  const maxSamples = Math.ceil(maxDurationSeconds * SPEECH_SAMPLE_RATE);
  const wav = await inspectWavUpload(path);
  if (wav !== null) {
    const chunks: Float32Array[] = [];
    for await (const chunk of wavChunks(path, wav, options, maxSamples)) chunks.push(chunk);
    const samples = concatSamples(chunks);
    if (samples.length === 0) throw cannotTranscribe(DecodeReason.empty);
    return { samples, sampleRate: SPEECH_SAMPLE_RATE, durationSeconds: samples.length / SPEECH_SAMPLE_RATE };
  }
  const outcome = await runFfmpeg(decodeArgs(path, maxDurationSeconds, options.channel), {
    timeoutMs: options.timeoutMs ?? 120_000,
    // `-t` already bounds the output; the slack covers resampler flush and encoder padding.
    maxOutputBytes: (maxSamples + SPEECH_SAMPLE_RATE) * 4,
    signal: options.signal,
  });
  if (!outcome.ok) throw decodeFailure(outcome.failure, outcome.reason, options.signal);
  const bytes = outcome.stdout;
  // runFfmpeg hands back a fresh, aligned buffer, so a float view costs nothing.
  const samples = new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength >> 2).subarray(0, maxSamples);
  if (samples.length === 0) throw cannotTranscribe(DecodeReason.empty);
  return { samples, sampleRate: SPEECH_SAMPLE_RATE, durationSeconds: samples.length / SPEECH_SAMPLE_RATE };
}

/** A WAV upload read in-process under the decode's limits, its timeout the ffmpeg path's error. */
async function* wavChunks(
  path: string,
  wav: WavUpload,
  options: DecodeOptions,
  chunkSamples: number,
): AsyncGenerator<Float32Array> {
  const limits: WavReadOptions = {
    maxDurationSeconds: options.maxDurationSeconds ?? 3 * 3600,
    timeoutMs: options.timeoutMs ?? 120_000,
    chunkSamples,
    signal: options.signal,
    ...(options.channel !== undefined ? { channel: options.channel } : {}),
  };
  try {
    yield* readWavUpload(path, wav, limits);
  } catch (error) {
    if (error instanceof WavReadTimeout) throw cannotTranscribe(DecodeReason.timeout);
    throw error;
  }
}

/** Fails with the internal error when the stored upload vanished, `audio is empty` when it is empty. */
export async function assertReadableUpload(path: string): Promise<void> {
  let size: number;
  try {
    size = (await stat(path)).size;
  } catch (error) {
    // The upload vanished under us: our fault, not the client's. The error's message names the path.
    const code = (error as { code?: string }).code ?? "error";
    throw new AppError("internal", Detail.internal, { cause: new Error(`upload not readable (${code})`) });
  }
  if (size === 0) throw cannotTranscribe(DecodeReason.empty);
}

/** The client-facing error of a failed ffmpeg run; ffmpeg's own reason goes to the log only. */
export function decodeFailure(failure: FfmpegFailure, reason: string, signal: AbortSignal | undefined): unknown {
  logger.info("audio decode failed", { failure, reason });
  if (failure === "aborted") return signal?.reason ?? new AppError("internal", Detail.internal);
  if (failure === "spawn") {
    return new AppError("internal", Detail.internal, { cause: new Error("ffmpeg could not be started") });
  }
  if (failure === "timeout") return cannotTranscribe(DecodeReason.timeout);
  if (failure === "no_stream") return cannotTranscribe(DecodeReason.noAudio);
  return cannotTranscribe(DecodeReason.corrupt);
}

/** Limits of a spooled decode. */
export interface ChunkedDecodeOptions extends DecodeOptions {
  /** Largest chunk handed out, in samples. Default one second. */
  readonly chunkSamples?: number;
  /** Where the decoded PCM is spooled (a private directory on disk, never a tmpfs). */
  readonly spoolDir: string;
}

/** Name prefix of spool files: the upload sweep (`upload-…`) removes any a dead process left. */
export const SPOOL_PREFIX = "upload-pcm-";

/**
 * Decodes like {@link decodeAudioFile} but never holds the decoded audio in memory: ffmpeg's
 * float output is streamed to a spool file in `spoolDir` (one hour of silence compressed to
 * 600 KB is 230 MB of floats), then handed out in chunks of at most `chunkSamples`. ffmpeg's
 * wall-clock limit covers the decode alone, not the recognition that consumes the chunks. The
 * spool is deleted when the iteration ends, however it ends. Errors are those of decodeAudioFile.
 */
export async function* decodeAudioChunks(path: string, options: ChunkedDecodeOptions): AsyncGenerator<Float32Array> {
  const chunkSamples = Math.max(1, options.chunkSamples ?? SPEECH_SAMPLE_RATE);
  await assertReadableUpload(path);
  const wav = await inspectWavUpload(path);
  if (wav !== null) {
    // Read straight from the upload, chunk by chunk: no spool, no ffmpeg.
    let total = 0;
    for await (const chunk of wavChunks(path, wav, options, chunkSamples)) {
      total += chunk.length;
      yield chunk;
    }
    if (total === 0) throw cannotTranscribe(DecodeReason.empty);
    return;
  }
  const spool = join(options.spoolDir, `${SPOOL_PREFIX}${randomBytes(12).toString("hex")}.f32`);
  try {
    const total = await decodeToSpool(path, spool, options);
    if (total === 0) throw cannotTranscribe(DecodeReason.empty);
    const file = await open(spool, "r");
    try {
      for (let at = 0; at < total; at += chunkSamples) {
        const samples = new Float32Array(Math.min(chunkSamples, total - at));
        const view = new Uint8Array(samples.buffer);
        const { bytesRead } = await file.read(view, 0, view.byteLength, at * 4);
        if (bytesRead !== view.byteLength) {
          throw new AppError("internal", Detail.internal, { cause: new Error("spool truncated") });
        }
        options.signal?.throwIfAborted();
        yield samples;
      }
    } finally {
      await file.close();
    }
  } finally {
    await rm(spool, { force: true });
  }
}

/** Streams ffmpeg's float output of `path` into `spool`; returns the samples written (capped). */
async function decodeToSpool(path: string, spool: string, options: ChunkedDecodeOptions): Promise<number> {
  const maxDurationSeconds = options.maxDurationSeconds ?? 3 * 3600;
  const maxBytes = Math.ceil(maxDurationSeconds * SPEECH_SAMPLE_RATE) * 4;
  const stream = streamFfmpeg(decodeArgs(path, maxDurationSeconds, options.channel), {
    timeoutMs: options.timeoutMs ?? 120_000,
    maxOutputBytes: maxBytes + SPEECH_SAMPLE_RATE * 4,
    signal: options.signal,
  });
  const out = await open(spool, "wx", 0o600);
  let written = 0;
  try {
    for await (const chunk of stream) {
      const keep = chunk.subarray(0, Math.max(0, maxBytes - written));
      if (keep.byteLength > 0) await out.write(keep, 0, keep.byteLength, written);
      written += keep.byteLength;
    }
  } catch (error) {
    if (error instanceof FfmpegError) throw decodeFailure(error.failure, error.reason, options.signal);
    throw error;
  } finally {
    await out.close();
  }
  return written >> 2;
}
