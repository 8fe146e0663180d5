/**
 * Plain WAV uploads read in-process (issue #19): no ffmpeg process for a RIFF/WAVE file of 16-bit
 * PCM, 32-bit float, μ-law or A-law (format tags 1, 3, 7, 6, or WAVE_FORMAT_EXTENSIBLE with those
 * subformats), mono or stereo, at any sample rate. The samples are what ffmpeg's decode gave
 * before: 16-bit and G.711 values scaled by 1/32768, stereo mixed as ffmpeg's `-ac 1` mixes it
 * ((L + R)·√½ in float, not the mean), other rates brought to 16 kHz by the one streaming resampler
 * (./resampler.ts), and at most the duration limit decoded.
 *
 * Only files whose outcome is certain take this path: the fmt and data chunks within the first
 * {@link HEADER_BYTES}, a consistent block size, at least one whole frame, and a data size that is
 * either exact (a shorter file is read to its end, as ffmpeg does) or the streamed 0xFFFFFFFF.
 * Anything else (other encodings, more channels, a zero data size, odd headers, no RIFF at all)
 * returns null and goes to ffmpeg, so every refusal keeps ffmpeg's reason.
 */
import { open, type FileHandle } from "node:fs/promises";
import { decodeG711 } from "./g711.ts";
import { StreamingResampler } from "./resampler.ts";
import { SPEECH_SAMPLE_RATE } from "./speech-rate.ts";
import { bytesToInt16, int16ToFloat, parseWavHeader, WAV_UNKNOWN_SIZE } from "./wav.ts";

/** How much of the file's start the fmt and data chunk headers must lie in. */
export const HEADER_BYTES = 64 * 1024;
/** Sample rates read in-process; others (implausible ones) are left to ffmpeg. */
const RATES = { min: 1000, max: 384_000 } as const;
/** Bytes per sample of each format tag read in-process. */
const SAMPLE_BYTES: Readonly<Record<number, number>> = { 1: 2, 3: 4, 6: 1, 7: 1 };
/** Frames read from the file per block. */
const BLOCK_FRAMES = 1 << 16;
/** ffmpeg's stereo → mono coefficient, as the float its mixer multiplies by. */
const MIX = Math.fround(Math.SQRT1_2);
/** SPEAKER_FRONT_LEFT | SPEAKER_FRONT_RIGHT. */
const FRONT_LEFT_RIGHT = 0x3;
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** A WAV upload read in-process: where its frames are and how they are coded. */
export interface WavUpload {
  readonly formatTag: 1 | 3 | 6 | 7;
  readonly channels: 1 | 2;
  readonly sampleRate: number;
  readonly dataOffset: number;
  /** Whole frames present. */
  readonly frames: number;
}

/** The WAV upload at `path` when it can be read in-process, else null (ffmpeg decodes it). */
export async function inspectWavUpload(path: string): Promise<WavUpload | null> {
  const file = await open(path, "r");
  try {
    const { size } = await file.stat();
    const head = new Uint8Array(Math.min(size, HEADER_BYTES));
    await readFully(file, head, 0);
    return wavUploadOf(head, size);
  } finally {
    await file.close();
  }
}

/** {@link inspectWavUpload} on the file's first bytes and its size. */
export function wavUploadOf(head: Uint8Array, fileSize: number): WavUpload | null {
  let info: ReturnType<typeof parseWavHeader>;
  try {
    info = parseWavHeader(head);
  } catch {
    return null;
  }
  const { formatTag, channels, sampleRate, blockAlign, bitsPerSample, dataOffset, channelMask } = info;
  const declaredBytes = info.declaredDataBytes;
  const sampleBytes = SAMPLE_BYTES[formatTag];
  if (sampleBytes === undefined || bitsPerSample !== sampleBytes * 8) return null;
  if ((channels !== 1 && channels !== 2) || blockAlign !== channels * sampleBytes) return null;
  // Two channels are mixed as front left + right; ffmpeg refuses other stereo layouts (side pairs, …).
  if (channelMask === null || (channels === 2 && channelMask !== 0 && channelMask !== FRONT_LEFT_RIGHT)) return null;
  if (!Number.isInteger(sampleRate) || sampleRate < RATES.min || sampleRate > RATES.max) return null;
  // A zero size makes ffmpeg read whatever follows as audio; leave that (and its refusals) to it.
  if (declaredBytes === 0) return null;
  const present = fileSize - dataOffset;
  const dataBytes = declaredBytes === WAV_UNKNOWN_SIZE ? present : Math.min(declaredBytes, present);
  const frames = Math.floor(dataBytes / blockAlign);
  if (frames === 0) return null;
  return { formatTag: formatTag as WavUpload["formatTag"], channels, sampleRate, dataOffset, frames };
}

/** Limits of {@link readWavUpload}. */
export interface WavReadOptions {
  /** Audio beyond this many seconds is not read. */
  readonly maxDurationSeconds: number;
  /** Largest chunk handed out, in 16 kHz samples. */
  readonly chunkSamples: number;
  /**
   * Wall-clock limit of the reading itself (time the consumer spends between chunks not counted),
   * the ffmpeg path's decode limit; past it {@link WavReadTimeout} is thrown.
   */
  readonly timeoutMs: number;
  readonly signal?: AbortSignal;
  /** One channel (0-based) instead of the mono mix. */
  readonly channel?: number;
}

/** Reading the upload took longer than its `timeoutMs`. */
export class WavReadTimeout extends Error {
  constructor() {
    super("reading the WAV upload timed out");
  }
}

/** The upload's audio as 16 kHz mono float, in chunks of at most `chunkSamples`. */
export async function* readWavUpload(
  path: string,
  wav: WavUpload,
  options: WavReadOptions,
): AsyncGenerator<Float32Array> {
  const maxSamples = Math.ceil(options.maxDurationSeconds * SPEECH_SAMPLE_RATE);
  // Enough input for maxSamples of output; the output is cut there exactly.
  const frames = Math.min(wav.frames, Math.ceil(options.maxDurationSeconds * wav.sampleRate));
  const blockAlign = wav.channels * (SAMPLE_BYTES[wav.formatTag] ?? 1);
  const resampler = new StreamingResampler(wav.sampleRate, SPEECH_SAMPLE_RATE);
  const out = new ChunkQueue(options.chunkSamples, maxSamples);
  let busy = 0;
  const file = await open(path, "r");
  try {
    const buffer = new Uint8Array(BLOCK_FRAMES * blockAlign);
    for (let at = 0; at < frames && !out.full; at += BLOCK_FRAMES) {
      options.signal?.throwIfAborted();
      const started = performance.now();
      const bytes = buffer.subarray(0, Math.min(BLOCK_FRAMES, frames - at) * blockAlign);
      await readFully(file, bytes, wav.dataOffset + at * blockAlign);
      out.add(resampler.push(toMono(bytes, wav, options.channel)));
      busy += performance.now() - started;
      if (busy > options.timeoutMs) throw new WavReadTimeout();
      yield* out.take(false);
    }
  } finally {
    await file.close();
  }
  out.add(resampler.flush());
  yield* out.take(true);
}

/** One block of frames as mono float, the way ffmpeg's decoder and mixer (or its pan filter, for one `channel`) produce it. */
function toMono(bytes: Uint8Array, wav: WavUpload, channel?: number): Float32Array {
  let samples: Float32Array;
  if (wav.formatTag === 3) samples = floats(bytes);
  else {
    const ints =
      wav.formatTag === 1 ? bytesToInt16(bytes) : decodeG711(bytes, wav.formatTag === 7 ? "pcm_mulaw" : "pcm_alaw");
    samples = int16ToFloat(ints);
  }
  if (wav.channels === 1) return samples;
  if (channel !== undefined) return samples.filter((_, i) => i % 2 === channel);
  const mono = new Float32Array(samples.length >> 1);
  for (let i = 0; i < mono.length; i++)
    mono[i] = Math.fround(samples[2 * i]! * MIX) + Math.fround(samples[2 * i + 1]! * MIX);
  return mono;
}

/** Little-endian float32 bytes as floats (a copy: the read buffer is reused). */
function floats(bytes: Uint8Array): Float32Array {
  const count = bytes.byteLength >> 2;
  if (LITTLE_ENDIAN && bytes.byteOffset % 4 === 0)
    return new Float32Array(bytes.buffer, bytes.byteOffset, count).slice();
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return Float32Array.from({ length: count }, (_, i) => view.getFloat32(i * 4, true));
}

/** Reads exactly `into.length` bytes at `position` (the file was sized beforehand). */
async function readFully(file: FileHandle, into: Uint8Array, position: number): Promise<void> {
  let done = 0;
  while (done < into.length) {
    const { bytesRead } = await file.read(into, done, into.length - done, position + done);
    if (bytesRead === 0) throw new Error("upload shrank while it was read");
    done += bytesRead;
  }
}

/** Output samples gathered into chunks of a fixed size, cut at a total. */
class ChunkQueue {
  private readonly parts: Float32Array[] = [];
  private held = 0;
  private given = 0;

  constructor(
    private readonly chunk: number,
    private readonly limit: number,
  ) {}

  /** Whether the limit is reached (nothing more is wanted). */
  get full(): boolean {
    return this.given + this.held >= this.limit;
  }

  add(samples: Float32Array): void {
    const room = this.limit - this.given - this.held;
    if (room <= 0 || samples.length === 0) return;
    const kept = samples.length > room ? samples.subarray(0, room) : samples;
    this.parts.push(kept);
    this.held += kept.length;
  }

  /** Whole chunks held; with `all`, the remainder too. */
  *take(all: boolean): Generator<Float32Array> {
    while (this.held >= this.chunk || (all && this.held > 0)) {
      const size = Math.min(this.chunk, this.held);
      const out = new Float32Array(size);
      let filled = 0;
      while (filled < size) {
        const part = this.parts[0]!;
        const used = Math.min(part.length, size - filled);
        out.set(part.subarray(0, used), filled);
        filled += used;
        if (used === part.length) this.parts.shift();
        else this.parts[0] = part.subarray(used);
      }
      this.held -= size;
      this.given += size;
      yield out;
    }
  }
}
