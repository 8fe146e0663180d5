/**
 * HTTP serving overhead: requests/second of Sawt's real HTTP app (request ids, error mapping,
 * logging, health route) over a bare Bun.serve answering the same JSON, with the same client load.
 */
import { createHttpApp } from "../../src/app/http-app.ts";
import { createAppContext } from "../../src/app/context.ts";
import { loadConfig } from "../../src/config/config.ts";
import { setLogSink } from "../../src/log/logger.ts";
import { tempDir } from "../support/sawt.ts";

const REQUESTS = 4000;
const CONCURRENCY = 32;

async function load(url: string): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next++ < REQUESTS) await (await fetch(url)).arrayBuffer();
    }),
  );
  return REQUESTS / ((performance.now() - started) / 1000);
}

const dir = tempDir("sawt-bench-");
setLogSink(() => {});
const ctx = createAppContext(loadConfig({ env: { SAWT_DATA_DIR: dir.path }, cwd: dir.path }));
ctx.engines.tts.ready();
const app = createHttpApp(ctx).listen({ hostname: "127.0.0.1", port: 0 });
const bare = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  fetch: () => Response.json({ status: "healthy", engine: "tts" }),
});

await load(`http://127.0.0.1:${bare.port}/`); // warm-up both
await load(`http://127.0.0.1:${app.server!.port}/v1/tts/health`);
const bareRps = await load(`http://127.0.0.1:${bare.port}/`);
const sawtRps = await load(`http://127.0.0.1:${app.server!.port}/v1/tts/health`);
await app.stop(true);
bare.stop(true);
dir.remove();

console.log(`## HTTP serving overhead

${REQUESTS} GET requests, ${CONCURRENCY} concurrent, client in the same process; request logs go to a null sink.

| server | requests/s | ratio to bare Bun.serve |
|---|---|---|
| bare \`Bun.serve\` | ${bareRps.toFixed(0)} | 1.00 |
| Sawt (Elysia app, \`/v1/tts/health\`) | ${sawtRps.toFixed(0)} | ${(sawtRps / bareRps).toFixed(2)} |
`);
