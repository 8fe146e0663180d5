/**
 * Raw-PCM conversions at the gRPC edge: the wire carries signed 16-bit little-endian mono (the
 * LINEAR_PCM of Riva and of telephony), the engines float samples. Resampling runs through ffmpeg
 * (fixed arguments, raw PCM on pipes only).
 */
import { AppError, Detail } from "../errors/taxonomy.ts";

/** The rate the ASR engines take. */
export const ASR_SAMPLE_RATE = 16000;

/** Signed 16-bit little-endian bytes → float samples in [-1, 1). `bytes.length` must be even. */
export function s16leToFloat(bytes: Uint8Array): Float32Array {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out = new Float32Array(bytes.byteLength >> 1);
  for (let i = 0; i < out.length; i++) out[i] = view.getInt16(i * 2, true) / 32768;
  return out;
}

/** Float samples → signed 16-bit little-endian bytes (clipped, rounded). */
export function floatToS16le(samples: Float32Array): Uint8Array {
  const out = new Uint8Array(samples.length * 2);
  const view = new DataView(out.buffer);
  for (let i = 0; i < samples.length; i++) {
    const s = Math.max(-1, Math.min(1, samples[i]!));
    view.setInt16(i * 2, Math.round(s < 0 ? s * 32768 : s * 32767), true);
  }
  return out;
}

function ffmpegBinary(): string {
  return process.env.FFMPEG_BIN?.trim() || Bun.which("ffmpeg") || "ffmpeg";
}

function resampleArgs(from: number, to: number): string[] {
  const raw = (rate: number) => ["-f", "f32le", "-ar", String(rate), "-ac", "1"];
  return [ffmpegBinary(), "-nostdin", "-hide_banner", "-loglevel", "error", "-threads", "1", ...raw(from), "-i", "pipe:0", "-af", `aresample=${to}`, ...raw(to), "-flush_packets", "1", "pipe:1"];
}

function toFloat(bytes: Uint8Array): Float32Array {
  // ffmpeg writes whole samples; copy so the view is 4-byte aligned.
  return new Float32Array(bytes.slice(0, bytes.byteLength & ~3).buffer);
}

/** Resamples mono float audio from `from` Hz to `to` Hz. */
export async function resample(samples: Float32Array, from: number, to: number, signal?: AbortSignal): Promise<Float32Array> {
  if (from === to || samples.length === 0) return samples;
  const proc = Bun.spawn(resampleArgs(from, to), { stdin: new Uint8Array(samples.buffer, samples.byteOffset, samples.byteLength), stdout: "pipe", stderr: "ignore", signal });
  const [out, code] = await Promise.all([new Response(proc.stdout).bytes(), proc.exited]);
  signal?.throwIfAborted();
  if (code !== 0) throw new AppError("internal", Detail.internal, { cause: new Error(`ffmpeg resample exited ${code}`) });
  return toFloat(out);
}

/** Resamples a live stream of mono float chunks through one ffmpeg process; chunks come out as ffmpeg emits them. */
export async function* resampleStream(chunks: AsyncIterable<Float32Array>, from: number, to: number, signal: AbortSignal): AsyncIterable<Float32Array> {
  if (from === to) {
    yield* chunks;
    return;
  }
  const proc = Bun.spawn(resampleArgs(from, to), { stdin: "pipe", stdout: "pipe", stderr: "ignore", signal });
  let feedError: unknown;
  const feeding = (async () => {
    try {
      for await (const chunk of chunks) {
        proc.stdin.write(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
        await proc.stdin.flush();
      }
    } catch (error) {
      feedError = error;
    } finally {
      await proc.stdin.end();
    }
  })();
  let pending = new Uint8Array(0);
  try {
    for await (const bytes of proc.stdout) {
      const joined = new Uint8Array(pending.length + bytes.length);
      joined.set(pending);
      joined.set(bytes, pending.length);
      const whole = joined.length & ~3;
      pending = joined.slice(whole);
      if (whole > 0) yield toFloat(joined.subarray(0, whole));
    }
    await feeding;
    if (feedError !== undefined) throw feedError;
    if ((await proc.exited) !== 0) throw new AppError("internal", Detail.internal, { cause: new Error("ffmpeg resample failed") });
  } finally {
    if (proc.exitCode === null) proc.kill();
  }
}
