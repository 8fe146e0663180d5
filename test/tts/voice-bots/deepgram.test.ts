/**
 * The Deepgram-compatible TTS door (issue 40, acceptance 1 and 3) against a real server, driven by
 * the real clients from npm, unmodified, pointed at Sawt by their base URL alone:
 * `@livekit/agents-plugin-deepgram@1.9.0` over its WebSocket path, and its REST request replayed
 * byte for byte (the plugin dials HTTPS on port 443 whatever the base URL says), and
 * `@deepgram/sdk@5.13.0` speak (REST and live). Each answers Sawt's own REST pcm for the text.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { DeepgramClient } from "@deepgram/sdk";
import { initializeLogger, tts } from "@livekit/agents";
import { TTS as DeepgramTTS } from "@livekit/agents-plugin-deepgram";
import { until } from "../../support/sawt.ts";
import { frameBytes, restPcm, startVoiceBotServer, TEXT, type VoiceBotServer, WORDS } from "./support.ts";

initializeLogger({ pretty: false, level: "warn" });

let server: VoiceBotServer;
beforeAll(async () => {
  server = await startVoiceBotServer();
});
afterAll(async () => {
  await server.stop();
});

describe("Deepgram TTS door with the LiveKit plugin", () => {
  test("does speak text pushed a word at a time over the WebSocket as REST's pcm at the plugin's rate", async () => {
    const plugin = new DeepgramTTS({ apiKey: server.key, baseUrl: server.sawt.baseUrl, model: "Yara" });
    const stream = plugin.stream();
    for (const word of WORDS) stream.pushText(word);
    stream.endInput();
    const frames: { data: Int16Array }[] = [];
    for await (const event of stream) {
      if (event === tts.SynthesizeStream.END_OF_STREAM) break;
      frames.push(event.frame);
    }
    expect(plugin.sampleRate).toBe(24000);
    expect(frameBytes(frames).equals(await restPcm(server, TEXT, { sample_rate: 24000 }))).toBe(true);
  });

  test("does answer the plugin's exact REST request with REST's pcm", async () => {
    // What the plugin's ChunkedStream sends (to port 443 over HTTPS, whatever its base URL), replayed here.
    const url = `${server.sawt.baseUrl}/v1/speak?sample_rate=24000&model=Yara&encoding=linear16&container=none&mip_opt_out=false`;
    const response = await fetch(url, {
      method: "POST",
      headers: { Authorization: `Token ${server.key}`, "Content-Type": "application/json" },
      body: JSON.stringify({ text: TEXT }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("dg-model-name")).toBe("Yara");
    const bytes = Buffer.from(await response.arrayBuffer());
    expect(bytes.equals(await restPcm(server, TEXT, { sample_rate: 24000 }))).toBe(true);
  });
});

describe("Deepgram TTS door with @deepgram/sdk", () => {
  test("does answer speak REST with REST's audio, mu-law at 8 kHz in a WAV container", async () => {
    const client = new DeepgramClient({ apiKey: server.key, baseUrl: server.sawt.baseUrl });
    const response = await client.speak.v1.audio.generate({
      text: TEXT,
      model: "Yara",
      encoding: "mulaw",
      sample_rate: 8000,
      container: "wav",
    });
    const bytes = Buffer.from(await response.arrayBuffer());
    const reference = await fetch(`${server.sawt.baseUrl}/v1/tts/audio/speech`, {
      method: "POST",
      headers: { "x-api-key": server.key, "content-type": "application/json" },
      body: JSON.stringify({ input: TEXT, response_format: "wav", sample_rate: 8000, encoding: "pcm_mulaw" }),
    });
    expect(bytes.equals(Buffer.from(await reference.arrayBuffer()))).toBe(true);
  });

  test("does speak over the live socket with Metadata first, Flushed after the audio, then close", async () => {
    const client = new DeepgramClient({ apiKey: server.key, baseUrl: server.sawt.baseUrl });
    const socket = await client.speak.v1.connect({
      model: "Yara",
      encoding: "linear16",
      sample_rate: "16000",
      Authorization: `Token ${server.key}`,
      reconnectAttempts: 0,
    });
    const messages: unknown[] = [];
    socket.on("message", (message: unknown) => messages.push(message));
    socket.connect();
    await socket.waitForOpen();
    for (const word of WORDS) socket.sendText({ type: "Speak", text: word });
    socket.sendFlush({ type: "Flush" });
    await until(() => messages.some((m) => (m as { type?: string }).type === "Flushed"), "Flushed");
    socket.close();
    // The SDK hands binary frames over as Blobs (the runtime's WebSocket), JSON ones parsed.
    const json = messages.filter((m) => !(m instanceof Blob)) as Array<Record<string, unknown>>;
    expect(json[0]).toMatchObject({ type: "Metadata", model_name: "Yara" });
    expect(json.at(-1)).toEqual({ type: "Flushed", sequence_id: 0 });
    const blobs = messages.filter((m): m is Blob => m instanceof Blob);
    const audio = await Promise.all(blobs.map(async (b) => Buffer.from(await b.arrayBuffer())));
    expect(Buffer.concat(audio).equals(await restPcm(server, TEXT, { sample_rate: 16000 }))).toBe(true);
  });
});

/** Opens a raw Deepgram TTS socket and records its frames and close. */
function rawSocket(query: string, init: { protocols?: string[]; key?: string } = {}) {
  const url = `${server.sawt.baseUrl.replace("http", "ws")}/v1/speak?${query}`;
  const ws = init.protocols
    ? new WebSocket(url, init.protocols)
    : new WebSocket(url, { headers: { Authorization: `Token ${init.key ?? server.key}` } } as unknown as string[]);
  ws.binaryType = "arraybuffer";
  const frames: Array<Record<string, unknown> | ArrayBuffer> = [];
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    ws.addEventListener("close", (e) => resolve({ code: e.code, reason: e.reason })),
  );
  ws.addEventListener("message", (e) =>
    frames.push(typeof e.data === "string" ? (JSON.parse(e.data) as Record<string, unknown>) : (e.data as ArrayBuffer)),
  );
  const opened = new Promise<void>((resolve) => ws.addEventListener("open", () => resolve()));
  return { ws, frames, closed, opened };
}

describe("Deepgram TTS door's Close", () => {
  test("does answer the flushes before a Close, then close normally: Python's plugin sends a word per Speak, Flush and Close at once", async () => {
    const socket = rawSocket("model=Yara&sample_rate=24000");
    await socket.opened;
    for (const word of WORDS) socket.ws.send(JSON.stringify({ type: "Speak", text: `${word.trim()} ` }));
    socket.ws.send(JSON.stringify({ type: "Flush" }));
    socket.ws.send(JSON.stringify({ type: "Close" }));
    expect(await socket.closed).toMatchObject({ code: 1000 });
    expect(socket.frames.at(-1)).toEqual({ type: "Flushed", sequence_id: 0 });
    const audio = Buffer.concat(
      socket.frames.filter((f): f is ArrayBuffer => f instanceof ArrayBuffer).map((f) => Buffer.from(f)),
    );
    expect(audio.equals(await restPcm(server, TEXT, { sample_rate: 24000 }))).toBe(true);
  });
});

describe("Deepgram TTS door's refusals", () => {
  const upgrade = {
    Connection: "Upgrade",
    Upgrade: "websocket",
    "Sec-WebSocket-Version": "13",
    "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==",
  };

  test("does refuse a bad encoding, rate or key in Deepgram's error body, on REST and at the upgrade", async () => {
    const bad = await fetch(`${server.sawt.baseUrl}/v1/speak?encoding=mulaw&sample_rate=44100`, {
      headers: { ...upgrade, Authorization: `Token ${server.key}` },
    });
    expect(bad.status).toBe(400);
    // Deepgram's body (the request id is the upgrade's X-Request-ID), Sawt's own under `sawt`.
    const refused = (await bad.json()) as Record<string, unknown>;
    expect(refused).toMatchObject({
      err_code: "Bad Request",
      err_msg: "Unsupported sample_rate 44100 for mulaw: use 8000, 16000, 24000, 48000",
      request_id: bad.headers.get("x-request-id"),
    });
    expect(Object.keys(refused).sort()).toEqual(["err_code", "err_msg", "request_id", "sawt"]);
    const rest = await fetch(`${server.sawt.baseUrl}/v1/speak?encoding=pcm`, {
      method: "POST",
      headers: { Authorization: `Token ${server.key}`, "Content-Type": "application/json" },
      body: JSON.stringify({ text: TEXT }),
    });
    expect(rest.status).toBe(400);
    // Refused after the key was admitted: its rate-limit headers, as on every REST answer.
    expect(rest.headers.get("x-ratelimit-limit")).toBe("1000");
    expect(await rest.json()).toMatchObject({
      err_code: "Bad Request",
      err_msg: expect.stringContaining("Unsupported encoding pcm"),
    });
    const wrong = await fetch(`${server.sawt.baseUrl}/v1/speak`, {
      method: "POST",
      headers: { Authorization: `Token ${server.key}x`, "Content-Type": "application/json" },
      body: JSON.stringify({ text: TEXT }),
    });
    expect(wrong.status).toBe(401);
    expect(await wrong.json()).toMatchObject({ err_code: "INVALID_AUTH", err_msg: "Invalid API key" });
  });

  test("does take the key from the token subprotocol a browser sends, and pick that subprotocol", async () => {
    const socket = rawSocket("model=aura-2-andromeda-en", { protocols: ["token", server.key] });
    await socket.opened;
    expect(socket.ws.protocol).toBe("token");
    await until(() => socket.frames.length > 0, "Metadata");
    // Deepgram's English Aura voices speak as Yara_en (here through Yara's pack, D5).
    expect(socket.frames[0]).toMatchObject({ type: "Metadata", model_name: "Yara_en" });
    socket.ws.close();
  });

  test("does warn of a message it ignores and close with Deepgram's codes for what it cannot take", async () => {
    const warned = rawSocket("model=Yara");
    await warned.opened;
    warned.ws.send(JSON.stringify({ type: "Shout" }));
    await until(() => warned.frames.some((f) => !(f instanceof ArrayBuffer) && f.type === "Warning"), "a Warning");
    expect(warned.frames.at(-1)).toEqual({
      type: "Warning",
      code: "UNKNOWN_MESSAGE",
      description: 'Message type "Shout" is ignored',
    });
    warned.ws.send(new Uint8Array([1, 2]));
    expect(await warned.closed).toMatchObject({ code: 1003, reason: expect.stringMatching(/^MESSAGE-0000: /) });

    const garbled = rawSocket("model=Yara");
    await garbled.opened;
    garbled.ws.send("{not json");
    expect(await garbled.closed).toMatchObject({ code: 1008, reason: expect.stringMatching(/^DATA-0000: /) });

    const long = rawSocket("model=Yara");
    await long.opened;
    long.ws.send(JSON.stringify({ type: "Speak", text: "كلمة ".repeat(20_000) }));
    expect(await long.closed).toMatchObject({
      code: 1009,
      reason: expect.stringMatching(/^BIG-0000: Queued text over the limit/),
    });
    expect(long.frames.some((f) => !(f instanceof ArrayBuffer) && f.type === "Error")).toBe(true);
  });

  test("does count each socket against the key's rate limit and refuse one over it with a close frame", async () => {
    const { key } = await server.sawt.createKey({ name: "one-a-minute", rpm: 1 });
    const first = rawSocket("model=Yara", { key });
    await first.opened;
    await until(() => first.frames.length > 0, "Metadata");
    const second = rawSocket("model=Yara", { key });
    const closed = await second.closed;
    // The close payload names Deepgram's err_code for a refusal that is not about the audio.
    expect(closed).toMatchObject({ code: 1008, reason: "TOO_MANY_REQUESTS: Rate limit exceeded" });
    expect(second.frames).toEqual([expect.objectContaining({ type: "Error", err_code: "TOO_MANY_REQUESTS" })]);
    first.ws.close();
  });
});
