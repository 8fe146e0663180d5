/**
 * One speech schema and one streaming start-up behind every door (issue #11, acceptance 2 and 3):
 * the same bad field is reported in each door's own terms, and a synthesis that yields no audio is
 * the same error on the WebSocket and on gRPC SynthesizeOnline.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { bearer, clients, collect, unary, waitPortsServing } from "../grpc/client.ts";
import { startSawt, waitForStatus, type SawtProcess } from "../support/sawt.ts";

let sawt: SawtProcess;
let grpcClients: ReturnType<typeof clients>;
let key: string;
/** Only tatweel: a valid, non-empty text in which no sentence has anything to speak. */
const NOTHING_TO_SAY = "ـــ";

/** Sends one message on the TTS WebSocket and collects text frames until an end or error frame. */
function overWebSocket(body: Record<string, unknown>): Promise<Array<Record<string, unknown>>> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`${sawt.baseUrl.replace("http", "ws")}/v1/tts/ws`, {
      headers: { "X-API-Key": key },
    } as unknown as string[]);
    const frames: Array<Record<string, unknown>> = [];
    ws.onopen = () => ws.send(JSON.stringify(body));
    ws.onmessage = (event) => {
      if (typeof event.data !== "string") return;
      const frame = JSON.parse(event.data) as Record<string, unknown>;
      frames.push(frame);
      if (frame.type === "end" || frame.type === "error") {
        ws.close();
        resolve(frames);
      }
    };
    ws.onerror = () => reject(new Error("websocket error"));
  });
}

beforeAll(async () => {
  sawt = await startSawt();
  await waitForStatus(`${sawt.baseUrl}/v1/tts/health`);
  await waitPortsServing(sawt.ports, ["tts"]);
  grpcClients = clients(sawt.ports.grpc_tts);
  key = (await sawt.createKey({ name: "doors", rpm: 1000 })).key;
});

afterAll(async () => {
  grpcClients.close();
  await sawt.stop("SIGKILL");
});

describe("speech validation across doors", () => {
  test("does name the field body.sample_rate over REST when the rate is out of range", async () => {
    const response = await fetch(`${sawt.baseUrl}/v1/tts/audio/speech`, {
      method: "POST",
      headers: { "x-api-key": key, "content-type": "application/json" },
      body: JSON.stringify({ input: "مرحبا", sample_rate: 4000 }),
    });
    expect(response.status).toBe(422);
    const body = (await response.json()) as { errors: Array<{ field: string; message: string }> };
    expect(body.errors).toEqual([{ field: "body.sample_rate", message: "Must be at least 8000" }]);
  });

  test("does name the proto field sample_rate_hz over gRPC when the rate is out of range", async () => {
    const outcome = await unary(grpcClients.tts, "Synthesize", { text: "مرحبا", sample_rate_hz: 4000 }, bearer(key));
    expect(outcome.error?.code).toBe(3);
    expect(outcome.error?.details).toBe("Request validation failed: sample_rate_hz: Must be at least 8000");
  });

  test("does carry no REST location over gRPC when the rate is too high", async () => {
    const outcome = await unary(
      grpcClients.tts,
      "Synthesize",
      { text: "مرحبا", speed: Number.NaN, sample_rate_hz: 48001 },
      bearer(key),
    );
    expect(outcome.error?.details).toContain("sample_rate_hz: Must be at most 48000");
    expect(outcome.error?.details).not.toContain("body.");
  });

  test("does name the message field sample_rate over the WebSocket when the rate is out of range", async () => {
    const frames = await overWebSocket({ input: "مرحبا", sample_rate: 4000 });
    expect(frames).toEqual([
      {
        type: "error",
        status: 422,
        error: "validation_error",
        detail: "Request validation failed",
        errors: [{ field: "sample_rate", message: "Must be at least 8000" }],
      },
    ]);
  });
});

describe("streaming start-up shared by WebSocket and gRPC", () => {
  test("does give the same error on both when a synthesis yields no audio", async () => {
    const frames = await overWebSocket({ input: NOTHING_TO_SAY });
    expect(frames).toEqual([
      {
        type: "error",
        status: 500,
        error: "internal_error",
        detail: "Synthesis produced no audio",
        code: "INTERNAL_ERROR",
      },
    ]);
    const online = await collect(grpcClients.tts.SynthesizeOnline({ text: NOTHING_TO_SAY }, bearer(key)));
    expect(online.messages).toHaveLength(0);
    expect(online.error?.code).toBe(13);
    expect(online.error?.details).toBe("Synthesis produced no audio");
  });

  test("does report the same voice, rate and content type on both when audio is produced", async () => {
    const frames = await overWebSocket({ input: "مرحبا بكم", response_format: "opus", dialect: "ar-egyptian" });
    const online = await collect(
      grpcClients.tts.SynthesizeOnline(
        { text: "مرحبا بكم", response_format: "opus", dialect: "ar-egyptian" },
        bearer(key),
      ),
    );
    expect(online.error).toBeUndefined();
    const start = frames[0]!;
    const first = online.messages[0];
    expect([first.resolution.voice, first.resolution.dialect, first.resolution.engine]).toEqual([
      start.voice,
      start.dialect,
      start.engine,
    ]);
    expect([first.content_type, first.sample_rate_hz]).toEqual([start.content_type, start.sample_rate]);
  });
});
