/**
 * The real Sawt service started in this process (src/app/server.ts startServer) on ephemeral
 * ports with a private data dir, for tests that need to add a test route or engine loader and
 * look at the context while talking to it over real HTTP.
 */
import { join } from "node:path";
import { engineLoaders } from "../../src/app/engine-loaders.ts";
import type { AnyEngineLoader } from "../../src/core/engines.ts";
import { startServer, type RunningServer, type ServerOptions } from "../../src/app/server.ts";
import { loadConfig } from "../../src/config/config.ts";
import type { FeaturePlugin } from "../../src/app/http-app.ts";
import { httpPlugins } from "../../src/app/http-plugins.ts";
import { setLogSink } from "../../src/log/logger.ts";
import { tempDir, testTool } from "./sawt.ts";
import { TEST_THREADS } from "./slow-fixture.ts";

export { parseMetrics } from "./http-helpers.ts";

/** A started in-process service. */
export interface InProcessSawt {
  readonly server: RunningServer;
  readonly baseUrl: string;
  /** Log lines written while it ran (JSON), captured instead of printed. */
  readonly logs: string[];
  /** Stops the service (drain included), restores logging and removes its data dir. */
  close(): Promise<void>;
}

/**
 * Starts the service with `SAWT_*` settings from `env` (ports 0, private data dir), with the
 * build's plugins plus the test's, and the test's engine loaders in place of the build's for the
 * same engine.
 */
export async function startInProcess(
  env: Record<string, string>,
  extra: { plugins?: readonly FeaturePlugin[]; loaders?: readonly AnyEngineLoader[] } = {},
): Promise<InProcessSawt> {
  const logs: string[] = [];
  const previousSink = setLogSink((line) => logs.push(line));
  const { path: dir, remove } = tempDir("sawt-inproc-");
  const config = loadConfig({
    env: {
      SAWT_HTTP_PORT: "0",
      SAWT_GRPC_ASR_PORT: "0",
      SAWT_GRPC_TTS_PORT: "0",
      SAWT_DATA_DIR: join(dir, "data"),
      SAWT_RUNTIME_INTRA_OP_THREADS: String(TEST_THREADS),
      // As startSawt: the built-in recogniser only when the test asks for it.
      SAWT_ASR_BUILTIN: "false",
      ...env,
    },
    cwd: dir,
  });
  const options: ServerOptions = {
    httpPlugins: [...httpPlugins, ...(extra.plugins ?? [])],
    engineLoaders: [
      ...engineLoaders.filter((l) => !extra.loaders?.some((t) => t.engine === l.engine)),
      ...(extra.loaders ?? []),
    ],
  };
  const server = await startServer(config, options).catch((error: unknown) => {
    setLogSink(previousSink);
    throw error;
  });
  return {
    server,
    baseUrl: `http://127.0.0.1:${server.ports.http}`,
    logs,
    async close() {
      try {
        await server.stop();
      } finally {
        setLogSink(previousSink);
        remove();
      }
    },
  };
}

/** Runs `promtool check metrics` on `text` (throws when promtool is not installed). */
export async function promtoolCheck(text: string): Promise<{ code: number; output: string }> {
  const promtool = testTool("promtool", "prometheus");
  const proc = Bun.spawn([promtool, "check", "metrics"], {
    stdin: new TextEncoder().encode(text),
    stdout: "pipe",
    stderr: "pipe",
  });
  const [out, err, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  return { code, output: out + err };
}
