/**
 * Engine start-up through EngineLoaders with real packs on disk: a corrupt .onnx fails only its
 * own engine (or only its own pack), and health names the pack and why.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { AsrService } from "../../src/asr/types.ts";
import { EngineLoadError, type BrokenPack, type EngineLoader } from "../../src/core/engines.ts";
import { BrokenPackError, openPackModel } from "../support/pack-model.ts";
import type { Session } from "../../src/onnx/sessions.ts";
import type { TtsService } from "../../src/tts/types.ts";
import { startInProcess } from "../support/in-process.ts";
import { writeToneCtcPack } from "../support/models/ctc.ts";
import { ROOT, startSawt, tempDir, until, waitForStatus } from "../support/sawt.ts";
import { slowModelFile, TEST_THREADS, type SlowModelFile } from "../support/slow-fixture.ts";

const models = tempDir("sawt-packs-");
let model: SlowModelFile;
let corrupt: string;

beforeAll(async () => {
  model = await slowModelFile();
  mkdirSync(join(models.path, "broken-voice"));
  corrupt = join(models.path, "broken-voice", "model.onnx");
  writeFileSync(
    corrupt,
    new Uint8Array(4096).map((_, i) => (i * 131) % 251),
  ); // not a protobuf
}, 60_000);
afterAll(() => models.remove());

/** A TTS loader that opens each given pack, skipping broken ones; fails only when none opens. */
function ttsLoader(packs: Record<string, string>): EngineLoader<"tts"> {
  return {
    engine: "tts",
    async load() {
      const opened: string[] = [];
      const broken: BrokenPack[] = [];
      const sessions: Session[] = [];
      for (const [pack, file] of Object.entries(packs)) {
        try {
          sessions.push((await openPackModel(pack, file)).session);
          opened.push(pack);
        } catch (error) {
          if (!(error instanceof BrokenPackError)) throw error;
          broken.push(error.toBrokenPack());
        }
      }
      if (opened.length === 0) throw new EngineLoadError("no usable TTS model pack", broken);
      return {
        service: {} as TtsService,
        details: { packs: opened },
        brokenPacks: broken,
        close: async () => void (await Promise.all(sessions.map((s) => s.release()))),
      };
    },
  };
}

const asrLoader: EngineLoader<"asr"> = {
  engine: "asr",
  async load() {
    const { session } = await openPackModel("asr-pack", model.path);
    return { service: {} as AsrService, details: { packs: ["asr-pack"] }, close: () => session.release() };
  },
};

describe("engine start-up", () => {
  test("does fail only the engine whose pack is broken and name the pack and why in its health", async () => {
    const sawt = await startInProcess({}, { loaders: [ttsLoader({ "broken-voice": corrupt }), asrLoader] });
    try {
      await sawt.server.enginesSettled;
      const tts = await fetch(`${sawt.baseUrl}/v1/tts/health`);
      expect(tts.status).toBe(503);
      const body = (await tts.json()) as Record<string, unknown>;
      expect(body).toMatchObject({ status: "unavailable", state: "failed", detail: "no usable TTS model pack" });
      expect(body.broken_packs).toEqual([
        { pack: "broken-voice", reason: expect.stringMatching(/^model\.onnx: .*protobuf parsing failed/i) },
      ]);
      expect(JSON.stringify(body)).not.toContain(models.path);

      const asr = await fetch(`${sawt.baseUrl}/v1/asr/health`);
      expect(asr.status).toBe(200);
      expect(await asr.json()).toMatchObject({
        status: "healthy",
        packs: ["asr-pack"],
        broken_packs: [],
        provider: "cpu",
      });
      const failed = sawt.logs
        .map((l) => JSON.parse(l) as Record<string, unknown>)
        .find((l) => l.msg === "engine failed");
      expect(failed).toMatchObject({
        level: "error",
        engine: "tts",
        reason: "no usable TTS model pack",
        broken_packs: expect.stringContaining("broken-voice: model.onnx"),
      });
      const ready = await fetch(`${sawt.baseUrl}/ready`);
      expect(ready.status).toBe(503);
      expect(await ready.json()).toEqual({ status: "not_ready", engines: { tts: "failed", asr: "ready" } });
    } finally {
      await sawt.close();
    }
  }, 60_000);

  test("does serve with the good packs and list the broken one when an engine has both", async () => {
    const sawt = await startInProcess(
      {},
      { loaders: [ttsLoader({ "broken-voice": corrupt, "good-voice": model.path }), asrLoader] },
    );
    try {
      await sawt.server.enginesSettled;
      const tts = await fetch(`${sawt.baseUrl}/v1/tts/health`);
      expect(tts.status).toBe(200);
      expect(await tts.json()).toMatchObject({
        status: "healthy",
        packs: ["good-voice"],
        broken_packs: [{ pack: "broken-voice", reason: expect.stringMatching(/protobuf parsing failed/i) }],
      });
      expect((await fetch(`${sawt.baseUrl}/ready`)).status).toBe(200);
    } finally {
      await sawt.close();
    }
  }, 60_000);

  test("does report a broken pack of a real `sawt serve` in health details and the log while the other engine serves", async () => {
    const data = tempDir("sawt-broken-");
    // The other engine is the real ASR engine, which serves once it has a recogniser pack.
    await writeToneCtcPack(join(data.path, "models", "tone-ctc"));
    const server = await startSawt({
      preload: join(ROOT, "test", "support", "slow-engine-preload.ts"),
      dataDir: data.path,
      env: {
        SAWT_TEST_SLOW_MODEL: corrupt,
        SAWT_RUNTIME_INTRA_OP_THREADS: String(TEST_THREADS),
        SAWT_MODELS_DIR: join(data.path, "models"),
      },
    });
    try {
      const tts = await waitForStatus(`${server.baseUrl}/v1/tts/health`, 503);
      let body = (await tts.json()) as Record<string, unknown>;
      const settled = async () => {
        if (body.state === "initializing")
          body = (await (await fetch(`${server.baseUrl}/v1/tts/health`)).json()) as Record<string, unknown>;
        return body.state !== "initializing";
      };
      await until(settled, "the TTS engine to settle", { everyMs: 25 });
      expect(body).toMatchObject({
        state: "failed",
        broken_packs: [{ pack: "slow", reason: expect.stringMatching(/^model\.onnx: .*protobuf parsing failed/i) }],
      });
      expect((await waitForStatus(`${server.baseUrl}/v1/asr/health`, 200)).status).toBe(200);
      const failed = server.logs
        .map((l) => JSON.parse(l) as Record<string, unknown>)
        .find((l) => l.msg === "engine failed");
      expect(failed).toMatchObject({
        level: "error",
        engine: "tts",
        broken_packs: expect.stringContaining("slow: model.onnx"),
      });
    } finally {
      expect(await server.stop()).toBe(0);
      data.remove();
    }
  }, 60_000);
});
