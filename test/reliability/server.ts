/**
 * The server the reliability suite attacks: the real `sawt serve` child process with the test
 * packs (a tone Piper voice named yara, a tone CTC recogniser), one key, gRPC stubs, the app's
 * route table (read from the same plugin list the server mounts, so new routes are covered), test
 * audio, and the strings no reply or log line may contain.
 */
import { join } from "node:path";
import { createAppContext } from "../../src/app/context.ts";
import { createHttpApp } from "../../src/app/http-app.ts";
import { httpPlugins } from "../../src/app/http-plugins.ts";
import { encodeWav, floatToInt16, int16ToBytes } from "../../src/audio/wav.ts";
import { loadConfig } from "../../src/config/config.ts";
import { closeDatabase } from "../../src/store/database.ts";
import { clients, installTestPacks, waitPortsServing } from "../grpc/client.ts";
import { letterToneAudio } from "../support/models/ctc.ts";
import { ROOT, startSawt, tempDir, type SawtProcess, type StartOptions } from "../support/sawt.ts";
import type { Secrets } from "./fuzz/contract.ts";
import type { RouteSpec } from "./fuzz/rest.ts";
import { keySecret } from "./support.ts";

/** A started target. */
export interface Target {
  readonly sawt: SawtProcess;
  readonly key: string;
  readonly routes: readonly RouteSpec[];
  readonly grpc: ReturnType<typeof clients>;
  readonly wav: Uint8Array;
  readonly pcm: Uint8Array;
  readonly secrets: Secrets;
  readonly modelsDir: string;
  close(): Promise<void>;
}

/** The app's routes as `app.routes` lists them (WebSocket routes under method `WS`). */
export function routeTable(): RouteSpec[] {
  const dir = tempDir("sawt-routes-");
  const ctx = createAppContext(loadConfig({ env: { SAWT_DATA_DIR: dir.path } }));
  try {
    return createHttpApp(ctx, httpPlugins).routes.map((r) => ({ method: r.method, path: r.path }));
  } finally {
    closeDatabase(ctx.db);
    dir.remove();
  }
}

/** Starts the server with the test packs and `env` settings. */
export async function startTarget(env: Record<string, string> = {}, options: StartOptions = {}): Promise<Target> {
  const models = tempDir("sawt-rel-models-");
  await installTestPacks(models.path, { voice: true });
  const sawt = await startSawt({ ...options, env: { SAWT_MODELS_DIR: models.path, ...env } });
  const created = await sawt.createKey({ name: "reliability", rpm: 1_000_000 });
  await waitPortsServing(sawt.ports);
  const grpc = clients(sawt.ports.grpc_tts);
  const asrGrpc = clients(sawt.ports.grpc_asr);
  const speech = letterToneAudio("مرحبا", 16000);
  const pcm = int16ToBytes(floatToInt16(speech));
  return {
    sawt,
    key: created.key,
    routes: routeTable(),
    grpc: { ...grpc, asr: asrGrpc.asr },
    wav: encodeWav(speech, 16000),
    pcm,
    modelsDir: models.path,
    secrets: { needles: [created.key, keySecret(created.key), sawt.dataDir, models.path, ROOT, "node_modules"] },
    async close() {
      grpc.close();
      asrGrpc.close();
      await sawt.stop();
      models.remove();
    },
  };
}

/** The test's figures go to `$SAWT_RELIABILITY_OUT/<name>.json` when set (`bun run reliability`). */
export async function recordFigures(name: string, figures: unknown): Promise<void> {
  const dir = process.env.SAWT_RELIABILITY_OUT;
  if (dir) await Bun.write(join(dir, `${name}.json`), JSON.stringify(figures, null, 2));
}
