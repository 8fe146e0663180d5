/**
 * Start-up overlaps engine loading with binding the ports (issue #19), yet readiness stays
 * honest: an engine that finishes loading first waits for every port before it turns ready, and
 * when a port cannot bind the loaded engine is released, never served.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { createAppContext } from "../../src/app/context.ts";
import { startEngines } from "../../src/app/engines.ts";
import { startServer } from "../../src/app/server.ts";
import type { AsrService } from "../../src/asr/types.ts";
import { loadConfig } from "../../src/config/config.ts";
import type { EngineLoader } from "../../src/core/engines.ts";
import { setLogSink } from "../../src/log/logger.ts";
import { closeDatabase } from "../../src/store/database.ts";
import type { TtsService } from "../../src/tts/types.ts";
import { tempDir } from "../support/sawt.ts";

/** Loaders that load at once and record what happened to what they loaded. */
function instantLoaders() {
  const events: string[] = [];
  const tts: EngineLoader<"tts"> = {
    engine: "tts",
    load: async () => {
      events.push("tts loaded");
      return { service: {} as TtsService, close: async () => void events.push("tts closed") };
    },
  };
  const asr: EngineLoader<"asr"> = {
    engine: "asr",
    load: async () => ({ service: {} as AsrService, close: async () => void events.push("asr closed") }),
  };
  return { events, loaders: [tts, asr] };
}

function testConfig(dir: string, env: Record<string, string> = {}) {
  return loadConfig({
    env: {
      SAWT_HTTP_PORT: "0",
      SAWT_GRPC_ASR_PORT: "0",
      SAWT_GRPC_TTS_PORT: "0",
      SAWT_DATA_DIR: join(dir, "data"),
      ...env,
    },
    cwd: dir,
  });
}

let restoreLogs: Parameters<typeof setLogSink>[0];
beforeAll(() => void (restoreLogs = setLogSink(() => undefined)));
afterAll(() => void setLogSink(restoreLogs));

describe("start-up order", () => {
  test("does keep a loaded engine initializing until every port is bound", async () => {
    const dir = tempDir("sawt-order-");
    const ctx = createAppContext(testConfig(dir.path));
    const { events, loaders } = instantLoaders();
    const doors = Promise.withResolvers<void>();
    const engines = startEngines(ctx, loaders, doors.promise);
    try {
      while (!events.includes("tts loaded")) await Bun.sleep(5);
      await Bun.sleep(20);
      expect([ctx.engines.tts.state, ctx.engines.asr.state]).toEqual(["initializing", "initializing"]);
      doors.resolve();
      await engines.settled;
      expect([ctx.engines.tts.state, ctx.engines.asr.state]).toEqual(["ready", "ready"]);
    } finally {
      await engines.close();
      closeDatabase(ctx.db);
      dir.remove();
    }
  });

  test("does release loaded engines and never turn ready when a port cannot bind", async () => {
    const dir = tempDir("sawt-order-");
    const taken: Server = createServer();
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
    const port = (taken.address() as { port: number }).port;
    const { events, loaders } = instantLoaders();
    try {
      const config = testConfig(dir.path, { SAWT_GRPC_TTS_PORT: String(port) });
      await expect(startServer(config, { engineLoaders: loaders })).rejects.toThrow();
      expect(events).toContain("tts closed");
      expect(events).toContain("asr closed");
    } finally {
      taken.close();
      dir.remove();
    }
  });
});
