/**
 * jambonz's custom speech-vendor STT API and streamed REST transcription against the real server
 * with the tone CTC recogniser: a client speaking jambonz's messages exactly as its docs show gets
 * interim and final `transcription` messages and a normal close after `stop`; a wrong first
 * message gets jambonz's `error` message; the official `openai` SDK iterates `stream: true`.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import OpenAI from "openai";
import { encodeG711 } from "../../src/audio/g711.ts";
import { floatToInt16, int16ToBytes } from "../../src/audio/wav.ts";
import { letterToneAudio, writeToneCtcPack } from "../support/models/ctc.ts";
import { startSawt, type SawtProcess } from "../support/sawt.ts";
import { concat, encodeFile, ENCODINGS, modelsDir, silence } from "./support.ts";
import { connect } from "./ws-client.ts";

const WORDS = ["سلام عليكم", "كلام"];
const recording = (rate: number) =>
  concat(
    silence(0.5, rate),
    letterToneAudio(WORDS[0]!, rate),
    silence(1, rate),
    letterToneAudio(WORDS[1]!, rate),
    silence(1, rate),
  );

let models: ReturnType<typeof modelsDir>;
let sawt: SawtProcess;
let key: string;

beforeAll(async () => {
  models = modelsDir();
  await writeToneCtcPack(join(models.dir, "tone-ctc"));
  sawt = await startSawt({ env: { SAWT_MODELS_DIR: models.dir, SAWT_STREAMING_PARTIAL_INTERVAL_MS: "300" } });
  key = (await sawt.createKey({ name: "doors", rpm: 10_000 })).key;
});

afterAll(async () => {
  await sawt?.stop("SIGKILL");
  models?.remove();
});

describe("jambonz custom STT", () => {
  test.each([
    ["LINEAR16", 8000],
    ["LINEAR16", 16000],
    ["MULAW", 8000],
  ] as const)(
    "does answer interim then final transcriptions for %s at %i Hz and close after stop",
    async (encoding, rate) => {
      const client = await connect(`${sawt.baseUrl.replace(/^http/, "ws")}/v1/asr/jambonz`, {
        headers: { authorization: `Bearer ${key}` },
      });
      client.sendJson({
        type: "start",
        language: "ar-SA",
        format: "raw",
        encoding,
        sampleRateHz: rate,
        interimResults: true,
      });
      const samples = floatToInt16(recording(rate));
      const bytes = encoding === "MULAW" ? encodeG711(samples, "pcm_mulaw") : int16ToBytes(samples);
      const frame = encoding === "MULAW" ? rate / 50 : (rate / 50) * 2;
      for (let at = 0; at < bytes.length; at += frame) {
        client.ws.send(bytes.subarray(at, at + frame));
        await Bun.sleep(2);
      }
      client.sendJson({ type: "stop" });
      const closed = await client.closed;
      expect(closed.code).toBe(1000);
      const results = client.events.filter((e) => e.type === "transcription");
      expect(client.events.filter((e) => e.type !== "transcription")).toEqual([]);
      const finals = results.filter((r) => r.is_final);
      expect(finals.map((r) => r.alternatives[0].transcript)).toEqual(WORDS);
      expect(results.findIndex((r) => !r.is_final)).toBeLessThan(results.indexOf(finals[0]));
      for (const r of results) {
        expect(r).toMatchObject({ type: "transcription", channel: 1, language: "ar-SA" });
        expect(r.alternatives).toEqual([{ transcript: expect.any(String), confidence: expect.any(Number) }]);
      }
    },
  );

  test("does send jambonz's error and close when the first message is not start", async () => {
    const client = await connect(`${sawt.baseUrl.replace(/^http/, "ws")}/v1/asr/jambonz`, {
      headers: { authorization: `Bearer ${key}` },
    });
    client.ws.send(new Uint8Array(320));
    const error = await client.next("error");
    expect(error).toMatchObject({ type: "error", error: "Expected a start message before audio" });
    expect((await client.closed).code).toBe(1008);
  });

  test("does send jambonz's error when start names an encoding it cannot take", async () => {
    const client = await connect(`${sawt.baseUrl.replace(/^http/, "ws")}/v1/asr/jambonz`, {
      headers: { authorization: `Bearer ${key}` },
    });
    client.sendJson({
      type: "start",
      language: "ar-SA",
      format: "raw",
      encoding: "OGG_OPUS",
      sampleRateHz: 8000,
      interimResults: false,
    });
    expect((await client.next("error")).error).toContain("encoding");
    expect((await client.closed).code).toBe(1008);
  });
});

describe("streamed REST transcription", () => {
  test("does stream transcript.text.delta per decoded piece then transcript.text.done through the openai SDK", async () => {
    const path = encodeFile(recording(16000), 16000, join(models.dir, "call.wav"), ENCODINGS.wav!);
    const openai = new OpenAI({ apiKey: key, baseURL: `${sawt.baseUrl}/v1/asr` });
    const stream = await openai.audio.transcriptions.create({
      file: Bun.file(path) as unknown as File,
      model: "sawt",
      stream: true,
    });
    const events: any[] = [];
    for await (const event of stream) events.push(event);
    // Audio within the recogniser's window is decoded whole (issue #13): one piece, one delta here;
    // longer audio sends one per piece. The deltas always add up to the done text.
    const done = events.at(-1);
    const deltas = events.slice(0, -1);
    expect(done.type).toBe("transcript.text.done");
    expect(deltas.length).toBeGreaterThanOrEqual(1);
    expect(deltas.every((e) => e.type === "transcript.text.delta")).toBe(true);
    expect(deltas.map((e) => e.delta).join("")).toBe(WORDS.join(" "));
    expect(done.text).toBe(WORDS.join(" "));
    const rest = await openai.audio.transcriptions.create({ file: Bun.file(path) as unknown as File, model: "sawt" });
    expect(done.text).toBe(rest.text);
  });
});
