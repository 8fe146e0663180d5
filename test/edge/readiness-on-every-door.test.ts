/**
 * Acceptance: one readiness gate. An engine whose loader fails (and later one that drains) is
 * refused with the same status, detail and Retry-After on REST, on the TTS WebSocket and on gRPC,
 * because all three go through src/edge/readiness.ts.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import * as grpc from "@grpc/grpc-js";
import type { AnyEngineLoader } from "../../src/core/engines.ts";
import { Detail } from "../../src/errors/taxonomy.ts";
import { bearer, clients, unary } from "../grpc/client.ts";
import { startInProcess, type InProcessSawt } from "../support/in-process.ts";

/** Loaders that fail as an engine without a usable pack does. */
const failing: AnyEngineLoader[] = [
  { engine: "tts", load: () => Promise.reject(new Error("no TTS pack can load")) },
  { engine: "asr", load: () => Promise.reject(new Error("no ASR pack can load")) },
];

/** What a client is told: status, detail, Retry-After. */
interface Refusal {
  readonly status: number | string;
  readonly detail: string;
  readonly retryAfter: string | null;
}

let sawt: InProcessSawt;
let key: string;
let grpcClients: { tts: ReturnType<typeof clients>; asr: ReturnType<typeof clients> };

beforeAll(async () => {
  sawt = await startInProcess({}, { loaders: failing });
  await sawt.server.enginesSettled;
  expect([sawt.server.ctx.engines.tts.state, sawt.server.ctx.engines.asr.state]).toEqual(["failed", "failed"]);
  key = sawt.server.ctx.keys.create({ name: "gate", rpm: 1000 }).key;
  grpcClients = { tts: clients(sawt.server.ports.grpc_tts), asr: clients(sawt.server.ports.grpc_asr) };
});

afterAll(async () => {
  grpcClients.tts.close();
  grpcClients.asr.close();
  await sawt.close();
});

async function overRest(path: string, init: RequestInit): Promise<Refusal> {
  const res = await fetch(sawt.baseUrl + path, {
    ...init,
    method: "POST",
    headers: { ...(init.headers as Record<string, string>), "X-API-Key": key },
  });
  const body = (await res.json()) as { detail: string };
  return { status: res.status, detail: body.detail, retryAfter: res.headers.get("retry-after") };
}

function speechOverRest(): Promise<Refusal> {
  return overRest("/v1/tts/audio/speech", {
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ input: "مرحبا بكم" }),
  });
}

function transcriptionOverRest(): Promise<Refusal> {
  const form = new FormData();
  form.append("file", new Blob([new Uint8Array(64)]), "call.wav");
  return overRest("/v1/asr/audio/transcriptions", { body: form });
}

function speechOverWebSocket(): Promise<Refusal> {
  return new Promise((resolve, reject) => {
    const url = `${sawt.baseUrl.replace("http", "ws")}/v1/tts/ws`;
    const ws = new WebSocket(url, { headers: { "X-API-Key": key } } as unknown as string[]);
    ws.onopen = () => ws.send(JSON.stringify({ input: "مرحبا بكم" }));
    ws.onmessage = (event) => {
      const frame = JSON.parse(String(event.data)) as {
        type: string;
        status: number;
        detail: string;
        retry_after?: number;
      };
      ws.close();
      if (frame.type !== "error") reject(new Error(`expected an error frame, got ${frame.type}`));
      else
        resolve({
          status: frame.status,
          detail: frame.detail,
          retryAfter: frame.retry_after === undefined ? null : String(frame.retry_after),
        });
    };
    ws.onerror = () => reject(new Error("websocket error"));
  });
}

async function overGrpc(client: grpc.Client, method: string, request: unknown): Promise<Refusal> {
  const { error } = await unary(client, method, request, bearer(key));
  return {
    status: error?.code ?? grpc.status.OK,
    detail: error?.details ?? "",
    retryAfter: String(error?.metadata.get("retry-after")[0] ?? null),
  };
}

/** The same refusal on every door, with the REST status read as gRPC's UNAVAILABLE. */
function expectSameRefusal(rest: Refusal, others: readonly Refusal[], grpcRefusal: Refusal, detail: string): void {
  expect(rest).toEqual({ status: 503, detail, retryAfter: "5" });
  for (const other of others) expect(other).toEqual(rest);
  expect(grpcRefusal).toEqual({ status: grpc.status.UNAVAILABLE, detail, retryAfter: rest.retryAfter });
}

describe("one readiness gate", () => {
  test("does refuse TTS the same way on REST, WebSocket and gRPC when the engine failed to load", async () => {
    const grpcRefusal = await overGrpc(grpcClients.tts.tts, "Synthesize", { text: "مرحبا بكم" });
    expectSameRefusal(await speechOverRest(), [await speechOverWebSocket()], grpcRefusal, Detail.ttsNotReady);
  });

  test("does refuse ASR the same way on REST and gRPC when the engine failed to load", async () => {
    const pcm = { config: { encoding: "LINEAR_PCM", sample_rate_hz: 16000 }, audio: Buffer.alloc(3200) };
    const grpcRefusal = await overGrpc(grpcClients.asr.asr, "Recognize", pcm);
    expectSameRefusal(await transcriptionOverRest(), [], grpcRefusal, Detail.asrNotReady);
  });

  test("does refuse the same way on every door once the engine drains", async () => {
    sawt.server.ctx.engines.tts.drain();
    const grpcRefusal = await overGrpc(grpcClients.tts.tts, "Synthesize", { text: "مرحبا بكم" });
    expectSameRefusal(
      await speechOverRest(),
      [await speechOverWebSocket()],
      grpcRefusal,
      "TTS engine is shutting down",
    );
  });
});
