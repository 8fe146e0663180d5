/**
 * gRPC front doors: ASR on its port, TTS on its port. Services are registered by the gRPC
 * feature modules; this file owns binding and shutdown.
 */
import * as grpc from "@grpc/grpc-js";
import type { AppContext } from "../core/context.ts";

/** A bound gRPC server and its port. */
export interface BoundGrpcServer {
  readonly server: grpc.Server;
  readonly port: number;
  /** Hooks the registrars returned, run when shutdown begins (e.g. ending health Watch streams). */
  readonly shutdownHooks: readonly (() => void)[];
}

/**
 * Registers services on a server (one per port). May return a hook run when the port shuts down,
 * for calls that would otherwise never end (health Watch).
 */
export type GrpcRegistrar = (server: grpc.Server, ctx: AppContext, which: "asr" | "tts") => void | (() => void);

/** Headroom over the upload limit for the fields around the audio of a RecognizeRequest. */
const MESSAGE_OVERHEAD_BYTES = 64 * 1024;

/**
 * Largest message a port accepts: unary ASR takes a whole upload (asr.max_upload_mb, 100 MB by
 * default) in one message; TTS requests are text (51,200 code points ≤ 200 KB). grpc-js refuses
 * a bigger message with RESOURCE_EXHAUSTED from its length prefix, before buffering it.
 */
export function maxReceiveBytes(ctx: AppContext, which: "asr" | "tts"): number {
  return which === "asr" ? ctx.config.asr.max_upload_mb * 1024 * 1024 + MESSAGE_OVERHEAD_BYTES : 4 * 1024 * 1024;
}

/** Creates and binds one gRPC server on host:port (0 = ephemeral). */
export async function startGrpcServer(
  ctx: AppContext,
  which: "asr" | "tts",
  port: number,
  registrars: readonly GrpcRegistrar[],
): Promise<BoundGrpcServer> {
  const server = new grpc.Server({
    "grpc.max_receive_message_length": maxReceiveBytes(ctx, which),
    // The longest input (51,200 code points) as 48 kHz WAV is ~330 MB; clients raise their own
    // receive limit (default 4 MB) for long unary syntheses, or stream.
    "grpc.max_send_message_length": 512 * 1024 * 1024,
  });
  const shutdownHooks: Array<() => void> = [];
  for (const register of registrars) {
    const hook = register(server, ctx, which);
    if (hook) shutdownHooks.push(hook);
  }
  const host = ctx.config.server.host.includes(":") ? `[${ctx.config.server.host}]` : ctx.config.server.host;
  const bound = await new Promise<number>((resolve, reject) =>
    server.bindAsync(`${host}:${port}`, grpc.ServerCredentials.createInsecure(), (error, actual) =>
      error ? reject(error) : resolve(actual),
    ),
  );
  return { server, port: bound, shutdownHooks };
}

/** Stops accepting; in-flight calls finish or are cancelled after `graceMs`. */
export function stopGrpcServer(bound: BoundGrpcServer, graceMs: number): Promise<void> {
  for (const hook of bound.shutdownHooks) hook();
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      bound.server.forceShutdown();
      resolve();
    }, graceMs);
    bound.server.tryShutdown(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}
