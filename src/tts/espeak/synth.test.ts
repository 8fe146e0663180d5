import { describe, expect, test } from "bun:test";
import { ESPEAK_VOICE_PROFILES, espeakRate, synthesizeEspeak } from "./synth.ts";

const ARABIC = "مرحبا بكم في خدمة العملاء";
const ENGLISH = "hello world, welcome to customer service";

function rms(samples: Int16Array): number {
  let sum = 0;
  for (const s of samples) sum += s * s;
  return Math.sqrt(sum / samples.length);
}

/** Median fundamental frequency of loud frames, by autocorrelation (70–500 Hz). */
function medianPitch(samples: Int16Array, rate: number): number {
  const frame = 1024;
  const [minLag, maxLag] = [Math.floor(rate / 500), Math.floor(rate / 70)];
  const pitches: number[] = [];
  for (let start = 0; start + frame + maxLag < samples.length; start += frame) {
    if (rms(samples.subarray(start, start + frame)) < 1500) continue;
    let best = 0;
    let bestLag = 0;
    for (let lag = minLag; lag <= maxLag; lag++) {
      let c = 0;
      for (let i = 0; i < frame; i++) c += samples[start + i]! * samples[start + i + lag]!;
      if (c > best) [best, bestLag] = [c, lag];
    }
    if (bestLag > 0) pitches.push(rate / bestLag);
  }
  pitches.sort((a, b) => a - b);
  return pitches[Math.floor(pitches.length / 2)] ?? 0;
}

describe("synthesizeEspeak", () => {
  test("returns non-silent 22050 Hz audio when speaking Arabic and English", async () => {
    for (const [text, voice] of [
      [ARABIC, "Yara"],
      [ENGLISH, "Yara_en"],
    ] as const) {
      const audio = await synthesizeEspeak(text, voice);
      expect(audio.sampleRate).toBe(22050);
      expect(audio.samples.length).toBeGreaterThan(22050); // over a second of speech
      expect(rms(audio.samples)).toBeGreaterThan(500);
    }
  });

  test("gives measurably different pitch when the Arabic voices differ", async () => {
    const pitch: Record<string, number> = {};
    for (const voice of ["Yara", "Sherine", "Myriam"] as const) {
      const audio = await synthesizeEspeak(ARABIC, voice);
      pitch[voice] = medianPitch(audio.samples, audio.sampleRate);
    }
    expect(pitch.Myriam!).toBeGreaterThan(pitch.Yara! * 1.08);
    expect(pitch.Yara!).toBeGreaterThan(pitch.Sherine! * 1.08);
  });

  test("speaks English differently from Arabic when Yara_en is asked", async () => {
    const arabic = await synthesizeEspeak(ENGLISH, "Yara");
    const english = await synthesizeEspeak(ENGLISH, "Yara_en");
    expect(english.samples.length).not.toBe(arabic.samples.length);
  });

  test("gives shorter audio when speed is 2.0 than when it is 1.0", async () => {
    const normal = await synthesizeEspeak(ARABIC, "Sherine", { speed: 1 });
    const fast = await synthesizeEspeak(ARABIC, "Sherine", { speed: 2 });
    expect(fast.samples.length).toBeLessThan(normal.samples.length * 0.75);
  });

  test("accepts an explicit profile when no Sawt voice name is used", async () => {
    const audio = await synthesizeEspeak("hello", { voice: "en-us", pitch: 50, range: 50 });
    expect(rms(audio.samples)).toBeGreaterThan(500);
  });

  test("does not grow memory wildly when called 200 times", async () => {
    for (let i = 0; i < 20; i++) await synthesizeEspeak("مرحبا", "Yara"); // warm-up
    Bun.gc(true);
    const before = process.memoryUsage().rss;
    for (let i = 0; i < 200; i++) {
      const audio = await synthesizeEspeak("مرحبا", i % 2 === 0 ? "Yara" : "Myriam");
      expect(audio.samples.length).toBeGreaterThan(0);
    }
    Bun.gc(true);
    expect(process.memoryUsage().rss - before).toBeLessThan(40 * 1024 * 1024);
  });

  test("keeps the event loop free when a 5,000-character synthesis runs", async () => {
    await synthesizeEspeak("مرحبا", "Yara"); // worker started and espeak loaded beforehand
    const text = `${ARABIC}، `.repeat(Math.ceil(5000 / (ARABIC.length + 2))).slice(0, 5000);
    let ticks = 0;
    const timer = setInterval(() => ticks++, 20);
    try {
      const audio = await synthesizeEspeak(text, "Yara");
      // On the main thread espeak blocked the loop for the whole call: no tick could fire.
      expect(ticks).toBeGreaterThanOrEqual(5);
      expect(audio.samples.length).toBeGreaterThan(22050 * 60); // minutes of speech
    } finally {
      clearInterval(timer);
    }
  });
});

describe("espeakRate", () => {
  test("scales the default 175 wpm and clamps speed to [0.5, 2] when speed is out of range", () => {
    expect(espeakRate()).toBe(175);
    expect(espeakRate(2)).toBe(350);
    expect(espeakRate(10)).toBe(350);
    expect(espeakRate(0.1)).toBe(88);
    expect(espeakRate(Number.NaN)).toBe(175);
  });

  test("maps every Sawt voice to a distinct espeak setting when profiles are listed", () => {
    const keys = Object.values(ESPEAK_VOICE_PROFILES).map((p) => `${p.voice}/${p.pitch}/${p.range}`);
    expect(new Set(keys).size).toBe(4);
  });
});
