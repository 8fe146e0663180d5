/**
 * Starts and stops a whole Sawt service: context, engines, HTTP and both gRPC ports. Used by
 * `sawt serve` and by tests that need the real thing in-process.
 */
import type { SawtConfig } from "../config/config.ts";
import { grpcRegistrars } from "../grpc/registrars.ts";
import { startGrpcServer, stopGrpcServer, type BoundGrpcServer } from "../grpc/server.ts";
import { createHttpApp, settleRequestLogs, httpListenOptions } from "../http/app.ts";
import { httpPlugins } from "../http/plugins.ts";
import { closeDatabase } from "../store/database.ts";
import { createAppContext, type AppContext } from "./context.ts";
import { startEngines, stopEngines } from "./engines.ts";

/** A running service. */
export interface RunningServer {
  readonly ctx: AppContext;
  readonly ports: { readonly http: number; readonly grpc_asr: number; readonly grpc_tts: number };
  /** Drains work (up to the configured deadline), closes ports and the database. */
  stop(): Promise<void>;
}

/** Starts the service; resolves once every port is bound (engines may still be initializing). */
export async function startServer(config: SawtConfig): Promise<RunningServer> {
  const ctx = createAppContext(config);
  const app = createHttpApp(ctx, httpPlugins);
  app.listen(httpListenOptions(config));
  const httpPort = app.server!.port!;
  let asr: BoundGrpcServer;
  let tts: BoundGrpcServer;
  try {
    asr = await startGrpcServer(ctx, "asr", config.server.grpc_asr_port, grpcRegistrars);
    tts = await startGrpcServer(ctx, "tts", config.server.grpc_tts_port, grpcRegistrars);
  } catch (error) {
    await app.stop(true);
    closeDatabase(ctx.db);
    throw error;
  }
  const engines = startEngines(ctx);
  let stopping: Promise<void> | undefined;
  return {
    ctx,
    ports: { http: httpPort, grpc_asr: asr.port, grpc_tts: tts.port },
    stop: () =>
      (stopping ??= (async () => {
        ctx.shuttingDown = true;
        ctx.engines.tts.set("draining", "shutting down");
        ctx.engines.asr.set("draining", "shutting down");
        const deadline = new Promise<void>((resolve) => setTimeout(resolve, config.server.drain_timeout_ms));
        await Promise.race([Promise.all([ctx.admission.tts.drain(), ctx.admission.asr.drain(), ctx.voices.idle()]), deadline]);
        await Promise.all([app.stop(false), stopGrpcServer(asr, 2000), stopGrpcServer(tts, 2000)]);
        await settleRequestLogs();
        await engines.catch(() => undefined);
        await stopEngines(ctx);
        closeDatabase(ctx.db);
      })()),
  };
}
