/**
 * Hardened decoding of an uploaded file to 16 kHz mono float32 for the ASR engines. Uploads are
 * hostile input to a large C parser, so ffmpeg may only use local files and pipes, only the
 * demuxers and audio decoders of the accepted upload types, a bounded probe, a bounded duration
 * and output, a wall-clock limit and a limiter slot. Every failure becomes the spec's
 * `Couldn't transcribe the file: <reason>` with one of a few fixed reasons; ffmpeg's own text
 * (which names the file) is only logged, sanitized.
 */
import { stat } from "node:fs/promises";
import { AppError, Detail, cannotTranscribe } from "../errors/taxonomy.ts";
import { log } from "../log/logger.ts";
import { runFfmpeg } from "./ffmpeg.ts";
import { SPEECH_SAMPLE_RATE } from "./speech-rate.ts";

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

/** ffmpeg arguments decoding `path` (hardened prefix excluded). */
export function decodeArgs(path: string, maxDurationSeconds: number): string[] {
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
    "-ac",
    "1",
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
  let size: number;
  try {
    size = (await stat(path)).size;
  } catch (error) {
    // The upload vanished under us: our fault, not the client's. The error's message names the path.
    throw new AppError("internal", Detail.internal, {
      cause: new Error(`upload not readable (${(error as { code?: string }).code ?? "error"})`),
    });
  }
  if (size === 0) throw cannotTranscribe(DecodeReason.empty);

  const maxSamples = Math.ceil(maxDurationSeconds * SPEECH_SAMPLE_RATE);
  const outcome = await runFfmpeg(decodeArgs(path, maxDurationSeconds), {
    timeoutMs: options.timeoutMs ?? 120_000,
    // `-t` already bounds the output; the slack covers resampler flush and encoder padding.
    maxOutputBytes: (maxSamples + SPEECH_SAMPLE_RATE) * 4,
    signal: options.signal,
  });
  if (!outcome.ok) {
    logger.info("audio decode failed", { failure: outcome.failure, reason: outcome.reason });
    if (outcome.failure === "aborted") throw options.signal?.reason ?? new AppError("internal", Detail.internal);
    if (outcome.failure === "spawn")
      throw new AppError("internal", Detail.internal, { cause: new Error("ffmpeg could not be started") });
    if (outcome.failure === "timeout") throw cannotTranscribe(DecodeReason.timeout);
    if (outcome.failure === "no_stream") throw cannotTranscribe(DecodeReason.noAudio);
    throw cannotTranscribe(DecodeReason.corrupt);
  }
  const bytes = outcome.stdout;
  // runFfmpeg hands back a fresh, aligned buffer, so a float view costs nothing.
  const samples = new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength >> 2).subarray(0, maxSamples);
  if (samples.length === 0) throw cannotTranscribe(DecodeReason.empty);
  return { samples, sampleRate: SPEECH_SAMPLE_RATE, durationSeconds: samples.length / SPEECH_SAMPLE_RATE };
}
