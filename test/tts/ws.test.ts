/**
 * Streaming synthesis over the TTS WebSocket of the real server: the start message reports what
 * speaks, binary frames carry the sentences' PCM as they are synthesised, and the audio spells
 * the same ids a whole synthesis would.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { prepareText } from "../../src/tts/frontend/index.ts";
import { writePiperPack } from "../support/models/tone-voice.ts";
import { startSawt, tempDir, waitForStatus, type SawtProcess } from "../support/sawt.ts";
import { ARABIC_TEXT_SYMBOLS, decodeSentences, expectedIds, idMap, pcmToFloat } from "./support.ts";

const MAP = idMap(ARABIC_TEXT_SYMBOLS);
const INPUT = "مرحبا بكم. كيف حالك؟ شكرا لك.";

interface Session {
  readonly messages: Array<Record<string, unknown>>;
  readonly audio: Uint8Array[];
}

function speakOverSocket(url: string, key: string, request: Record<string, unknown>): Promise<Session> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers: { "X-API-Key": key } } as unknown as string[]);
    ws.binaryType = "arraybuffer";
    const session: Session = { messages: [], audio: [] };
    ws.onopen = () => ws.send(JSON.stringify(request));
    ws.onmessage = (event) => {
      if (typeof event.data !== "string") {
        session.audio.push(new Uint8Array(event.data as ArrayBuffer));
        return;
      }
      const message = JSON.parse(event.data) as Record<string, unknown>;
      session.messages.push(message);
      if (message.type === "end" || message.type === "error") {
        ws.close();
        resolve(session);
      }
    };
    ws.onerror = () => reject(new Error("websocket error"));
  });
}

describe("TTS WebSocket", () => {
  const dir = tempDir("sawt-tts-ws-");
  let sawt: SawtProcess;
  let key: string;
  beforeAll(async () => {
    await writePiperPack(join(dir.path, "models", "yara"), {
      name: "ar_text",
      sampleRate: 16000,
      phonemeIdMap: MAP,
      phonemeType: "text",
    });
    sawt = await startSawt({ env: { SAWT_MODELS_DIR: join(dir.path, "models") } });
    await waitForStatus(`${sawt.baseUrl}/v1/tts/health`);
    ({ key } = await sawt.createKey({ name: "ws" }));
  });
  afterAll(async () => {
    await sawt.stop();
    dir.remove();
  });

  test("does stream each sentence's ids as pcm after a start message naming the voice and rate", async () => {
    const url = `${sawt.baseUrl.replace("http", "ws")}/v1/tts/ws`;
    const session = await speakOverSocket(url, key, { input: INPUT, dialect: "ar-hijazi" });
    expect(session.messages[0]).toMatchObject({
      type: "start",
      voice: "Yara",
      dialect: "ar-hijazi",
      engine: "piper",
      format: "pcm",
      content_type: "audio/pcm",
      sample_rate: 16000,
    });
    const bytes = Buffer.concat(session.audio);
    expect(session.messages.at(-1)).toEqual({ type: "end", bytes: bytes.byteLength });
    const expected = prepareText(INPUT, "ar").map((s) => expectedIds(Array.from(s.text.normalize("NFD")), MAP));
    expect(decodeSentences(pcmToFloat(new Uint8Array(bytes)), 16000, 1).map((d) => d.ids)).toEqual(expected);
  });

  test("does refuse the upgrade with the REST 401 when the key is missing or wrong", async () => {
    const url = `${sawt.baseUrl}/v1/tts/ws`;
    const upgrade = {
      Connection: "Upgrade",
      Upgrade: "websocket",
      "Sec-WebSocket-Version": "13",
      "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==",
    };
    const missing = await fetch(url, { headers: upgrade });
    expect(missing.status).toBe(401);
    expect(((await missing.json()) as { detail: string }).detail).toBe("X-API-Key header is required");
    const wrong = await fetch(url, { headers: { ...upgrade, "X-API-Key": `${key}x` } });
    expect(wrong.status).toBe(401);
    expect(((await wrong.json()) as { detail: string }).detail).toBe("Invalid API key");
  });

  test("does answer a bad request with an error frame carrying the REST body", async () => {
    const url = `${sawt.baseUrl.replace("http", "ws")}/v1/tts/ws`;
    const session = await speakOverSocket(url, key, { input: "" });
    expect(session.audio).toHaveLength(0);
    expect(session.messages).toEqual([
      { type: "error", status: 400, error: "http_error", detail: "Text cannot be empty", code: "HTTP_400" },
    ]);
  });
});
