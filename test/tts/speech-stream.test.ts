/**
 * The streaming-text speech core (src/tts/stream/) on a real TTS engine over constructed tone
 * voices: text pushed a word at a time speaks exactly REST's audio for the whole text, marks land
 * where their audio is, a clear stops one context and leaves the others, timings cover the text
 * inside its audio, and the limits hold. Doors are tested over the wire elsewhere (test/tts/*-door).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import type { SpeechStream, SpeechStreamEvent } from "../../src/core/tts.ts";
import type { ApiKeyRecord } from "../../src/store/keys.ts";
import { writePiperPack } from "../support/models/tone-voice.ts";
import { tempDir } from "../support/sawt.ts";
import { ARABIC_TEXT_SYMBOLS, idMap, pcmToFloat, silenceRuns, speechRequest, startEngine } from "./support.ts";

const KEY: ApiKeyRecord = {
  id: "aaaaaaaaaaaa",
  name: "t",
  rpm: 1000,
  admin: false,
  createdAt: 0,
  lastUsedAt: null,
  revokedAt: null,
};
const TEXT = "مرحبا بكم في خدمة العملاء. كيف يمكنني مساعدتك اليوم؟ شكرا لك.";

type Engine = Awaited<ReturnType<typeof startEngine>>;

/** A stream whose events are collected, and a promise per context that settles at its done/error. */
function collect(engine: Engine) {
  const events: SpeechStreamEvent[] = [];
  const waiters = new Map<string, () => void>();
  let ended: unknown;
  const stream: SpeechStream = engine.service.openSpeechStream({
    key: KEY,
    requestId: "test",
    door: "test",
    onEvent: (event) => {
      events.push(event);
      if (event.type === "done" || event.type === "error") waiters.get(event.context)?.();
    },
    onEnd: (error) => (ended = error),
  });
  const finished = (context: string) => new Promise<void>((resolve) => waiters.set(context, resolve));
  const audio = (context: string) =>
    Buffer.concat(events.flatMap((e) => (e.type === "audio" && e.context === context ? [e.audio] : [])));
  return { stream, events, finished, audio, ended: () => ended };
}

const PCM = { voice: "Yara", response_format: "pcm" };

describe("speech stream", () => {
  const dir = tempDir("sawt-speech-stream-");
  let engine: Engine;
  beforeAll(async () => {
    await writePiperPack(join(dir.path, "models", "yara"), {
      name: "ar_text",
      sampleRate: 16000,
      phonemeIdMap: idMap(ARABIC_TEXT_SYMBOLS),
      phonemeType: "text",
      durations: true,
    });
    engine = await startEngine(join(dir.path, "models"), { SAWT_TTS_STREAM_MAX_QUEUED_CHARS: "400" });
  });
  afterAll(async () => {
    await engine.release();
    dir.remove();
  });

  test.each([16000, 8000, 22050])(
    "does speak text pushed a word at a time exactly as REST speaks the whole text at %i Hz",
    async (rate) => {
      const { stream, finished, audio } = collect(engine);
      const request = speechRequest({ ...PCM, input: "x", sample_rate: rate });
      stream.open("a", request);
      const done = finished("a");
      for (const piece of TEXT.split(/(?= )/u)) stream.text("a", piece);
      stream.flush("a");
      stream.close("a");
      await done;
      const whole = await engine.service.synthesize(speechRequest({ ...PCM, input: TEXT, sample_rate: rate }));
      expect(audio("a").equals(Buffer.from(whole.audio))).toBe(true);
    },
  );

  test("does report a mark between two sentences at the first sentence's end, and one at the start at 0", async () => {
    const { stream, events, finished, audio } = collect(engine);
    stream.open("a", speechRequest({ ...PCM, input: "x" }));
    const done = finished("a");
    stream.text("a", '<speak><mark name="start"/>مرحبا بكم. <mark name="middle"/>شكرا لك.</speak>');
    stream.close("a");
    await done;
    const marks = events.flatMap((e) => (e.type === "mark" ? [[e.name, e.audioMs]] : []));
    const samples = pcmToFloat(new Uint8Array(audio("a")));
    const firstEnd = samples.findIndex((_, i) => samples.subarray(i, i + 1600).every((x) => x === 0));
    expect(marks[0]).toEqual(["start", 0]);
    expect(marks[1]![0]).toBe("middle");
    expect(Math.abs((marks[1]![1] as number) - (firstEnd / 16000) * 1000)).toBeLessThan(1);
    expect(silenceRuns(samples, 16000)).toEqual([3200]);
  });

  test("does stop a cleared context at once, say how much was sent, and leave the other speaking", async () => {
    const { stream, events, finished, audio } = collect(engine);
    stream.open("a", speechRequest({ ...PCM, input: "x" }));
    stream.open("b", speechRequest({ ...PCM, input: "x" }));
    const doneB = finished("b");
    let cleared: { samples: number; ms: number } | undefined;
    const firstAudio = new Promise<void>((resolve) => {
      const check = setInterval(() => {
        if (events.some((e) => e.type === "audio" && e.context === "a")) {
          clearInterval(check);
          resolve();
        }
      }, 1);
    });
    stream.text("a", `${TEXT} ${TEXT} ${TEXT} `);
    stream.text("b", TEXT);
    stream.close("b");
    await firstAudio;
    cleared = stream.clear("a");
    const atClear = events.length;
    await doneB;
    await Bun.sleep(50);
    const after = events.slice(atClear).filter((e) => e.context === "a");
    expect(after.filter((e) => e.type === "audio")).toEqual([]);
    expect(cleared.samples).toBe(audio("a").byteLength / 2);
    expect(events.find((e) => e.type === "cleared")).toMatchObject({ context: "a", sent: cleared });
    expect(audio("b").byteLength).toBeGreaterThan(0);
    expect(stream.has("a")).toBe(true);
    stream.end();
    await stream.closed;
  });

  test("does time each character of a sentence inside its audio from the model's durations", async () => {
    const { stream, events, finished } = collect(engine);
    stream.open("a", { ...speechRequest({ ...PCM, input: "x" }), timings: true });
    const done = finished("a");
    stream.text("a", TEXT);
    stream.close("a");
    await done;
    const timed = events.flatMap((e) => (e.type === "audio" && e.timings ? [e] : []));
    expect(timed.map((e) => e.timings!.text)).toEqual(TEXT.split(/(?<=[.؟]) /u));
    let previousEnd = 0;
    for (const { timings } of timed) {
      expect(timings!.estimated).toBe(false);
      expect(timings!.chars.join("").trim()).toBe(timings!.text);
      const starts = timings!.charStartMs;
      for (let i = 1; i < starts.length; i++) expect(starts[i]!).toBeGreaterThan(starts[i - 1]!);
      expect(starts[0]!).toBeGreaterThanOrEqual(previousEnd);
      previousEnd = starts.at(-1)! + timings!.charDurationMs.at(-1)!;
    }
    const audioMs = (events.at(-1) as { sent: { ms: number } }).sent.ms;
    expect(previousEnd).toBeLessThanOrEqual(audioMs + 1);
  });

  test("does refuse what breaks its limits and text for a context that is closing", async () => {
    const { stream } = collect(engine);
    for (const id of ["1", "2", "3", "4", "5"]) stream.open(id, speechRequest({ ...PCM, input: "x" }));
    expect(() => stream.open("6", speechRequest({ ...PCM, input: "x" }))).toThrow("Too many contexts");
    expect(() => stream.open("1", speechRequest({ ...PCM, input: "x" }))).toThrow("already open");
    expect(() => stream.text("1", "كلمة ".repeat(100))).toThrow("Queued text over the limit");
    expect(() => stream.text("7", "x")).toThrow("Context 7 is not open");
    stream.close("2");
    expect(() => stream.text("2", "x")).toThrow("closing");
    stream.end();
    await stream.closed;
  });
});
