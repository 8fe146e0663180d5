/**
 * What every Sawt speech method shares at the gRPC edge: the edge's per-call scope (src/edge:
 * authentication and the per-key rate limit, a request id from the metadata, an AbortSignal that
 * fires when the client cancels or its deadline passes, one log line and metrics per call), plus
 * the gRPC parts: initial metadata, error mapping and backpressure on writes. Method adapters
 * (tts.ts, asr.ts) only translate messages.
 */
import * as grpc from "@grpc/grpc-js";
import type { EventEmitter } from "node:events";
import type { AppContext } from "../core/context.ts";
import type { HeaderGetter } from "../edge/headers.ts";
import { requestIdFrom } from "../edge/request-id.ts";
import { clientCancelled, openScope, type CallScope } from "../edge/scope.ts";
import type { ApiKeyRecord } from "../store/keys.ts";
import { toGrpcError } from "./errors.ts";

export type { CallScope } from "../edge/scope.ts";

/** How long after a stream's end a late client reset still counts it as cancelled. */
const CANCEL_SETTLE_MS = 50;

/** What every kind of server call offers that {@link open} needs. */
type AnyCall = Pick<grpc.ServerUnaryCall<unknown, unknown>, "metadata" | "sendMetadata" | "getDeadline"> &
  Pick<EventEmitter, "once" | "removeListener">;

/** Reads metadata like HTTP headers (first string value of a name). */
export function metadataHeaders(metadata: grpc.Metadata): HeaderGetter {
  return {
    get(name) {
      const value = metadata.get(name)[0];
      return typeof value === "string" ? value : null;
    },
  };
}

/** The gRPC status name of an outcome, as logs and metrics name it. */
function codeName(thrown?: unknown): string {
  return grpc.status[thrown === undefined ? grpc.status.OK : toGrpcError(thrown).code];
}

/** A call's scope and how to let go of its cancel listener. */
interface Opened {
  readonly scope: CallScope;
  release(): void;
}

/** Opens the edge scope of a call and follows the client's cancel. */
function begin(ctx: AppContext, call: AnyCall, method: string): Opened {
  const headers = metadataHeaders(call.metadata);
  const deadline = call.getDeadline();
  const scope = openScope(ctx, {
    event: "grpc",
    method,
    requestId: requestIdFrom(headers),
    deadlineMs: deadline instanceof Date ? deadline.getTime() : deadline,
    observe: (observation) => ctx.metrics.observeGrpcCall(observation),
  });
  const onCancel = () => scope.cancel();
  call.once("cancelled", onCancel);
  return {
    scope,
    release() {
      scope.dispose();
      call.removeListener("cancelled", onCancel);
    },
  };
}

/**
 * Authenticates and sends initial metadata (request id, and rate-limit counters once admitted).
 * `counts` false verifies the key only: the call's work counts itself (a speech stream per context).
 */
function authenticate(call: AnyCall, scope: CallScope, counts = true): void {
  const initial = new grpc.Metadata();
  initial.set("x-request-id", scope.requestId);
  try {
    const headers = metadataHeaders(call.metadata);
    if (!counts) scope.verify(headers);
    else for (const [name, value] of Object.entries(scope.authenticate(headers).rateHeaders)) initial.set(name, value);
  } finally {
    call.sendMetadata(initial);
  }
}

/** The scope a method handler gets: authenticated, so its key is known. */
type AuthedScope = CallScope & { readonly keyId: string; readonly key: ApiKeyRecord };

/** A unary speech method: authenticated, mapped errors. */
export function unaryMethod<Req, Res>(
  ctx: AppContext,
  method: string,
  handler: (request: Req, scope: AuthedScope) => Promise<Res>,
): grpc.handleUnaryCall<Req, Res> {
  return (call, callback) => {
    const opened = begin(ctx, call as AnyCall, method);
    const { scope } = opened;
    (async () => {
      authenticate(call as AnyCall, scope);
      return await handler(call.request, scope as AuthedScope);
    })().then(
      (response) => {
        opened.release();
        scope.finish(codeName());
        callback(null, response);
      },
      (thrown) => {
        opened.release();
        scope.finish(codeName(thrown), thrown);
        callback(toGrpcError(thrown));
      },
    );
  };
}

/** A streaming speech method (server or bidirectional): the handler writes; the call ends when it returns. */
export function streamingMethod<Call extends grpc.ServerWritableStream<any, any> | grpc.ServerDuplexStream<any, any>>(
  ctx: AppContext,
  method: string,
  handler: (call: Call, scope: AuthedScope) => Promise<void>,
  options: { readonly countsRequest?: boolean } = {},
): (call: Call) => void {
  return (call) => {
    const opened = begin(ctx, call as AnyCall, method);
    const { scope } = opened;
    (async () => {
      authenticate(call as AnyCall, scope, options.countsRequest !== false);
      await handler(call, scope as AuthedScope);
    })().then(
      () => {
        opened.release();
        const seconds = scope.seconds;
        const cancelled = () => call.cancelled || scope.signal.aborted;
        const outcome = () => (cancelled() ? clientCancelled() : undefined);
        if (cancelled()) {
          scope.finish(codeName(outcome()), outcome(), seconds);
          return;
        }
        call.end();
        // A client's cancel can reach the handler as the end of its input, the reset a few ms
        // later: log once that settles, so a cancelled stream is not counted as OK.
        const settle = () => {
          clearTimeout(timer);
          call.removeListener("cancelled", settle);
          const thrown = outcome();
          scope.finish(codeName(thrown), thrown, seconds);
        };
        const timer = setTimeout(settle, CANCEL_SETTLE_MS);
        call.once("cancelled", settle);
      },
      (thrown) => {
        opened.release();
        scope.finish(codeName(thrown), thrown);
        if (!call.cancelled) call.emit("error", toGrpcError(thrown));
      },
    );
  };
}

/** Writes one message, waiting for the client to read (backpressure); throws once the call is gone. */
export async function writeMessage(
  call: grpc.ServerWritableStream<any, any> | grpc.ServerDuplexStream<any, any>,
  message: unknown,
  signal: AbortSignal,
): Promise<void> {
  signal.throwIfAborted();
  if (call.write(message)) return;
  await new Promise<void>((resolve, reject) => {
    const onDrain = () => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    };
    const onAbort = () => {
      call.removeListener("drain", onDrain);
      reject(signal.reason);
    };
    call.once("drain", onDrain);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
