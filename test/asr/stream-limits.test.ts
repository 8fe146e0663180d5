/**
 * Bad input and limits on the live doors (realtime WebSocket, jambonz, gRPC StreamingRecognize
 * with G.711) against the real server: non-base64 audio, unknown events, binary where text is
 * due, audio beyond the session limit, silence until the idle timeout, 200 sessions at once →
 * protocol error events and close codes, never a crash; /health answers throughout and the
 * open-streams gauge returns to 0.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import * as grpc from "@grpc/grpc-js";
import { encodeG711 } from "../../src/audio/g711.ts";
import { floatToInt16 } from "../../src/audio/wav.ts";
import { bearer, clients, collect, waitServing } from "../grpc/client.ts";
import { letterToneAudio } from "../support/models/ctc.ts";
import { promtoolCheck } from "../support/in-process.ts";
import { until, type SawtProcess } from "../support/sawt.ts";
import { concat, modelsDir, silence, startToneCtcSawt } from "./support.ts";
import { connect } from "./ws-client.ts";
import { metricTotal, scrapeMetrics, scrapeMetricsText } from "../support/http-helpers.ts";

const MAX_STREAMS = 20;
let models: ReturnType<typeof modelsDir>;
let sawt: SawtProcess;
let key: string;
let admin: string;
let ws: string;

beforeAll(async () => {
  ({ models, sawt } = await startToneCtcSawt({
    SAWT_STREAMING_MAX_SESSION_S: "3",
    SAWT_STREAMING_IDLE_TIMEOUT_S: "1",
    SAWT_STREAMING_MAX_STREAMS: String(MAX_STREAMS),
    SAWT_STREAMING_MAX_BUFFER_S: "2",
  }));
  key = (await sawt.createKey({ name: "limits", rpm: 100_000 })).key;
  admin = (await sawt.createKey({ name: "ops", admin: true })).key;
  ws = sawt.baseUrl.replace(/^http/, "ws");
});

afterAll(async () => {
  await sawt?.stop("SIGKILL");
  models?.remove();
});

async function openStreams(): Promise<number> {
  return metricTotal(await scrapeMetrics(sawt.baseUrl, admin), "sawt_asr_open_streams");
}

/** A jambonz session started as jambonz starts one: LINEAR16 at 8 kHz, finals only. */
async function jambonz() {
  const client = await connect(`${ws}/v1/asr/jambonz`, { headers: { authorization: `Bearer ${key}` } });
  client.sendJson({
    type: "start",
    language: "ar-SA",
    format: "raw",
    encoding: "LINEAR16",
    sampleRateHz: 8000,
    interimResults: false,
  });
  return client;
}

const realtime = () =>
  connect(`${ws}/v1/realtime?intent=transcription`, { headers: { authorization: `Bearer ${key}` } });

describe("realtime bad input", () => {
  test("does answer error events and keep the session for non-base64 audio, unknown events, binary frames and bad JSON", async () => {
    const client = await realtime();
    await client.next("session.created");
    client.sendJson({ type: "input_audio_buffer.append", audio: "not base64 at all!", event_id: "a1" });
    client.sendJson({ type: "response.create", event_id: "a2" });
    client.ws.send(new Uint8Array(64));
    client.ws.send("{not json");
    client.sendJson({
      type: "session.update",
      session: { type: "transcription", audio: { input: { format: { type: "audio/flac" } } } },
    });
    await client.next("error", 5);
    const errors = client.events.filter((e) => e.type === "error").map((e) => e.error);
    expect(errors.map((e) => e.code)).toEqual([
      "http_422",
      "invalid_event_type",
      "invalid_binary_frame",
      "invalid_json",
      "http_422",
    ]);
    expect(errors[0]).toMatchObject({
      type: "invalid_request_error",
      param: "audio",
      event_id: "a1",
      sawt: { status: 422, error: "validation_error" },
    });
    expect(errors[1]).toMatchObject({ param: "type", event_id: "a2", sawt: { status: 400 } });
    expect(errors[4].param).toBe("session.audio.input.format.type");
    client.sendJson({ type: "input_audio_buffer.clear" });
    await client.next("input_audio_buffer.cleared");
    client.ws.close();
  });

  test("does end a session with an error and close 1008 when its audio passes the session limit", async () => {
    const client = await realtime();
    const quarter = Buffer.from(new Uint8Array(12000)).toString("base64");
    for (let i = 0; i < 16 && client.ws.readyState === WebSocket.OPEN; i++) {
      client.sendJson({ type: "input_audio_buffer.append", audio: quarter });
      await Bun.sleep(10);
    }
    const error = await client.next("error");
    expect(error.error.message).toContain("3 s limit");
    expect((await client.closed).code).toBe(1008);
  });

  test("does end a session with an error and close 1008 when more audio waits than streaming.max_buffer_s", async () => {
    const client = await realtime();
    client.sendJson({
      type: "input_audio_buffer.append",
      audio: Buffer.from(new Uint8Array(48000 * 2.5)).toString("base64"),
    });
    expect((await client.next("error")).error).toMatchObject({
      code: "http_413",
      message: expect.stringContaining("faster than it can be transcribed"),
    });
    expect((await client.closed).code).toBe(1008);
  });

  test("does close an idle session with an error event once the idle timeout passes", async () => {
    const client = await realtime();
    const closed = await client.closed;
    expect(closed.code).toBe(1008);
    expect(client.events.at(-1).error).toMatchObject({ code: "http_504", sawt: { status: 504 } });
  });

  test("does refuse sessions beyond the stream limit with the 503 body, 200 opened at once, and never crash", async () => {
    const clients = await Promise.all(Array.from({ length: 200 }, () => realtime()));
    await until(() => clients.every((c) => c.events.length > 0), "every session answered");
    const refused = clients.filter((c) => c.events[0].type === "error");
    expect(clients.length - refused.length).toBe(MAX_STREAMS);
    for (const c of refused) {
      expect(c.events[0].error.sawt).toEqual({
        status: 503,
        error: "http_error",
        detail: "Service busy, try again later",
        code: "HTTP_503",
      });
      expect((await c.closed).code).toBe(1013);
    }
    expect((await fetch(`${sawt.baseUrl}/health`)).status).toBe(200);
    expect(await openStreams()).toBe(MAX_STREAMS);
    for (const c of clients) c.ws.close();
    await until(async () => (await openStreams()) === 0, "open streams back to 0");
  });
});

describe("jambonz bad input", () => {
  test("does send an error for an unknown control message and keep streaming", async () => {
    const client = await jambonz();
    client.sendJson({ type: "pause" });
    expect((await client.next("error")).error).toContain("Unknown control message");
    client.sendJson({ type: "stop" });
    expect((await client.closed).code).toBe(1000);
    await until(async () => (await openStreams()) === 0, "open streams back to 0");
  });
});

describe("jambonz limits", () => {
  test("does send an error and close when the stream stays silent past the idle timeout", async () => {
    const client = await jambonz();
    const closed = await client.closed;
    expect(client.events).toEqual([
      expect.objectContaining({ type: "error", error: "No audio or event for 1 s: session closed" }),
    ]);
    expect(closed.code).toBe(1008);
  });

  test("does send an error and close when the audio passes the session limit", async () => {
    const client = await jambonz();
    for (let i = 0; i < 20 && client.ws.readyState === WebSocket.OPEN; i++) {
      client.ws.send(new Uint8Array(4000));
      await Bun.sleep(10);
    }
    await client.closed;
    expect(client.events.at(-1)).toMatchObject({ type: "error", error: "The session exceeded its 3 s limit" });
    await until(async () => (await openStreams()) === 0, "open streams back to 0");
  });
});

describe("gRPC StreamingRecognize telephony audio", () => {
  test("does transcribe MULAW and ALAW at 8 kHz", async () => {
    const port = clients(sawt.ports.grpc_asr);
    await waitServing(port.health, "sawt.asr.v1.SpeechRecognition");
    const audio = floatToInt16(concat(silence(0.5, 8000), letterToneAudio("سلام", 8000), silence(0.8, 8000)));
    for (const [encoding, law] of [
      ["MULAW", "pcm_mulaw"],
      ["ALAW", "pcm_alaw"],
    ] as const) {
      const call = port.asr.StreamingRecognize(bearer(key)) as grpc.ClientDuplexStream<object, { results: any[] }>;
      const done = collect(call);
      call.write({ streaming_config: { config: { encoding, sample_rate_hz: 8000 }, interim_results: false } });
      const bytes = Buffer.from(encodeG711(audio, law));
      for (let at = 0; at < bytes.length; at += 160) call.write({ audio_content: bytes.subarray(at, at + 160) });
      call.end();
      const { messages, error } = await done;
      expect([encoding, error?.details, messages.flatMap((m) => m.results).map((r) => r.transcript)]).toEqual([
        encoding,
        undefined,
        ["سلام"],
      ]);
    }
    port.close();
    await until(async () => (await openStreams()) === 0, "open streams back to 0");
    const metrics = await scrapeMetricsText(sawt.baseUrl, admin);
    expect(metrics).toContain('sawt_asr_stream_audio_seconds_total{door="grpc"}');
    expect(metrics).toContain("# TYPE sawt_asr_stream_final_latency_seconds histogram");
    const checked = await promtoolCheck(metrics);
    expect([checked.code, checked.output]).toEqual([0, ""]);
  });
});
