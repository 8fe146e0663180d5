/**
 * Starts and stops a whole Sawt service: context, engines, HTTP and both gRPC ports. Used by
 * `sawt serve` and by tests that need the real thing in-process (they may add plugins and
 * engine loaders of their own through {@link ServerOptions}).
 *
 * Shutdown ({@link RunningServer.stop}), bounded by `server.drain_timeout_ms`:
 *  1. Drain: engines turn `draining` — /health, /ready and engine health answer 503, gRPC health
 *     NOT_SERVING, and new speech requests get 503 (the edge readiness gate, src/edge/readiness.ts) — while the ports
 *     stay open, so monitoring sees the drain. Work already admitted or queued runs to the end,
 *     and so do requests that were already in flight (an upload still streaming in) and
 *     cloned-voice training jobs.
 *  2. Close: calls still open are hung up first (their peers get the door's hangup, their
 *     application sockets `call.ended`), as chan_websocket and the call API's sockets travel on
 *     the HTTP port. Then the HTTP port stops listening (new connections are refused); Bun's
 *     `server.stop(false)` resolves once in-flight responses are sent (idle keep-alive
 *     connections do not hold it). gRPC shuts down the same way. What is still running at the
 *     deadline is cut (`stop(true)`, gRPC forceShutdown). MRCP sessions get their BYE; the
 *     calls' end-of-call webhooks get what is left of the deadline, at least
 *     {@link CALL_WEBHOOK_GRACE_MS}, to be delivered (the rest stay queued in calls.db).
 *  3. The last request log lines are written, the jobs worker is stopped (its files go back to
 *     the queue) and jobs.db closed, engines release their sessions and worker threads, SQLite
 *     checkpoints its WAL and closes.
 */
import type { Server } from "bun";
import type { SawtConfig } from "../config/config.ts";
import type { AnyEngineLoader } from "../core/engines.ts";
import type { BoundGrpcServer, GrpcRegistrar } from "../grpc/server.ts";
import { closeDatabase } from "../store/database.ts";
import { createAppContext, type AppContext } from "./context.ts";
import "./families.ts";
import { engineLoaders } from "./engine-loaders.ts";
import { stopJobs } from "./jobs.ts";
import { endCalls, openCalls, stopCalls } from "./calls.ts";
import type { EngineReload } from "../core/engines.ts";
import { startEngines, type RunningEngines } from "./engines.ts";
import type { FeaturePlugin } from "./http-app.ts";

type FrontDoors = typeof import("./front-doors.ts");
type MrcpDoor = NonNullable<Awaited<ReturnType<FrontDoors["openDoors"]>>["mrcp"]>;
type AudioSocketDoor = NonNullable<Awaited<ReturnType<FrontDoors["openDoors"]>>["audiosocket"]>;

/**
 * How long the end-of-call webhooks of calls hung up at the drain deadline may take past it: one
 * attempt on a receiver that answers (a refused connection fails at once; the delivery is retried
 * after the next start).
 */
const CALL_WEBHOOK_GRACE_MS = 2000;

/** A running service. */
export interface RunningServer {
  readonly ctx: AppContext;
  readonly ports: {
    readonly http: number;
    readonly grpc_asr: number;
    readonly grpc_tts: number;
    /** The MRCPv2 door's SIP port, when `mrcp.enabled`. */
    readonly sip?: number;
    /** The AudioSocket door's port, when `calls.enabled`. */
    readonly audiosocket?: number;
    /** The MRCPv2 door's control (TCP) port, when `mrcp.enabled`. */
    readonly mrcp?: number;
  };
  /** The MRCPv2 door's ports and open sessions, when `mrcp.enabled`. */
  readonly mrcp?: { readonly sipPort: number; readonly mrcpPort: number; readonly sessions: number };
  /** Settles when every engine is ready or failed. */
  readonly enginesSettled: Promise<void>;
  /** Reloads the model packs without a restart (SIGHUP, the admin route): see ./engines.ts. */
  reload(cause: string): Promise<EngineReload[]>;
  /** Drains work (up to the configured deadline), closes ports, engines and the database. */
  stop(): Promise<void>;
}

/** What a service is built from; defaults are this build's registered features. */
export interface ServerOptions {
  readonly httpPlugins?: readonly FeaturePlugin[];
  readonly engineLoaders?: readonly AnyEngineLoader[];
  readonly grpcRegistrars?: readonly GrpcRegistrar[];
}

/**
 * Starts the service; resolves once every port is bound (engines may still be initializing).
 * Engines start loading first, so the device probe, worker threads and sessions make progress
 * while the front doors' modules load and their ports bind; an engine turns ready only once
 * every port is bound.
 */
export async function startServer(config: SawtConfig, options: ServerOptions = {}): Promise<RunningServer> {
  const ctx = createAppContext(config);
  const doorsOpen = Promise.withResolvers<void>();
  const engines = startEngines(ctx, options.engineLoaders ?? engineLoaders, doorsOpen.promise);
  let front: FrontDoors;
  let doors: Awaited<ReturnType<FrontDoors["openDoors"]>>;
  try {
    front = await import("./front-doors.ts");
    doors = await front.openDoors(ctx, options);
  } catch (error) {
    doorsOpen.reject(error);
    await engines.close(2000);
    closeDatabase(ctx.db);
    throw error;
  }
  doorsOpen.resolve();
  const { http, asr, tts, mrcp, audiosocket } = doors;
  let stopping: Promise<void> | undefined;
  return {
    ctx,
    ports: {
      http: http.port!,
      grpc_asr: asr.port,
      grpc_tts: tts.port,
      ...(mrcp ? { sip: mrcp.sipPort, mrcp: mrcp.mrcpPort } : {}),
      ...(audiosocket ? { audiosocket: audiosocket.port } : {}),
    },
    mrcp,
    enginesSettled: engines.settled,
    reload: (cause) => engines.reload(cause),
    stop: () => (stopping ??= shutdown(ctx, front, http, [asr, tts], engines, mrcp, audiosocket)),
  };
}

function busy(ctx: AppContext, http: Server<unknown>, mrcp: MrcpDoor | undefined): boolean {
  const work = [ctx.admission.tts.stats, ctx.admission.asr.stats];
  // Open MRCP sessions and Asterisk calls are calls in progress: a drained box lets them finish
  // (docs/mrcp.md, docs/asterisk.md).
  return (
    http.pendingRequests > 0 ||
    (mrcp?.sessions ?? 0) > 0 ||
    openCalls(ctx) > 0 ||
    work.some((s) => s.running > 0 || s.queued > 0)
  );
}

async function shutdown(
  ctx: AppContext,
  front: FrontDoors,
  http: Server<unknown>,
  grpcServers: readonly BoundGrpcServer[],
  engines: RunningEngines,
  mrcp: MrcpDoor | undefined,
  audiosocket: AudioSocketDoor | undefined,
): Promise<void> {
  const deadline = performance.now() + ctx.config.server.drain_timeout_ms;
  const left = () => Math.max(0, deadline - performance.now());
  ctx.shuttingDown = true;
  ctx.engines.tts.drain();
  ctx.engines.asr.drain();
  void ctx.admission.tts.drain();
  void ctx.admission.asr.drain();
  let voicesIdle = false;
  void ctx.voices.idle().then(() => (voicesIdle = true));
  const { tts, asr } = { tts: ctx.admission.tts.stats, asr: ctx.admission.asr.stats };
  ctx.log.info("draining", {
    in_flight_http: http.pendingRequests,
    tts_running: tts.running,
    tts_queued: tts.queued,
    asr_running: asr.running,
    asr_queued: asr.queued,
    deadline_ms: ctx.config.server.drain_timeout_ms,
  });

  // Phase 1: ports open, new work refused by the draining engines, admitted work finishes.
  while ((busy(ctx, http, mrcp) || !voicesIdle) && left() > 0) await Bun.sleep(20);

  // Phase 2: calls still open at the deadline are hung up while the HTTP port is up: closing it
  // would cut chan_websocket calls and the application sockets without HANGUP or call.ended (the
  // calls then stored as hung up by the peer).
  // Their end-of-call webhooks are sent now too, while nothing is closed (a receiver down or slow
  // keeps them queued for the next start, never the shutdown).
  await endCalls(ctx, Math.max(CALL_WEBHOOK_GRACE_MS, left()));
  // Close the ports; responses still being written get what is left of the deadline.
  const httpClosed = http.stop(false).then(() => true);
  const closedInTime = await Promise.race([httpClosed, Bun.sleep(left()).then(() => false)]);
  if (!closedInTime) {
    ctx.log.warn("drain deadline passed, closing remaining connections", { in_flight_http: http.pendingRequests });
    await http.stop(true);
  }
  // gRPC health watchers are long-lived streams: give them a moment to see NOT_SERVING, then cut.
  await Promise.all(grpcServers.map((server) => front.stopGrpcServer(server, Math.max(500, left()))));
  // Sessions still open at the deadline get a BYE; the SIP, MRCP and RTP ports close.
  await mrcp?.close();
  // The webhook sender stops (what is still in flight stays queued); the AudioSocket port and
  // calls.db close.
  await stopCalls(ctx, audiosocket, 0);

  // Phase 3: release engines (loads still running get a short grace) and close the store.
  await front.settleRequestLogs();
  await stopJobs(ctx, Math.min(2000, left()));
  await engines.close(Math.min(2000, left()));
  closeDatabase(ctx.db);
}
