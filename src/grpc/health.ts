/**
 * The standard gRPC health protocol (grpc.health.v1) on both ports, read from the engine states
 * (D15): SERVING while the port's engine is ready, NOT_SERVING while it initializes, failed or
 * drains for shutdown. Known names per port: "" (the whole port) and the port's speech service.
 * Check on an unknown name fails NOT_FOUND; Watch answers SERVICE_UNKNOWN and stays open, as the
 * protocol asks. Open to everyone: no key needed.
 */
import * as grpc from "@grpc/grpc-js";
import type { AppContext } from "../core/context.ts";
import type { EngineState } from "../serving/engine-state.ts";
import { SERVICE } from "./proto-files.ts";
import { grpcService } from "./services.ts";
import type { GrpcRegistrar } from "./server.ts";

/** ServingStatus names of the protocol. */
export type ServingStatus = "SERVING" | "NOT_SERVING" | "SERVICE_UNKNOWN";

interface HealthRequest {
  service: string;
}

interface HealthResponse {
  status: ServingStatus;
}

/** The serving status of an engine right now. */
export function servingStatus(ctx: AppContext, engine: EngineState): ServingStatus {
  return engine.isReady() && !ctx.shuttingDown ? "SERVING" : "NOT_SERVING";
}

/** Registers grpc.health.v1.Health for one port. Returns the shutdown hook that ends Watch streams. */
export const registerHealth: GrpcRegistrar = (server, ctx, which) => {
  const engine = ctx.engines[which];
  const names = new Set(["", which === "tts" ? SERVICE.tts : SERVICE.asr]);
  const statusOf = (name: string): ServingStatus => (names.has(name) ? servingStatus(ctx, engine) : "SERVICE_UNKNOWN");
  const watchers = new Set<grpc.ServerWritableStream<HealthRequest, HealthResponse>>();

  const check: grpc.handleUnaryCall<HealthRequest, HealthResponse> = (call, callback) => {
    const status = statusOf(call.request.service);
    if (status === "SERVICE_UNKNOWN") callback({ code: grpc.status.NOT_FOUND, details: "unknown service" });
    else callback(null, { status });
  };

  const list: grpc.handleUnaryCall<unknown, { statuses: Record<string, HealthResponse> }> = (_call, callback) => {
    callback(null, { statuses: Object.fromEntries([...names].map((name) => [name, { status: statusOf(name) }])) });
  };

  const watch: grpc.handleServerStreamingCall<HealthRequest, HealthResponse> = (call) => {
    const name = call.request.service;
    let last: ServingStatus = statusOf(name);
    call.write({ status: last });
    if (!names.has(name)) {
      // Names never become known later on a running port; keep the call open as the protocol says.
      watchers.add(call);
      call.once("cancelled", () => watchers.delete(call));
      return;
    }
    const unsubscribe = engine.onChange(() => {
      const next = statusOf(name);
      if (next === last) return;
      last = next;
      call.write({ status: next });
    });
    watchers.add(call);
    const close = () => {
      unsubscribe();
      watchers.delete(call);
    };
    call.once("cancelled", close);
    call.once("finish", close);
  };

  server.addService(grpcService("health"), { Check: check, List: list, Watch: watch });
  return () => {
    // Shutdown: every watcher has seen NOT_SERVING by now (engines drain first); end the streams
    // so the port can close without waiting out its grace period.
    for (const call of [...watchers]) {
      watchers.delete(call);
      if (!call.cancelled) call.end();
    }
  };
};
