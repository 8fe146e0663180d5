/**
 * Streaming text in on Sawt's own TTS WebSocket (issue 40) against the real server: text messages
 * in named contexts, marks where their audio is, flush, clear (barge-in) and close, and bad input
 * answered with an error frame that names the context, never a dropped socket.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { postSpeech } from "../support/http-helpers.ts";
import { writePiperPack } from "../support/models/tone-voice.ts";
import { startSawt, tempDir, until, waitForStatus, type SawtProcess } from "../support/sawt.ts";
import { ARABIC_TEXT_SYMBOLS, idMap, pcmToFloat } from "./support.ts";

const TEXT = "مرحبا بكم في خدمة العملاء. كيف يمكنني مساعدتك اليوم؟ شكرا لك.";

/** A socket that records every frame: JSON as objects, binary as bytes. */
class Client {
  readonly frames: Array<Record<string, unknown> | Uint8Array> = [];
  closed: { code: number; reason: string } | undefined;
  private readonly ws: WebSocket;
  readonly open: Promise<void>;

  constructor(url: string, key: string) {
    this.ws = new WebSocket(url, { headers: { "X-API-Key": key } } as unknown as string[]);
    this.ws.binaryType = "arraybuffer";
    this.open = new Promise((resolve) => (this.ws.onopen = () => resolve()));
    this.ws.onmessage = (event) =>
      this.frames.push(
        typeof event.data === "string"
          ? (JSON.parse(event.data) as Record<string, unknown>)
          : new Uint8Array(event.data as ArrayBuffer),
      );
    this.ws.onclose = (event) => (this.closed = { code: event.code, reason: event.reason });
  }

  send(message: unknown): void {
    this.ws.send(typeof message === "string" || message instanceof Uint8Array ? message : JSON.stringify(message));
  }

  messages(type?: string): Array<Record<string, unknown>> {
    return this.frames.filter(
      (f): f is Record<string, unknown> => !(f instanceof Uint8Array) && (type === undefined || f.type === type),
    );
  }

  /** The binary audio of `context` (frames of a named context follow their `audio` announcement). */
  audio(context: string): Buffer {
    const out: Uint8Array[] = [];
    let owner = "default";
    for (const frame of this.frames) {
      if (frame instanceof Uint8Array) {
        if (owner === context) out.push(frame);
        owner = "default";
      } else if (frame.type === "audio") owner = frame.context as string;
    }
    return Buffer.concat(out);
  }

  wait(check: () => unknown, what: string): Promise<unknown> {
    return until(check, what, { timeoutMs: 20_000 });
  }

  close(): void {
    this.ws.close();
  }
}

describe("TTS WebSocket streaming text", () => {
  const dir = tempDir("sawt-ws-stream-");
  let sawt: SawtProcess;
  let key: string;
  let url: string;
  beforeAll(async () => {
    await writePiperPack(join(dir.path, "models", "yara"), {
      name: "ar_text",
      sampleRate: 16000,
      phonemeIdMap: idMap(ARABIC_TEXT_SYMBOLS),
      phonemeType: "text",
    });
    sawt = await startSawt({ env: { SAWT_MODELS_DIR: join(dir.path, "models"), SAWT_TTS_STREAM_MAX_CONTEXTS: "2" } });
    await waitForStatus(`${sawt.baseUrl}/v1/tts/health`);
    ({ key } = await sawt.createKey({ name: "ws-stream", rpm: 1000 }));
    url = `${sawt.baseUrl.replace("http", "ws")}/v1/tts/ws`;
  });
  afterAll(async () => {
    await sawt.stop();
    dir.remove();
  });

  test("does speak text sent a word at a time in two contexts, each as REST speaks it", async () => {
    const client = new Client(url, key);
    await client.open;
    for (const piece of TEXT.split(/(?= )/u)) {
      client.send({ type: "text", text: piece, context: "a" });
      client.send({ type: "text", text: piece, context: "b", sample_rate: 8000 });
    }
    client.send({ type: "close", context: "a" });
    client.send({ type: "flush", context: "b" });
    client.send({ type: "close", context: "b" });
    await client.wait(() => client.messages("end").length === 2, "two end messages");
    expect(client.messages("start")).toEqual([
      expect.objectContaining({ context: "a", voice: "Yara", format: "pcm", sample_rate: 16000 }),
      expect.objectContaining({ context: "b", voice: "Yara", format: "pcm", sample_rate: 8000 }),
    ]);
    expect(client.messages("flushed")).toEqual([{ type: "flushed", context: "b" }]);
    for (const [context, rate] of [
      ["a", 16000],
      ["b", 8000],
    ] as const) {
      const rest = Buffer.from(
        await (
          await postSpeech(sawt.baseUrl, key, { input: TEXT, response_format: "pcm", sample_rate: rate })
        ).arrayBuffer(),
      );
      expect(client.audio(context).equals(rest)).toBe(true);
      expect(client.messages("end").find((m) => m.context === context)).toEqual({
        type: "end",
        context,
        bytes: rest.byteLength,
      });
    }
    client.close();
  });

  test("does report a mark at the first sentence's audio end and one at the start at 0", async () => {
    const client = new Client(url, key);
    await client.open;
    client.send({ input: '<speak><mark name="start"/>مرحبا بكم. <mark name="next"/>شكرا لك.</speak>' });
    await client.wait(() => client.messages("end").length === 1, "the end message");
    const samples = pcmToFloat(new Uint8Array(client.audio("default")));
    const firstEnd = samples.findIndex((_, i) => samples.subarray(i, i + 1600).every((x) => x === 0));
    const marks = client.messages("mark");
    expect(marks.map((m) => [m.name, m.context])).toEqual([
      ["start", "default"],
      ["next", "default"],
    ]);
    expect(marks[0]!.audio_ms).toBe(0);
    expect(Math.abs((marks[1]!.audio_ms as number) - (firstEnd / 16000) * 1000)).toBeLessThanOrEqual(20);
    // The mark comes once the first sentence's audio was sent: after its bytes, before the next sentence's.
    const at = client.frames.indexOf(marks[1]!);
    const before = client.frames.slice(0, at).filter((f) => f instanceof Uint8Array) as Uint8Array[];
    expect(before.reduce((n, f) => n + f.byteLength, 0) / 2).toBeGreaterThanOrEqual(firstEnd);
    client.close();
  });

  test("does stop a cleared context at once and say how much of its audio was sent", async () => {
    const client = new Client(url, key);
    await client.open;
    client.send({ type: "text", text: `${TEXT} ${TEXT} ${TEXT} ${TEXT}`, context: "a", flush: true });
    await client.wait(() => client.audio("a").byteLength > 0, "audio of context a");
    client.send({ type: "clear", context: "a" });
    await client.wait(() => client.messages("cleared").length === 1, "the cleared message");
    const cleared = client.messages("cleared")[0]!;
    const sent = client.audio("a").byteLength;
    await Bun.sleep(300);
    expect(client.audio("a").byteLength).toBe(sent);
    expect(cleared.samples_sent).toBe(sent / 2);
    expect(cleared.audio_ms_sent).toBeCloseTo((sent / 2 / 16000) * 1000, 0);
    // The context is still open: new text speaks after the barge-in.
    client.send({ type: "text", text: "شكرا لك.", context: "a", flush: true });
    await client.wait(() => client.messages("flushed").length === 1, "flushed after the new text");
    expect(client.audio("a").byteLength).toBeGreaterThan(sent);
    client.close();
  });

  test("does answer bad messages with error frames naming the context and keep the socket open", async () => {
    const client = new Client(url, key);
    await client.open;
    client.send(new Uint8Array([1, 2, 3]));
    client.send({ type: "shout" });
    client.send({ type: "flush", context: "nope" });
    client.send({ type: "text", text: "مرحبا", context: "a", sample_rate: 4000 });
    client.send({ type: "text", text: "مرحبا", context: "a" });
    client.send({ type: "text", text: "مرحبا", context: "b" });
    client.send({ type: "text", text: "مرحبا", context: "c" });
    client.send({ type: "close", context: "b" });
    client.send({ type: "text", text: "مرحبا", context: "b" });
    await client.wait(() => client.messages("error").length === 6, "six error frames");
    const errors = client.messages("error").map((e) => [e.context, e.status, e.errors ?? e.detail]);
    expect(errors).toEqual([
      [undefined, 400, "Binary frames are not accepted on a TTS socket: send JSON text messages"],
      [undefined, 400, expect.stringContaining("Unknown message type")],
      ["nope", 400, "Context nope is not open"],
      ["a", 422, [{ field: "sample_rate", message: "Must be at least 8000" }]],
      ["c", 400, "Too many contexts: at most 2 open at once on one stream"],
      ["b", 400, "Context b is closing: open a new one"],
    ]);
    expect(client.closed).toBeUndefined();
    client.close();
  });
});
