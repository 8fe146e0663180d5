/**
 * What every TTS door shares (issue 40, acceptance 3 and 7), from one table of doors so the next
 * door is one row: the key's lexicon applies on each (REST, the TTS WebSocket's request and text
 * messages, gRPC SynthesizeOnline and StreamSynthesize, Deepgram's REST and WebSocket,
 * ElevenLabs' REST and multi-context WebSocket; MRCP speaks through the same speech stream, with
 * its session's key) and each answers REST's pcm. Also: LiveKit's OpenAI plugin hears OpenAI's
 * 24 kHz pcm, and a stream idle past its time is closed with its protocol's error.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type * as grpc from "@grpc/grpc-js";
import { initializeLogger } from "@livekit/agents";
import { TTS as OpenAITTS } from "@livekit/agents-plugin-openai";
import { bearer, clients, collect, waitPortsServing } from "../../grpc/client.ts";
import { until } from "../../support/sawt.ts";
import { frameBytes, restPcm, startVoiceBotServer, type VoiceBotServer } from "./support.ts";

initializeLogger({ pretty: false, level: "warn" });

/** "STC" is no Arabic the voice can read; the key's lexicon says how to say it. */
const TEXT = "شكرا لاتصالك بشركة STC.";
const SPOKEN = "شكرا لاتصالك بشركة إس تي سي.";

let server: VoiceBotServer;
let grpcPort: ReturnType<typeof clients>;
beforeAll(async () => {
  server = await startVoiceBotServer();
  await waitPortsServing(server.sawt.ports, ["tts"]);
  grpcPort = clients(server.sawt.ports.grpc_tts);
  const lexicon = await fetch(`${server.sawt.baseUrl}/v1/tts/lexicon`, {
    method: "PUT",
    headers: { "x-api-key": server.key, "content-type": "application/json" },
    body: JSON.stringify({ entries: [{ grapheme: "STC", alias: "إس تي سي" }] }),
  });
  expect(lexicon.status).toBe(200);
});
afterAll(async () => {
  grpcPort.close();
  await server.stop();
});

/** Collects the binary frames of a WebSocket until `done` says the exchange is over. */
function socketAudio(
  url: string,
  init: { headers?: Record<string, string>; protocols?: string[] },
  send: (ws: WebSocket) => void,
  done: (message: Record<string, unknown>) => boolean,
  base64 = false,
): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers: init.headers } as unknown as string[]);
    ws.binaryType = "arraybuffer";
    const audio: Buffer[] = [];
    ws.onopen = () => send(ws);
    ws.onmessage = (event) => {
      if (typeof event.data !== "string") return void audio.push(Buffer.from(event.data as ArrayBuffer));
      const message = JSON.parse(event.data) as Record<string, unknown>;
      if (base64 && typeof message.audio === "string") audio.push(Buffer.from(message.audio, "base64"));
      if (message.error || message.type === "error" || message.type === "Error")
        reject(new Error(JSON.stringify(message)));
      if (done(message)) {
        ws.close();
        resolve(Buffer.concat(audio));
      }
    };
    ws.onerror = () => reject(new Error("websocket error"));
  });
}

const ws = () => server.sawt.baseUrl.replace("http", "ws");
const json = { "content-type": "application/json" };

/** Every door, speaking `text` as 16 kHz s16le with the key. */
const DOORS: Record<string, (text: string) => Promise<Buffer>> = {
  rest: (text) => restPcm(server, text, { sample_rate: 16000 }),
  "ws request": (text) =>
    socketAudio(
      `${ws()}/v1/tts/ws`,
      { headers: { "x-api-key": server.key } },
      (s) => s.send(JSON.stringify({ input: text, sample_rate: 16000 })),
      (m) => m.type === "end",
    ),
  "ws text": (text) =>
    socketAudio(
      `${ws()}/v1/tts/ws`,
      { headers: { "x-api-key": server.key } },
      (s) => {
        s.send(JSON.stringify({ type: "text", text, sample_rate: 16000 }));
        s.send(JSON.stringify({ type: "close" }));
      },
      (m) => m.type === "end",
    ),
  "grpc SynthesizeOnline": async (text) => {
    const { messages, error } = await collect(
      grpcPort.tts.SynthesizeOnline({ text, sample_rate_hz: 16000 }, bearer(server.key)),
    );
    if (error) throw error;
    return Buffer.concat(messages.map((m) => m.audio as Buffer));
  },
  "grpc StreamSynthesize": async (text) => {
    const call = grpcPort.tts.StreamSynthesize(bearer(server.key)) as grpc.ClientDuplexStream<unknown, any>;
    const outcome = collect(call);
    call.write({ settings: { sample_rate_hz: 16000 }, text, close: true });
    call.end();
    const { messages, error } = await outcome;
    if (error) throw error;
    return Buffer.concat(messages.filter((m) => m.event === "audio").map((m) => m.audio));
  },
  "deepgram rest": async (text) => {
    const response = await fetch(`${server.sawt.baseUrl}/v1/speak?model=Yara&sample_rate=16000`, {
      method: "POST",
      headers: { Authorization: `Token ${server.key}`, ...json },
      body: JSON.stringify({ text }),
    });
    return Buffer.from(await response.arrayBuffer());
  },
  "deepgram ws": (text) =>
    socketAudio(
      `${ws()}/v1/speak?model=Yara&sample_rate=16000`,
      { headers: { Authorization: `Token ${server.key}` } },
      (s) => {
        s.send(JSON.stringify({ type: "Speak", text }));
        s.send(JSON.stringify({ type: "Flush" }));
      },
      (m) => m.type === "Flushed",
    ),
  "elevenlabs rest": async (text) => {
    const response = await fetch(`${server.sawt.baseUrl}/v1/text-to-speech/Yara?output_format=pcm_16000`, {
      method: "POST",
      headers: { "xi-api-key": server.key, ...json },
      body: JSON.stringify({ text }),
    });
    return Buffer.from(await response.arrayBuffer());
  },
  "elevenlabs ws": (text) =>
    socketAudio(
      `${ws()}/v1/text-to-speech/Yara/multi-stream-input?output_format=pcm_16000`,
      { headers: { "xi-api-key": server.key } },
      (s) => {
        s.send(JSON.stringify({ text: " ", context_id: "c" }));
        s.send(JSON.stringify({ text, context_id: "c", flush: true }));
        s.send(JSON.stringify({ context_id: "c", close_context: true }));
      },
      (m) => m.isFinal === true,
      true,
    ),
};

describe("the key's lexicon on every TTS door", () => {
  test.each(Object.keys(DOORS))("does read STC as the key's lexicon says on %s", async (door) => {
    const audio = await DOORS[door]!(TEXT);
    expect(audio.equals(await restPcm(server, SPOKEN, { sample_rate: 16000 }))).toBe(true);
  });
});

describe("LiveKit's OpenAI plugin", () => {
  test("does hear OpenAI's 24 kHz pcm from a voice that speaks at 22,050 Hz", async () => {
    const plugin = new OpenAITTS({
      apiKey: server.key,
      baseURL: `${server.sawt.baseUrl}/v1`,
      voice: "Sherine" as never,
    });
    const frames: { data: Int16Array }[] = [];
    for await (const audio of plugin.synthesize("شكرا لك على الانتظار.")) frames.push(audio.frame);
    const reference = await restPcm(server, "شكرا لك على الانتظار.", { voice: "Sherine", sample_rate: 24000 });
    expect(frameBytes(frames).equals(reference)).toBe(true);
  });
});

describe("idle speech streams", () => {
  test("does close an ElevenLabs socket whose inactivity_timeout passed, with its error", async () => {
    const socket = new WebSocket(`${ws()}/v1/text-to-speech/Yara/multi-stream-input?inactivity_timeout=1`, {
      headers: { "xi-api-key": server.key },
    } as unknown as string[]);
    const messages: Record<string, unknown>[] = [];
    socket.onmessage = (e) => messages.push(JSON.parse(String(e.data)));
    const closed = new Promise<number>((resolve) => (socket.onclose = (e) => resolve(e.code)));
    await new Promise((resolve) => (socket.onopen = resolve));
    socket.send(JSON.stringify({ text: " ", context_id: "c" }));
    const started = performance.now();
    expect(await closed).toBe(1008);
    expect(performance.now() - started).toBeGreaterThan(900);
    await until(() => messages.length > 0, "the error message");
    expect(messages.at(-1)).toEqual({
      error: "input_timeout_exceeded",
      message: "No text for 1 s: the speech stream was closed",
      code: 1008,
    });
  });
});
