/**
 * Barge-in on every streaming door (issue 40, acceptance 4), with a voice whose sentences take
 * real time to render, so the clear arrives while the context still has text to speak: Deepgram's
 * Clear is answered by Cleared and no more than 20 ms of that text's audio follows it; on one
 * ElevenLabs socket, closing one context stops it while the other keeps speaking to its end; the
 * TTS WebSocket's `cleared` says how much audio was sent, which is what the client received.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { until } from "../../support/sawt.ts";
import { restPcm, startVoiceBotServer, TEXT, type VoiceBotServer } from "./support.ts";

/** Six sentences: the clear lands while most of them are still to come. */
const LONG = `${TEXT} ${TEXT}`;
/** 20 ms of 24 kHz s16le. */
const FRAME_BYTES = 960;

let server: VoiceBotServer;
beforeAll(async () => {
  // ~40 dense 256² MatMuls per sentence: tens of ms each, whatever the machine's load.
  server = await startVoiceBotServer({ costRepeats: 40 });
});
afterAll(async () => {
  await server.stop();
});

type Frame = Record<string, unknown> | Buffer;

/** A socket recording frames in order; binary frames as Buffers. */
function record(url: string, headers: Record<string, string>) {
  const ws = new WebSocket(url, { headers } as unknown as string[]);
  ws.binaryType = "arraybuffer";
  const frames: Frame[] = [];
  ws.onmessage = (e) =>
    frames.push(
      typeof e.data === "string" ? (JSON.parse(e.data) as Record<string, unknown>) : Buffer.from(e.data as ArrayBuffer),
    );
  const opened = new Promise<void>((resolve) => (ws.onopen = () => resolve()));
  return { ws, frames, opened, send: (m: unknown) => ws.send(JSON.stringify(m)) };
}

const isJson = (f: Frame): f is Record<string, unknown> => !Buffer.isBuffer(f);

describe("barge-in", () => {
  test("does answer Deepgram's Clear with Cleared, after which no more than 20 ms of that text's audio comes", async () => {
    const socket = record(`${server.sawt.baseUrl.replace("http", "ws")}/v1/speak?model=Yara`, {
      Authorization: `Token ${server.key}`,
    });
    await socket.opened;
    socket.send({ type: "Speak", text: LONG });
    socket.send({ type: "Flush" });
    await until(() => socket.frames.some((f) => Buffer.isBuffer(f)), "the first audio");
    socket.send({ type: "Clear" });
    await until(() => socket.frames.some((f) => isJson(f) && f.type === "Cleared"), "Cleared");
    await Bun.sleep(500);
    const cleared = socket.frames.findIndex((f) => isJson(f) && f.type === "Cleared");
    const after = socket.frames.slice(cleared + 1).filter((f): f is Buffer => Buffer.isBuffer(f));
    expect(after.reduce((n, f) => n + f.byteLength, 0)).toBeLessThanOrEqual(FRAME_BYTES);
    const before = socket.frames.slice(0, cleared).filter((f): f is Buffer => Buffer.isBuffer(f));
    expect(Buffer.concat(before).byteLength).toBeLessThan(
      (await restPcm(server, LONG, { sample_rate: 24000 })).byteLength,
    );
    // The flush it cleared never reports; the socket speaks what comes next.
    expect(socket.frames.some((f) => isJson(f) && f.type === "Flushed")).toBe(false);
    socket.send({ type: "Speak", text: "شكرا لك." });
    socket.send({ type: "Flush" });
    await until(() => socket.frames.some((f) => isJson(f) && f.type === "Flushed"), "Flushed");
    expect(socket.frames.at(-1)).toEqual({ type: "Flushed", sequence_id: 1 });
    socket.ws.close();
  });

  test("does stop one ElevenLabs context at once while the other on the same socket keeps speaking", async () => {
    const socket = record(
      `${server.sawt.baseUrl.replace("http", "ws")}/v1/text-to-speech/Yara/multi-stream-input?output_format=pcm_24000`,
      { "xi-api-key": server.key },
    );
    await socket.opened;
    socket.send({ text: LONG, context_id: "a" });
    socket.send({ text: TEXT, context_id: "b", flush: true });
    const audioOf = (context: string) =>
      socket.frames.filter(
        (f): f is Record<string, unknown> => isJson(f) && typeof f.audio === "string" && f.contextId === context,
      );
    await until(() => audioOf("a").length > 0, "audio of a");
    socket.send({ context_id: "a", close_context: true });
    socket.send({ context_id: "b", close_context: true });
    await until(() => socket.frames.filter((f) => isJson(f) && f.isFinal === true).length === 2, "both isFinal");
    const finalA = socket.frames.findIndex((f) => isJson(f) && f.isFinal === true && f.contextId === "a");
    const finalB = socket.frames.findIndex((f) => isJson(f) && f.isFinal === true && f.contextId === "b");
    expect(finalA).toBeLessThan(finalB);
    expect(socket.frames.slice(finalA).filter((f) => isJson(f) && f.audio && f.contextId === "a")).toEqual([]);
    const a = Buffer.concat(audioOf("a").map((f) => Buffer.from(f.audio as string, "base64")));
    expect(a.byteLength).toBeLessThan((await restPcm(server, LONG, { sample_rate: 24000 })).byteLength);
    const b = Buffer.concat(audioOf("b").map((f) => Buffer.from(f.audio as string, "base64")));
    expect(b.equals(await restPcm(server, TEXT, { sample_rate: 24000 }))).toBe(true);
    socket.ws.close();
  });

  test("does say in the TTS WebSocket's cleared how much audio was sent: what the client received", async () => {
    const socket = record(`${server.sawt.baseUrl.replace("http", "ws")}/v1/tts/ws`, { "x-api-key": server.key });
    await socket.opened;
    socket.send({ type: "text", text: LONG, flush: true });
    await until(() => socket.frames.some((f) => Buffer.isBuffer(f)), "the first audio");
    socket.send({ type: "clear" });
    await until(() => socket.frames.some((f) => isJson(f) && f.type === "cleared"), "cleared");
    await Bun.sleep(500);
    const cleared = socket.frames.find((f): f is Record<string, unknown> => isJson(f) && f.type === "cleared")!;
    const received = socket.frames.filter((f): f is Buffer => Buffer.isBuffer(f)).reduce((n, f) => n + f.byteLength, 0);
    expect(received).toBeLessThan((await restPcm(server, LONG, { sample_rate: 24000 })).byteLength);
    expect(cleared.samples_sent).toBe(received / 2);
    expect(cleared.audio_ms_sent).toBeCloseTo((received / 2 / 24000) * 1000, 0);
    socket.ws.close();
  });
});
