/**
 * The front doors of a running service: the HTTP app (REST, WebSocket, docs) on its port, the
 * gRPC servers on theirs, the MRCPv2 door (SIP, MRCP and RTP ports) and the AudioSocket door when
 * enabled. ./server.ts imports this module only once the engines have started
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
import { recentErrorObserver } from "../admin/recent-errors.ts";
import { mrcpResources } from "./mrcp-resources.ts";
import { startMrcpServer, type MrcpServer } from "../mrcp/server.ts";
import type { AudioSocketServer } from "../calls/audiosocket/server.ts";
import { startCallDoors, stopCalls } from "./calls.ts";

export { stopGrpcServer } from "../grpc/server.ts";
export { settleRequestLogs } from "./http-app.ts";

/** The bound doors. */
export interface OpenDoors {
  readonly http: Server<unknown>;
  readonly asr: BoundGrpcServer;
  readonly tts: BoundGrpcServer;
  /** The MRCPv2 door, when `mrcp.enabled`. */
  readonly mrcp: MrcpServer | undefined;
  /** The AudioSocket door, when `calls.enabled` (chan_websocket and the call API are HTTP routes). */
  readonly audiosocket: AudioSocketServer | undefined;
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
  const mrcp = config.mrcp.enabled
    ? await startMrcpServer(ctx, mrcpResources).then(
        (server) => ({ status: "fulfilled" as const, value: server }),
        (reason: unknown) => ({ status: "rejected" as const, reason }),
      )
    : { status: "fulfilled" as const, value: undefined };
  const audiosocket = await startCallDoors(ctx).then(
    (server) => ({ status: "fulfilled" as const, value: server }),
    (reason: unknown) => ({ status: "rejected" as const, reason }),
  );
  if (
    asr.status === "fulfilled" &&
    tts.status === "fulfilled" &&
    mrcp.status === "fulfilled" &&
    audiosocket.status === "fulfilled"
  )
    return { http, asr: asr.value, tts: tts.value, mrcp: mrcp.value, audiosocket: audiosocket.value };
  await stopCalls(ctx, audiosocket.status === "fulfilled" ? audiosocket.value : undefined, 0);
  if (mrcp.status === "fulfilled") await mrcp.value?.close();
  if (asr.status === "fulfilled") await stopGrpcServer(asr.value, 0);
  if (tts.status === "fulfilled") await stopGrpcServer(tts.value, 0);
  await http.stop(true);
  throw asr.status === "rejected"
    ? asr.reason
    : tts.status === "rejected"
      ? tts.reason
      : mrcp.status === "rejected"
        ? mrcp.reason
        : (audiosocket as { reason: unknown }).reason;
}
