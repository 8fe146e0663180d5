/**
 * Admission control seen through gRPC: a full queue is UNAVAILABLE with retry-after, a queue wait
 * over the limit is DEADLINE_EXCEEDED, a client deadline or cancellation takes the call out of the
 * queue (the freed place is observable: the next call queues instead of being refused busy), and a
 * draining server refuses new work. The slot is held by a REST speech stream whose client stops
 * reading: TCP flow control then stops the server pulling the synthesis, which keeps its slot for
 * the whole stream. (The streaming doors on the speech stream, SynthesizeOnline among them, take a
 * slot per sentence: a slow reader holds back its own next sentence but no slot.)
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import * as grpc from "@grpc/grpc-js";
import { connect } from "node:net";
import { join } from "node:path";
import { writePiperPack } from "../support/models/tone-voice.ts";
import { startSawt, tempDir, type SawtProcess } from "../support/sawt.ts";
import { ARABIC_TEXT_SYMBOLS, idMap } from "../tts/support.ts";
import { bearer, clients, unary, waitPortsServing } from "./client.ts";
import { scrapeMetrics } from "../support/http-helpers.ts";

/** About 10 MB of tone-voice PCM: far more than every buffer between server and client. */
const LONG_TEXT = "مرحبا بكم في خدمة العملاء. ".repeat(80);
const dir = tempDir("sawt-grpc-admission-");
const models = join(dir.path, "models");

beforeAll(async () => {
  await writePiperPack(join(models, "yara"), {
    name: "ar_text",
    sampleRate: 16000,
    phonemeIdMap: idMap(ARABIC_TEXT_SYMBOLS),
    phonemeType: "text",
  });
});

afterAll(() => dir.remove());

/** Starts a server with one TTS slot and the given queue settings; resolves with a keyed client. */
async function oneSlotServer(env: Record<string, string>) {
  const sawt = await startSawt({
    env: {
      SAWT_MODELS_DIR: models,
      SAWT_TTS_CONCURRENCY: "1",
      SAWT_DRAIN_TIMEOUT_MS: "10000",
      SAWT_RUNTIME_METRICS_OPEN: "true",
      ...env,
    },
  });
  await waitPortsServing(sawt.ports, ["tts"]);
  const port = clients(sawt.ports.grpc_tts);
  const { key } = await sawt.createKey({ name: "admission", rpm: 1000 });
  return { sawt, port, key, metadata: () => bearer(key) };
}

/**
 * Starts a long REST speech stream on a socket of its own and stops reading after the first bytes:
 * the synthesis holds the slot until the socket is destroyed.
 */
function holdSlot(server: Awaited<ReturnType<typeof oneSlotServer>>): Promise<{ cancel(): void }> {
  const body = JSON.stringify({ input: LONG_TEXT, response_format: "pcm" });
  return new Promise((resolve, reject) => {
    const socket = connect(server.sawt.ports.http, "127.0.0.1", () =>
      socket.write(
        `POST /v1/tts/audio/speech HTTP/1.1\r\nHost: sawt\r\nX-API-Key: ${server.key}\r\n` +
          `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
      ),
    );
    socket.once("data", () => {
      socket.pause();
      resolve({ cancel: () => socket.destroy() });
    });
    socket.on("error", reject);
  });
}

const withDeadline = (ms: number) => ({ deadline: Date.now() + ms });

/** The value of one sample of GET /metrics (0 when absent). */
async function metric(server: Awaited<ReturnType<typeof oneSlotServer>>, sample: string): Promise<number> {
  return (await scrapeMetrics(server.sawt.baseUrl)).get(sample) ?? 0;
}

/**
 * Queued requests that left the queue without running: dropped (client gone) or timed out (a
 * deadline shortens the queue timeout, whichever timer fires first).
 */
async function droppedFromQueue(server: Awaited<ReturnType<typeof oneSlotServer>>): Promise<number> {
  return (
    (await metric(server, 'sawt_queue_dropped_total{engine="tts"}')) +
    (await metric(server, 'sawt_admission_rejected_total{engine="tts",reason="timeout"}'))
  );
}

/**
 * Calls Synthesize with a short deadline until the server stops refusing it as busy (the server
 * learns of a cancellation or deadline a moment after the client does); at most `tries` times.
 */
async function queueProbe(
  server: Awaited<ReturnType<typeof oneSlotServer>>,
  tries = 20,
): Promise<grpc.ServiceError | undefined> {
  let outcome = await unary(server.port.tts, "Synthesize", { text: "مرحبا" }, server.metadata(), withDeadline(300));
  for (let i = 1; i < tries && outcome.error?.code === grpc.status.UNAVAILABLE; i++) {
    await Bun.sleep(50);
    outcome = await unary(server.port.tts, "Synthesize", { text: "مرحبا" }, server.metadata(), withDeadline(300));
  }
  return outcome.error;
}

describe("grpc TTS admission with one slot and one queue place", () => {
  let server: Awaited<ReturnType<typeof oneSlotServer>>;
  let holder: { cancel(): void };

  beforeAll(async () => {
    server = await oneSlotServer({ SAWT_TTS_MAX_QUEUE: "1", SAWT_TTS_QUEUE_TIMEOUT_MS: "60000" });
    holder = await holdSlot(server);
  });

  afterAll(async () => {
    holder?.cancel();
    server.port.close();
    await server.sawt.stop("SIGKILL");
  });

  test("does take a call out of the queue when its client deadline passes", async () => {
    const dropped = await droppedFromQueue(server);
    const expired = await unary(server.port.tts, "Synthesize", { text: "مرحبا" }, server.metadata(), withDeadline(300));
    expect(expired.error?.code).toBe(grpc.status.DEADLINE_EXCEEDED);
    // Had the expired call stayed queued (60 s queue timeout), every probe would be refused busy.
    expect((await queueProbe(server))?.code).toBe(grpc.status.DEADLINE_EXCEEDED);
    // The first call left the queue without running (the probe's own outcome may still be in flight).
    expect(await droppedFromQueue(server)).toBeGreaterThanOrEqual(dropped + 1);
    expect(
      await metric(server, 'sawt_grpc_requests_total{method="tts.Synthesize",code="DEADLINE_EXCEEDED"}'),
    ).toBeGreaterThanOrEqual(1);
  });

  test("does refuse busy with retry-after when the queue is full, and free the place when the queued client cancels", async () => {
    const queued = server.port.tts.Synthesize(
      { text: "مرحبا" },
      server.metadata(),
      () => undefined,
    ) as grpc.ClientUnaryCall;
    // Once the first call is queued, the next one finds the queue full.
    let busy = await unary(server.port.tts, "Synthesize", { text: "مرحبا" }, server.metadata(), withDeadline(100));
    for (let i = 0; i < 20 && busy.error?.code !== grpc.status.UNAVAILABLE; i++)
      busy = await unary(server.port.tts, "Synthesize", { text: "مرحبا" }, server.metadata(), withDeadline(100));
    expect([busy.error?.code, busy.error?.details]).toEqual([
      grpc.status.UNAVAILABLE,
      "Service busy, please try again later",
    ]);
    expect(Number(busy.error?.metadata.get("retry-after")[0])).toBeGreaterThanOrEqual(1);
    const dropped = await droppedFromQueue(server);
    queued.cancel();
    expect((await queueProbe(server))?.code).toBe(grpc.status.DEADLINE_EXCEEDED);
    expect(await droppedFromQueue(server)).toBeGreaterThanOrEqual(dropped + 1);
    expect(
      await metric(server, 'sawt_grpc_requests_total{method="tts.Synthesize",code="UNAVAILABLE"}'),
    ).toBeGreaterThanOrEqual(1);
  });

  test("does refuse new work as UNAVAILABLE while draining after SIGTERM, then exit once the slot frees", async () => {
    const watch = server.port.health.Watch({ service: "" }) as grpc.ClientReadableStream<{ status: string }>;
    const notServing = new Promise<void>((resolve) =>
      watch.on("data", (m: { status: string }) => m.status === "NOT_SERVING" && resolve()),
    );
    watch.on("error", () => undefined);
    server.sawt.proc.kill("SIGTERM");
    await notServing;
    const refused = await unary(server.port.tts, "Synthesize", { text: "مرحبا" }, server.metadata());
    expect([refused.error?.code, refused.error?.details]).toEqual([
      grpc.status.UNAVAILABLE,
      "TTS engine is shutting down",
    ]);
    holder.cancel();
    expect(await server.sawt.proc.exited).toBe(0);
  });
});

describe("grpc TTS queue timeout", () => {
  test("does answer DEADLINE_EXCEEDED 'Request timeout waiting for GPU' when the queue wait passes the limit", async () => {
    const server = await oneSlotServer({ SAWT_TTS_MAX_QUEUE: "4", SAWT_TTS_QUEUE_TIMEOUT_MS: "300" });
    const holder = await holdSlot(server);
    try {
      const waited = await unary(
        server.port.tts,
        "Synthesize",
        { text: "مرحبا" },
        server.metadata(),
        withDeadline(20_000),
      );
      expect([waited.error?.code, waited.error?.details]).toEqual([
        grpc.status.DEADLINE_EXCEEDED,
        "Request timeout waiting for GPU",
      ]);
    } finally {
      holder.cancel();
      server.port.close();
      await server.sawt.stop("SIGKILL");
    }
  });
});
