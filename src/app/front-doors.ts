/**
 * The front doors of a running service: the HTTP app (REST, WebSocket, docs) on its port and the
 * gRPC servers on theirs. ./server.ts imports this module only once the engines have started
 * loading, so the doors' code (every route, Elysia, grpc-js: most of the modules a start loads)
 * is loaded and evaluated while the engines' worker threads initialise espeak-ng and open
 * sessions (issue #19).
 */
import type { Server } from "bun";
import type { AppContext } from "../core/context.ts";
import { grpcRegistrars } from "../grpc/registrars.ts";
import { startGrpcServer, stopGrpcServer, type BoundGrpcServer, type GrpcRegistrar } from "../grpc/server.ts";
import { createHttpApp, httpListenOptions, type FeaturePlugin, type RequestObserver } from "./http-app.ts";
import { httpPlugins } from "./http-plugins.ts";
import { recentErrorObserver } from "./recent-errors.ts";

export { stopGrpcServer } from "../grpc/server.ts";
export { settleRequestLogs } from "./http-app.ts";

/** The bound doors. */
export interface OpenDoors {
  readonly http: Server<unknown>;
  readonly asr: BoundGrpcServer;
  readonly tts: BoundGrpcServer;
}

/**
 * Binds the HTTP port, then both gRPC ports at once (defaults: this build's plugins and
 * registrars). If any port fails, those already bound are closed before the error leaves.
 */
export async function openDoors(
  ctx: AppContext,
  options: { httpPlugins?: readonly FeaturePlugin[]; grpcRegistrars?: readonly GrpcRegistrar[] },
): Promise<OpenDoors> {
  const { config } = ctx;
  const recordError = recentErrorObserver(ctx);
  const observe: RequestObserver = (request) => {
    ctx.metrics.observeRequest(request);
    recordError(request);
  };
  const app = createHttpApp(ctx, options.httpPlugins ?? httpPlugins, observe);
  app.listen(httpListenOptions(config));
  const http = app.server as Server<unknown>;
  const registrars = options.grpcRegistrars ?? grpcRegistrars;
  const [asr, tts] = await Promise.allSettled([
    startGrpcServer(ctx, "asr", config.server.grpc_asr_port, registrars),
    startGrpcServer(ctx, "tts", config.server.grpc_tts_port, registrars),
  ] as const);
  if (asr.status === "fulfilled" && tts.status === "fulfilled") return { http, asr: asr.value, tts: tts.value };
  if (asr.status === "fulfilled") await stopGrpcServer(asr.value, 0);
  if (tts.status === "fulfilled") await stopGrpcServer(tts.value, 0);
  await http.stop(true);
  throw asr.status === "rejected" ? asr.reason : (tts as PromiseRejectedResult).reason;
}
