/**
 * Output formats (D8): content types, the sample rate each encoder can take, and the fixed ffmpeg
 * argument lists. Nothing caller-controlled ever reaches an ffmpeg argument except validated
 * integers (sample rates).
 */
import type { SampleEncoding } from "./g711.ts";

/** Response formats of the speech endpoints. */
export type AudioFormat = "mp3" | "wav" | "opus" | "flac" | "aac" | "pcm";

/** All formats, in the order of `Detail.invalidFormat`. */
export const AUDIO_FORMATS: readonly AudioFormat[] = ["aac", "flac", "mp3", "opus", "pcm", "wav"];

/** D8 content types. `pcm` is s16le mono; its rate travels in `X-Sample-Rate`. */
export const CONTENT_TYPES: Readonly<Record<AudioFormat, string>> = {
  mp3: "audio/mpeg",
  wav: "audio/wav",
  opus: "audio/ogg",
  flac: "audio/flac",
  aac: "audio/aac",
  pcm: "audio/pcm",
};

/** Content types of raw G.711 output (`pcm` with `encoding`): RFC 4856's PCMU and PCMA, rate in X-Sample-Rate. */
export const G711_CONTENT_TYPES: Readonly<Record<Exclude<SampleEncoding, "pcm_s16le">, string>> = {
  pcm_mulaw: "audio/pcmu",
  pcm_alaw: "audio/pcma",
};

/** Formats whose samples may be G.711 instead of linear 16-bit (D19). */
export const ENCODABLE_FORMATS: readonly AudioFormat[] = ["pcm", "wav"];

/** Bounds of the `sample_rate` extension field (telephony resampling). */
export const MIN_TARGET_SAMPLE_RATE = 8000;
/** Upper bound of the `sample_rate` extension field. */
export const MAX_TARGET_SAMPLE_RATE = 48000;

// Rates the encoders accept within 8–48 kHz (libmp3lame and ffmpeg's aac list the same ones).
const MPEG_RATES = [8000, 11025, 12000, 16000, 22050, 24000, 32000, 44100, 48000] as const;
const OPUS_RATES = [8000, 12000, 16000, 24000, 48000] as const;
/** Opus decoders always produce 48 kHz; the encoder's input rate only limits the bandwidth. */
const OPUS_DECODED_RATE = 48000;

/** How one encode will run. */
export interface EncodingPlan {
  readonly format: AudioFormat;
  readonly contentType: string;
  /** Rate of the PCM handed to the encoder. */
  readonly inputRate: number;
  /** Rate the encoder runs at (input is resampled to it when different). */
  readonly encoderRate: number;
  /** Rate a client decoding the output gets: `X-Sample-Rate`. Equal to `encoderRate` except for Opus (always 48000). */
  readonly sampleRate: number;
  /** Sample encoding of pcm/wav output (linear 16-bit or G.711); always pcm_s16le for other formats. */
  readonly encoding: SampleEncoding;
}

/** Type guard for {@link AudioFormat}. */
export function isAudioFormat(value: unknown): value is AudioFormat {
  return typeof value === "string" && (AUDIO_FORMATS as readonly string[]).includes(value);
}

/**
 * Picks the rates for encoding `inputRate` PCM as `format`, honouring `targetSampleRate` (an
 * integer in 8000–48000; callers validate user input first, anything else is a programming error).
 * mp3/aac use the smallest supported rate ≥ the wanted one (22050 and 16000 are native); Opus
 * likewise among 8/12/16/24/48 kHz; wav/pcm/flac take any rate.
 */
export function planEncoding(
  format: AudioFormat,
  inputRate: number,
  targetSampleRate?: number,
  encoding: SampleEncoding = "pcm_s16le",
): EncodingPlan {
  if (!isAudioFormat(format)) throw new RangeError(`unknown audio format`);
  if (encoding !== "pcm_s16le" && !ENCODABLE_FORMATS.includes(format))
    throw new RangeError(`${encoding} applies to pcm and wav only`);
  if (!Number.isInteger(inputRate) || inputRate < 1000 || inputRate > 384000)
    throw new RangeError(`invalid input sample rate ${inputRate}`);
  if (
    targetSampleRate !== undefined &&
    (!Number.isInteger(targetSampleRate) ||
      targetSampleRate < MIN_TARGET_SAMPLE_RATE ||
      targetSampleRate > MAX_TARGET_SAMPLE_RATE)
  ) {
    throw new RangeError(`targetSampleRate must be an integer in ${MIN_TARGET_SAMPLE_RATE}-${MAX_TARGET_SAMPLE_RATE}`);
  }
  const wanted = targetSampleRate ?? inputRate;
  let encoderRate = wanted;
  if (format === "mp3" || format === "aac") encoderRate = atLeast(MPEG_RATES, wanted);
  if (format === "opus") encoderRate = atLeast(OPUS_RATES, wanted);
  const sampleRate = format === "opus" ? OPUS_DECODED_RATE : encoderRate;
  const contentType =
    format === "pcm" && encoding !== "pcm_s16le" ? G711_CONTENT_TYPES[encoding] : CONTENT_TYPES[format];
  return { format, contentType, inputRate, encoderRate, sampleRate, encoding };
}

function atLeast(rates: readonly number[], wanted: number): number {
  return rates.find((rate) => rate >= wanted) ?? rates[rates.length - 1]!;
}

/**
 * ffmpeg arguments (after the hardened prefix) reading s16le mono from `pipe:0` and writing the
 * planned format to `pipe:1`. For wav/pcm/flac-resampling the output is raw s16le; WAV headers and
 * FLAC totals are handled in-process. `streaming` asks the muxers to emit pages/packets promptly.
 */
export function ffmpegEncodeArgs(plan: EncodingPlan, target: "encoded" | "s16le", streaming: boolean): string[] {
  const args = ["-f", "s16le", "-ar", String(plan.inputRate), "-ac", "1"];
  // Raw input has nothing to probe, but ffmpeg would still read seconds of it (analyzeduration)
  // before encoding: a stream's first bytes would wait for two or three sentences.
  if (streaming) args.push("-probesize", "32", "-analyzeduration", "0");
  args.push("-i", "pipe:0");
  args.push(
    "-map_metadata",
    "-1",
    "-fflags",
    "+bitexact",
    "-threads",
    "1",
    "-ac",
    "1",
    "-ar",
    String(plan.encoderRate),
  );
  const narrow = plan.encoderRate <= 16000;
  if (target === "s16le") args.push("-c:a", "pcm_s16le", "-f", "s16le");
  else if (plan.format === "mp3") args.push("-c:a", "libmp3lame", "-b:a", narrow ? "32k" : "64k", "-f", "mp3");
  else if (plan.format === "aac") args.push("-c:a", "aac", "-b:a", narrow ? "32k" : "64k", "-f", "adts");
  else if (plan.format === "opus") {
    args.push("-c:a", "libopus", "-b:a", narrow ? "24k" : "32k", "-f", "ogg");
    // The ogg muxer otherwise holds a second of audio per page: too slow for time-to-first-audio.
    if (streaming) args.push("-page_duration", "100000");
  } else if (plan.format === "flac") args.push("-c:a", "flac", "-f", "flac");
  else args.push("-c:a", "pcm_s16le", "-f", "s16le");
  if (streaming) args.push("-flush_packets", "1");
  args.push("pipe:1");
  return args;
}

/**
 * Writes the total sample count into a FLAC STREAMINFO block. ffmpeg cannot seek back on a pipe,
 * so it leaves 0 ("unknown"), which makes players and ffprobe show no duration. Returns false
 * (bytes untouched) when the stream does not start with fLaC + STREAMINFO.
 */
export function patchFlacTotalSamples(bytes: Uint8Array, totalSamples: number): boolean {
  const isFlac =
    bytes.byteLength >= 42 && bytes[0] === 0x66 && bytes[1] === 0x4c && bytes[2] === 0x61 && bytes[3] === 0x43;
  if (!isFlac || ((bytes[4] ?? 0) & 0x7f) !== 0 || totalSamples < 0 || totalSamples >= 2 ** 36) return false;
  // STREAMINFO body starts at 8; the 36-bit total is the low nibble of byte 21 plus bytes 22-25.
  bytes[21] = ((bytes[21] ?? 0) & 0xf0) | Math.floor(totalSamples / 2 ** 32);
  new DataView(bytes.buffer, bytes.byteOffset).setUint32(22, totalSamples >>> 0, false);
  return true;
}
