import { describe, expect, test } from "bun:test";
import { resampleAll, StreamingResampler } from "./resampler.ts";

function sine(frequency: number, rate: number, seconds: number): Float32Array {
  const out = new Float32Array(Math.round(rate * seconds));
  for (let i = 0; i < out.length; i++) out[i] = 0.5 * Math.sin((2 * Math.PI * frequency * i) / rate);
  return out;
}

/** Amplitude of `frequency` in `samples` (one DFT bin, the ends trimmed). */
function level(samples: Float32Array, frequency: number, rate: number): number {
  let re = 0;
  let im = 0;
  const from = Math.floor(samples.length / 10);
  const to = samples.length - from;
  for (let i = from; i < to; i++) {
    re += samples[i]! * Math.cos((2 * Math.PI * frequency * i) / rate);
    im += samples[i]! * Math.sin((2 * Math.PI * frequency * i) / rate);
  }
  return (2 * Math.hypot(re, im)) / (to - from);
}

describe("StreamingResampler", () => {
  test.each([8000, 11025, 22050, 24000, 44100, 48000])(
    "does keep a 1 kHz tone's level and length when %i Hz goes to 16 kHz",
    (rate) => {
      const out = resampleAll(sine(1000, rate, 1), rate, 16000);
      expect(out.length).toBe(16000);
      expect(level(out, 1000, 16000)).toBeCloseTo(0.5, 1);
    },
  );

  test("does remove what lies above the new Nyquist frequency when it downsamples", () => {
    const out = resampleAll(sine(12000, 48000, 1), 48000, 16000);
    expect(level(out, 4000, 16000)).toBeLessThan(0.01);
  });

  test("does give the very same samples whatever the chunking", () => {
    const input = sine(700, 24000, 0.5);
    const whole = resampleAll(input, 24000, 16000);
    const resampler = new StreamingResampler(24000, 16000);
    const parts: number[] = [];
    for (let at = 0, size = 1; at < input.length; at += size, size = ((size * 7) % 997) + 1)
      parts.push(...resampler.push(input.subarray(at, at + size)));
    parts.push(...resampler.flush());
    expect(parts.length).toBe(whole.length);
    expect(Math.max(...parts.map((x, i) => Math.abs(x - whole[i]!)))).toBeLessThan(1e-6);
  });

  test("does hand out the same samples when it settles at a pause that silence follows", () => {
    const speech = sine(700, 16000, 0.3);
    const silence = new Float32Array(3200);
    const whole = resampleAll(Float32Array.from([...speech, ...silence, ...speech]), 16000, 22050);
    const resampler = new StreamingResampler(16000, 22050);
    const first = [...resampler.push(speech), ...resampler.settle()];
    // All of the first part's audio is out at the pause: its duration at the new rate.
    expect(first.length).toBe(Math.ceil((speech.length * 22050) / 16000));
    const parts = [...first, ...resampler.push(silence), ...resampler.push(speech), ...resampler.flush()];
    expect(parts.length).toBe(whole.length);
    expect(Math.max(...parts.map((x, i) => Math.abs(x - whole[i]!)))).toBeLessThan(1e-6);
  });

  test("does end with the unsettled stream's length when nothing follows a settle", () => {
    const speech = sine(700, 22050, 0.2);
    const resampler = new StreamingResampler(22050, 8000);
    const parts = [...resampler.push(speech), ...resampler.settle(), ...resampler.settle(), ...resampler.flush()];
    expect(parts.length).toBe(resampleAll(speech, 22050, 8000).length);
  });
});
