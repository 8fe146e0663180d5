/**
 * 503 while engines are not wired: the real HTTP app, bound on a real port, before startEngines
 * ever ran (ctx.tts / ctx.asr unset) — the state a just-started server is in. Validation still
 * answers first: a bad request is the client's problem whatever the engine's state.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Detail } from "../../src/errors/taxonomy.ts";
import {
  call,
  expectRateHeaders,
  expectStandard,
  leftoverUploads,
  postJson,
  startUnwired,
  uploadForm,
  type UnwiredApp,
} from "./support.ts";

let app: UnwiredApp;
let key: string;

beforeAll(() => {
  app = startUnwired();
  key = app.ctx.keys.create({ name: "gate", rpm: 1000 }).key;
});
afterAll(() => app.stop());

describe("engine gate", () => {
  for (const route of ["/v1/tts/audio/speech", "/v1/audio/speech", "/synthesize"]) {
    test(`does answer 503 TTS engine not initialized on ${route} before engines are wired`, async () => {
      const reply = await postJson(
        app.baseUrl + route,
        { input: "مرحبا بكم", text: "مرحبا بكم" },
        { "X-API-Key": key },
      );
      expectStandard(reply, 503, Detail.ttsNotReady);
      expect(Number(reply.header("retry-after"))).toBeGreaterThan(0);
      expectRateHeaders(reply, 1000);
    });
  }

  for (const route of [
    "/v1/asr/audio/transcriptions",
    "/v1/asr/transcribe",
    "/v1/audio/transcriptions",
    "/transcribe",
  ]) {
    test(`does answer 503 ASR engine not initialized on ${route} and delete the upload`, async () => {
      const reply = await call(app.baseUrl + route, {
        method: "POST",
        headers: { "X-API-Key": key },
        body: uploadForm({ name: "call.wav", data: "RIFF" }),
      });
      expectStandard(reply, 503, Detail.asrNotReady);
      expect(Number(reply.header("retry-after"))).toBeGreaterThan(0);
      expectRateHeaders(reply, 1000);
      expect(leftoverUploads(app.ctx.config.paths.data_dir)).toEqual([]);
    });
  }

  test("does still answer 400 for a bad request while the engine is not ready", async () => {
    expectStandard(
      await postJson(app.baseUrl + "/v1/tts/audio/speech", { input: "" }, { "X-API-Key": key }),
      400,
      Detail.textEmpty,
    );
  });

  test("does answer 503 with its own detail once the engine is draining", async () => {
    // An engine that is draining (shutdown began) refuses new work with its own detail.
    app.ctx.engines.tts.drain("shutting down");
    const reply = await postJson(app.baseUrl + "/v1/tts/audio/speech", { input: "مرحبا" }, { "X-API-Key": key });
    expectStandard(reply, 503, "TTS engine is shutting down");
  });
});
