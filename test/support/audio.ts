/**
 * Test helpers for audio: synthetic tones, a direct ffmpeg/ffprobe call for
 * building fixtures and checking outputs, and a frequency estimate. Tests only.
 */
import { resolveFfmpegBinary, resolveFfprobeBinary } from "../../src/audio/ffmpeg.ts";

/** A sine tone of `seconds` at `rate` Hz. */
export function tone(frequency: number, seconds: number, rate: number, amplitude = 0.5): Float32Array {
  const out = new Float32Array(Math.round(seconds * rate));
  for (let i = 0; i < out.length; i++) out[i] = amplitude * Math.sin((2 * Math.PI * frequency * i) / rate);
  return out;
}

/** Runs the real ffmpeg with `args` (fixture building); throws with its stderr on failure. */
export function ffmpegSync(args: string[], stdin?: Uint8Array): Uint8Array {
  const result = Bun.spawnSync({
    cmd: [resolveFfmpegBinary(), "-nostdin", "-hide_banner", "-loglevel", "error", "-y", ...args],
    stdin: stdin ?? "ignore",
  });
  if (result.exitCode !== 0) throw new Error(`ffmpeg failed: ${result.stderr.toString()}`);
  return new Uint8Array(result.stdout);
}

/** What ffprobe says about the first audio stream. */
export interface ProbeResult {
  readonly codecName: string;
  readonly sampleRate: number;
  readonly channels: number;
  /** Container/stream duration; NaN when ffprobe has none. */
  readonly duration: number;
  /** Packets read (ffprobe -count_packets). */
  readonly packets: number;
}

/** Probes a file with the real ffprobe (`inputArgs` before `-i`, e.g. for raw PCM). */
export function ffprobe(path: string, inputArgs: string[] = []): ProbeResult {
  const result = Bun.spawnSync({
    cmd: [
      resolveFfprobeBinary(),
      "-v",
      "error",
      "-count_packets",
      ...inputArgs,
      "-show_entries",
      "stream=codec_name,sample_rate,channels,duration,nb_read_packets:format=duration",
      "-of",
      "json",
      path,
    ],
  });
  if (result.exitCode !== 0) throw new Error(`ffprobe failed: ${result.stderr.toString()}`);
  const json = JSON.parse(result.stdout.toString()) as {
    streams: {
      codec_name: string;
      sample_rate: string;
      channels: number;
      duration?: string;
      nb_read_packets?: string;
    }[];
    format: { duration?: string };
  };
  const stream = json.streams[0];
  if (stream === undefined) throw new Error("ffprobe found no stream");
  return {
    codecName: stream.codec_name,
    sampleRate: Number(stream.sample_rate),
    channels: stream.channels,
    duration: Number(stream.duration ?? json.format.duration ?? Number.NaN),
    packets: Number(stream.nb_read_packets ?? Number.NaN),
  };
}

/** Goertzel power of `frequency` over `samples`. */
export function powerAt(samples: Float32Array, rate: number, frequency: number): number {
  const coefficient = 2 * Math.cos((2 * Math.PI * frequency) / rate);
  let s1 = 0;
  let s2 = 0;
  for (let i = 0; i < samples.length; i++) {
    const s0 = (samples[i] ?? 0) + coefficient * s1 - s2;
    s2 = s1;
    s1 = s0;
  }
  return s1 * s1 + s2 * s2 - coefficient * s1 * s2;
}

/** The strongest frequency in [minHz, maxHz] on a `stepHz` grid. */
export function dominantFrequency(samples: Float32Array, rate: number, minHz = 50, maxHz = 4000, stepHz = 5): number {
  let best = minHz;
  let bestPower = -1;
  for (let f = minHz; f <= maxHz; f += stepHz) {
    const power = powerAt(samples, rate, f);
    if (power > bestPower) {
      bestPower = power;
      best = f;
    }
  }
  return best;
}
