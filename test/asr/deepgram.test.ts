/**
 * Deepgram's `/v1/listen` on a real `sawt serve` (tone CTC recogniser), spoken to by a plain
 * WebSocket client and fetch as developers.deepgram.com documents the protocol: the upgrade's key
 * ways and refusals (Deepgram's error body), the messages and their fields, endpointing and
 * UtteranceEnd on the wall clock for a client that stops sending, Finalize, CloseStream and
 * Metadata, channels, the door's own formatting options, bad input answered with an `Error`
 * message and a close frame, the limits (idle, buffer, frame size) and the key's rate limit. The
 * pre-recorded POST is ./deepgram-prerecorded.test.ts; the frameworks' clients are in
 * ./voice-bot-clients.test.ts.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { join } from "node:path";
import { letterToneAudio } from "../support/models/ctc.ts";
import { until, type SawtProcess } from "../support/sawt.ts";
import { callAudio, leaks, pcm16, UTTERANCES } from "./format-support.ts";
import { concat, modelsDir, silence, startToneCtcSawt } from "./support.ts";
import { connect, type TestSocket } from "./ws-client.ts";

const IDLE_S = 2;
const TEXT = "سلام عليكم";
let models: ReturnType<typeof modelsDir>;
let sawt: SawtProcess;
let key: string;

beforeAll(async () => {
  ({ models, sawt } = await startToneCtcSawt({
    SAWT_STREAMING_PARTIAL_INTERVAL_MS: "300",
    SAWT_STREAMING_IDLE_TIMEOUT_S: String(IDLE_S),
    SAWT_STREAMING_MAX_BUFFER_S: "2",
  }));
  key = (await sawt.createKey({ name: "deepgram", rpm: 10_000 })).key;
});

afterAll(async () => {
  await sawt?.stop("SIGKILL");
  models?.remove();
});

const RAW = "encoding=linear16&sample_rate=16000&language=ar";
const listenUrl = (query: string) => `${sawt.baseUrl.replace(/^http/, "ws")}/v1/listen?${query}`;

/** Opens `/v1/listen?query` with `Authorization: Token <key>` (or the given headers/protocols). */
function listen(query: string, options: { headers?: Record<string, string>; protocols?: string[] } = {}) {
  return connect(listenUrl(query), { headers: options.headers ?? { authorization: `Token ${key}` }, ...options });
}

/** Sends `audio` as linear16 frames of `frameMs`, paced at `speed` × real time. */
async function send(client: TestSocket, audio: Float32Array, { frameMs = 100, speed = 4, channels = 1 } = {}) {
  const pcm = pcm16(audio);
  const bytes = (16000 * 2 * channels * frameMs) / 1000;
  for (let at = 0; at < pcm.length; at += bytes) {
    client.ws.send(pcm.subarray(at, at + bytes));
    await Bun.sleep(frameMs / speed);
  }
}

/** The upgrade as an HTTP request (fetch shows a refused upgrade's status, headers and body). */
function upgradeRequest(query: string, headers: Record<string, string>) {
  return fetch(`${sawt.baseUrl}/v1/listen?${query}`, {
    headers: {
      upgrade: "websocket",
      connection: "Upgrade",
      "sec-websocket-version": "13",
      "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==",
      ...headers,
    },
  });
}

const results = (client: TestSocket) => client.events.filter((e) => e.type === "Results");
const finalTexts = (client: TestSocket) =>
  results(client)
    .filter((e) => e.is_final)
    .map((e) => e.channel.alternatives[0].transcript)
    .filter((t: string) => t !== "");

describe("the upgrade", () => {
  test("does take the key as Token, Bearer, or the token subprotocol (named back in the 101)", async () => {
    for (const authorization of [`Token ${key}`, `token ${key}`, `Bearer ${key}`]) {
      const client = await listen(RAW, { headers: { authorization } });
      expect(client.ws.readyState).toBe(WebSocket.OPEN);
      client.ws.close();
    }
    const browser = await connect(listenUrl(RAW), { protocols: ["token", key] });
    expect([browser.ws.readyState, browser.ws.protocol]).toEqual([WebSocket.OPEN, "token"]);
    browser.ws.close();
  });

  test("does refuse a missing or wrong key with 401 in Deepgram's body and its dg-error header", async () => {
    for (const headers of [{}, { authorization: "Token nope" }, { authorization: `Basic ${key}` }] as Record<
      string,
      string
    >[]) {
      const reply = await upgradeRequest(RAW, headers);
      expect(reply.status).toBe(401);
      expect(reply.headers.get("dg-error")).toBeString();
      const body = (await reply.json()) as Record<string, unknown>;
      expect(body).toMatchObject({ err_code: "INVALID_AUTH", request_id: reply.headers.get("x-request-id") });
      expect(body.sawt).toMatchObject({ status: 401 });
    }
  });

  test.each([
    ["encoding=opus&sample_rate=48000", "encoding"],
    ["encoding=linear16", "sample_rate"],
    ["encoding=linear16&sample_rate=4000", "sample_rate"],
    ["encoding=mulaw&sample_rate=16000", "sample_rate"],
    ["sample_rate=16000", "encoding"],
    [`${RAW}&language=fr`, "language"],
    [`${RAW}&language=multi`, "language"],
    [`${RAW}&redact=numbers`, "redact"],
    [`${RAW}&redact=true`, "redact"],
    [`${RAW}&diarize=true`, "diarize"],
    [`${RAW}&keywords=سلام:-2`, "keywords"],
    [`${RAW}&channels=9&multichannel=true`, "channels"],
    [`${RAW}&interim_results=maybe`, "interim_results"],
    [`${RAW}&callback=http://127.0.0.1:9/`, "callback"],
    [`${RAW}&replace=a:b`, "replace"],
    [`${RAW}&dictation=true`, "dictation"],
    [`${RAW}&utterance_end_ms=60000`, "utterance_end_ms"],
  ])("does refuse %s before the 101 with INVALID_QUERY_PARAMETER naming %s", async (query, param) => {
    const reply = await upgradeRequest(query, { authorization: `Token ${key}` });
    expect(reply.status).toBe(400);
    const body = (await reply.json()) as { err_code: string; err_msg: string };
    expect(body.err_code).toBe("INVALID_QUERY_PARAMETER");
    expect(body.err_msg).toStartWith(`${param}: `);
  });

  test("does accept any model name and parameters that would not change the transcript", async () => {
    const query = `${RAW}&model=nova-3-medical&tag=x&extra=a:b&mip_opt_out=true&no_delay=true&filler_words=true&profanity_filter=true&search=x&version=latest&some_future_option=1`;
    const client = await listen(query);
    expect(client.ws.readyState).toBe(WebSocket.OPEN);
    client.sendJson({ type: "CloseStream" });
    expect((await client.closed).code).toBe(1000);
  });
});

describe("a live stream", () => {
  test("does send Results in Deepgram's shape: interim, then a speech_final final, SpeechStarted, Metadata", async () => {
    const requestId = `dg-test-${Date.now()}`;
    const client = await listen(`${RAW}&interim_results=true&vad_events=true&model=nova-2`, {
      headers: { authorization: `Token ${key}`, "x-request-id": requestId },
    });
    const audio = concat(silence(0.5), letterToneAudio(TEXT), silence(1));
    await send(client, audio);
    const final = await client
      .next("Results", 1)
      .then(() => until(() => results(client).find((e) => e.is_final), "a final"));
    client.sendJson({ type: "CloseStream" });
    const closed = await client.closed;
    const types = client.events.map((e) => e.type);
    expect(types[0]).toBe("SpeechStarted");
    expect(client.events[0]).toEqual({ type: "SpeechStarted", channel: [0, 1], timestamp: expect.any(Number) });
    expect(results(client).findIndex((e) => !e.is_final)).toBeLessThan(results(client).indexOf(final));
    expect(final).toMatchObject({
      type: "Results",
      channel_index: [0, 1],
      is_final: true,
      speech_final: true,
      from_finalize: false,
      channel: { alternatives: [{ transcript: TEXT, confidence: 1 }] },
      metadata: { request_id: requestId, model_info: { name: "nova-2" }, model_uuid: expect.any(String) },
    });
    expect(final.start).toBeGreaterThan(0.1);
    expect(final.duration).toBeGreaterThan(1);
    const words = final.channel.alternatives[0].words;
    expect(words.map((w: { word: string }) => w.word)).toEqual(TEXT.split(" "));
    for (const w of words) {
      expect(Object.keys(w).sort()).toEqual(["confidence", "end", "punctuated_word", "start", "word"]);
      expect(w.end).toBeGreaterThan(w.start);
    }
    expect(types.at(-1)).toBe("Metadata");
    expect(client.events.at(-1)).toMatchObject({
      request_id: requestId,
      sha256: createHash("sha256").update(pcm16(audio)).digest("hex"),
      duration: audio.length / 16000,
      channels: 1,
    });
    expect(closed.code).toBe(1000);
  });

  test("does end the utterance and send UtteranceEnd on the wall clock when the client stops sending", async () => {
    const client = await listen(`${RAW}&endpointing=300&utterance_end_ms=1000&interim_results=true`);
    // The speech and nothing after it: only KeepAlive, as LiveKit's plugin does in silence.
    await send(client, concat(silence(0.3), letterToneAudio(TEXT)), { frameMs: 20, speed: 1 });
    const lastFrame = performance.now();
    const keepAlive = setInterval(() => client.sendJson({ type: "KeepAlive" }), 500);
    try {
      await client.next("UtteranceEnd");
    } finally {
      clearInterval(keepAlive);
    }
    const final = results(client).find((e) => e.is_final)!;
    const finalAt = client.times[client.events.indexOf(final)]! - lastFrame;
    const endAt = client.times[client.events.findIndex((e) => e.type === "UtteranceEnd")]! - lastFrame;
    expect(final).toMatchObject({ speech_final: true, channel: { alternatives: [{ transcript: TEXT }] } });
    // The gap (300 ms) before missing audio counts (then the 300 ms endpointing silence is owed at once).
    expect(finalAt).toBeGreaterThan(250);
    expect(finalAt).toBeLessThan(4000);
    // A second of silence after the last word, counted from the audio's end.
    expect(endAt - finalAt).toBeGreaterThan(300);
    const last = final.channel.alternatives[0].words.at(-1).end;
    expect(client.events.find((e) => e.type === "UtteranceEnd")).toEqual({
      type: "UtteranceEnd",
      channel: [0, 1],
      last_word_end: last,
    });
    client.ws.close();
  });

  test("does finalize open speech on Finalize, from_finalize and not speech_final", async () => {
    const client = await listen(`${RAW}&endpointing=10000`);
    await send(client, concat(silence(0.3), letterToneAudio(TEXT), silence(0.2)));
    client.sendJson({ type: "Finalize" });
    const final = await until(() => results(client).find((e) => e.is_final), "the final", { timeoutMs: 5000 });
    expect(final).toMatchObject({ from_finalize: true, speech_final: false });
    expect(final.channel.alternatives[0].transcript).toBe(TEXT);
    // Nothing open: a second Finalize changes nothing, and the stream goes on.
    client.sendJson({ type: "Finalize" });
    client.sendJson({ type: "CloseStream" });
    expect((await client.closed).code).toBe(1000);
    expect(finalTexts(client)).toEqual([TEXT]);
  });

  test("does transcribe channels apart (multichannel, diarize) or as one mix", async () => {
    const left = concat(silence(0.3), letterToneAudio("سلام"), silence(1));
    const right = concat(silence(0.3), letterToneAudio("مرحبا"), silence(1));
    const length = Math.max(left.length, right.length);
    const stereo = (a: Float32Array, b: Float32Array) => {
      const out = new Float32Array(length * 2);
      for (let i = 0; i < length; i++) [out[2 * i], out[2 * i + 1]] = [a[i] ?? 0, b[i] ?? 0];
      return out;
    };
    const apart = await listen(`${RAW}&channels=2&multichannel=true&diarize=true`);
    await send(apart, stereo(left, right), { channels: 2 });
    apart.sendJson({ type: "CloseStream" });
    await apart.closed;
    const byChannel = results(apart)
      .filter((e) => e.is_final && e.channel.alternatives[0].transcript !== "")
      .map((e) => [e.channel_index, e.channel.alternatives[0].transcript, e.channel.alternatives[0].words[0].speaker]);
    expect(byChannel.sort()).toEqual([
      [[0, 2], "سلام", 0],
      [[1, 2], "مرحبا", 1],
    ]);
    expect(apart.events.at(-1)).toMatchObject({ type: "Metadata", channels: 2 });
    // Without multichannel the channels are one stream (the same speech on both: their mean is it).
    const mixed = await listen(`${RAW}&channels=2`);
    await send(mixed, stereo(left, left), { channels: 2 });
    mixed.sendJson({ type: "CloseStream" });
    await mixed.closed;
    expect(
      results(mixed)
        .filter((e) => e.is_final)
        .map((e) => e.channel_index),
    ).toEqual([[0, 1]]);
    expect(finalTexts(mixed)).toEqual(["سلام"]);
  });

  test("does apply its own redact and smart_format (the door's options, on top of the server's floor)", async () => {
    const client = await listen(`${RAW}&smart_format=true&redact=pci&interim_results=true`);
    await send(client, callAudio(UTTERANCES.slice(0, 2)), { speed: 8 });
    client.sendJson({ type: "CloseStream" });
    await client.closed;
    const texts = results(client).flatMap((e) => [
      e.channel.alternatives[0].transcript,
      ...e.channel.alternatives[0].words.flatMap((w: { word: string; punctuated_word: string }) => [
        w.word,
        w.punctuated_word,
      ]),
    ]);
    expect(finalTexts(client).join(" ")).toContain("[REDACTED:card]");
    for (const text of texts) expect({ text, leaks: leaks(text) }).toEqual({ text, leaks: false });
  });

  test("does close on an empty binary frame as on CloseStream (Deepgram's older close)", async () => {
    const client = await listen(RAW);
    await send(client, concat(silence(0.3), letterToneAudio(TEXT)));
    client.ws.send(new Uint8Array(0));
    expect((await client.closed).code).toBe(1000);
    expect(finalTexts(client)).toEqual([TEXT]);
    expect(client.events.at(-1).type).toBe("Metadata");
  });
});

/** Expects the stream to end with Deepgram's Error message and a close frame carrying `payload`. */
async function expectRefused(client: TestSocket, code: number, payload: string, variant: string) {
  const closed = await client.closed;
  expect(closed.code).toBe(code);
  expect(closed.reason).toStartWith(`${payload}: `);
  const error = client.events.at(-1);
  expect(error).toMatchObject({ type: "Error", variant, message: payload, description: expect.any(String) });
  expect(error.sawt.status).toBeNumber();
}

describe("bad input and limits", () => {
  test.each<[string, (c: TestSocket) => void, string?]>([
    ["text that is not JSON", (c) => c.ws.send("hello")],
    ["an unknown message type", (c) => c.sendJson({ type: "Configure" })],
    ["a message without a type", (c) => c.sendJson({ text: "x" })],
    [
      "audio after CloseStream",
      (c) => {
        // As much speech as the stream may queue (streaming.max_buffer_s, 2 s here) in one frame, so
        // the stream is still finishing (decoding) when the late frame comes, even on a busy machine.
        const speech = concat(letterToneAudio(TEXT), silence(0.2), letterToneAudio("مرحبا"));
        c.ws.send(pcm16(speech.subarray(0, Math.min(speech.length, 1.9 * 16000))));
        c.sendJson({ type: "CloseStream" });
        c.ws.send(new Uint8Array(3200));
      },
    ],
    ["a frame over 1 MiB", (c) => c.ws.send(new Uint8Array(1024 * 1024 + 2)), "PAYLOAD_TOO_LARGE"],
  ])("does answer %s with an Error message and close 1008 DATA-0000", async (_, act, variant = "Bad Request") => {
    const client = await listen(RAW);
    act(client);
    await expectRefused(client, 1008, "DATA-0000", variant);
  });

  test("does close an idle stream with Deepgram's 1011 NET-0001", async () => {
    const client = await listen(RAW);
    const opened = performance.now();
    await expectRefused(client, 1011, "NET-0001", "TIMEOUT");
    expect(performance.now() - opened).toBeGreaterThan(IDLE_S * 1000 - 100);
  });

  test("does keep a stream that sends KeepAlive open past the idle limit", async () => {
    const client = await listen(RAW);
    for (let i = 0; i < 6; i++) {
      client.sendJson({ type: "KeepAlive" });
      await Bun.sleep(500);
    }
    expect(client.ws.readyState).toBe(WebSocket.OPEN);
    client.sendJson({ type: "CloseStream" });
    expect((await client.closed).code).toBe(1000);
  });

  test("does refuse audio arriving faster than it can be transcribed (streaming.max_buffer_s)", async () => {
    const client = await listen(RAW);
    client.ws.send(new Uint8Array(16000 * 2 * 3));
    await expectRefused(client, 1008, "DATA-0000", "PAYLOAD_TOO_LARGE");
  });

  test("does end at once a stream whose keywords and the key's list go over the phrase bound", async () => {
    const full = await sawt.createKey({ name: "full-list", rpm: 10_000 });
    const phrases = Array.from({ length: 1000 }, (_, i) => ({ phrase: `كلمة ${i}` }));
    const put = await fetch(`${sawt.baseUrl}/v1/asr/phrases`, {
      method: "PUT",
      headers: { "x-api-key": full.key, "content-type": "application/json" },
      body: JSON.stringify({ phrases }),
    });
    expect(put.status).toBe(200);
    const opened = performance.now();
    const client = await listen(`${RAW}&keywords=طلب`, { headers: { authorization: `Token ${full.key}` } });
    await expectRefused(client, 1008, "DATA-0000", "Bad Request");
    // Refused when configured, not left holding its stream slot until the idle limit.
    expect(performance.now() - opened).toBeLessThan(IDLE_S * 1000 - 500);
    await until(() => sawt.logs.some((l) => l.includes('"method":"asr.deepgram","code":"422"')), "the 422 log line");
  });

  test("does count one request of the key's rate limit per stream", async () => {
    const limited = await sawt.createKey({ name: "one-a-minute", rpm: 1 });
    const first = await listen(RAW, { headers: { authorization: `Token ${limited.key}` } });
    const second = await listen(RAW, { headers: { authorization: `Token ${limited.key}` } });
    await expectRefused(second, 1008, "TOO_MANY_REQUESTS", "TOO_MANY_REQUESTS");
    expect(first.ws.readyState).toBe(WebSocket.OPEN);
    first.ws.close();
    const post = await fetch(`${sawt.baseUrl}/v1/listen?${RAW}`, {
      method: "POST",
      headers: { authorization: `Token ${limited.key}` },
      body: new Uint8Array(3200),
    });
    expect(post.status).toBe(429);
    expect(post.headers.get("retry-after")).toBeString();
    expect(await post.json()).toMatchObject({ err_code: "TOO_MANY_REQUESTS" });
  });
});
