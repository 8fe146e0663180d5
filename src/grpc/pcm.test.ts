import { describe, expect, test } from "bun:test";
import { floatToInt16, int16ToBytes } from "../audio/wav.ts";
import { pcmToAsrRate, s16leAligner, s16leToFloat, streamToAsrRate } from "./pcm.ts";

const s16le = (samples: Float32Array) => int16ToBytes(floatToInt16(samples));

function tone(rate: number, seconds: number, hz = 440): Float32Array {
  const out = new Float32Array(Math.round(rate * seconds));
  for (let i = 0; i < out.length; i++) out[i] = 0.5 * Math.sin((2 * Math.PI * hz * i) / rate);
  return out;
}

/** Dominant frequency by zero crossings (enough for a clean sine). */
function frequency(samples: Float32Array, rate: number): number {
  let crossings = 0;
  for (let i = 1; i < samples.length; i++) if (samples[i - 1]! < 0 !== samples[i]! < 0) crossings++;
  return (crossings / 2) * (rate / samples.length);
}

const signal = new AbortController().signal;

describe("gRPC PCM", () => {
  test("does keep samples exactly when a recording is already at 16 kHz", async () => {
    expect(Array.from(await pcmToAsrRate(s16le(new Float32Array([0, 0.5, -0.5, -1])), 16000, signal))).toEqual([
      0, 0.5, -0.5, -1,
    ]);
  });

  test("does bring a whole LINEAR_PCM recording to 16 kHz when sent at 8 kHz", async () => {
    const out = await pcmToAsrRate(s16le(tone(8000, 1)), 8000, signal);
    expect(Math.abs(out.length - 16000)).toBeLessThan(160);
    expect(Math.abs(frequency(out, 16000) - 440)).toBeLessThan(5);
  });

  test("does resample a live stream of chunks to 16 kHz when they arrive at 48 kHz", async () => {
    const source = tone(48000, 1);
    async function* chunks() {
      for (let i = 0; i < source.length; i += 4800) yield source.subarray(i, i + 4800);
    }
    const parts: Float32Array[] = [];
    for await (const part of streamToAsrRate(chunks(), 48000, signal)) parts.push(part);
    const out = new Float32Array(parts.reduce((n, p) => n + p.length, 0));
    let offset = 0;
    for (const p of parts) {
      out.set(p, offset);
      offset += p.length;
    }
    expect(Math.abs(out.length - 16000)).toBeLessThan(160);
    expect(Math.abs(frequency(out, 16000) - 440)).toBeLessThan(5);
  });
});

describe("s16leAligner", () => {
  test("does carry an odd trailing byte into the next chunk so every sample stays whole", () => {
    const samples = Int16Array.of(1, -2, 300, -32768, 32767);
    const bytes = new Uint8Array(samples.buffer);
    const align = s16leAligner();
    // Split at odd offsets: 3 + 4 + 3 bytes.
    const parts = [bytes.subarray(0, 3), bytes.subarray(3, 7), bytes.subarray(7)].map(align);
    expect(parts.map((p) => p.length)).toEqual([2, 4, 4]);
    const joined = new Uint8Array(10);
    let offset = 0;
    for (const p of parts) {
      joined.set(p, offset);
      offset += p.length;
    }
    expect(Array.from(new Int16Array(joined.buffer))).toEqual(Array.from(samples));
  });
});
