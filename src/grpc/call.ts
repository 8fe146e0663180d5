/**
 * What every Sawt speech method shares at the gRPC edge: authentication and the per-key rate
 * limit (the same `authenticate()` as REST), a request id, an AbortSignal that fires when the
 * client cancels or its deadline passes (so queued work is dropped), error mapping, backpressure
 * on writes, and one log line per call. Method adapters (tts.ts, asr.ts) only translate messages.
 */
import * as grpc from "@grpc/grpc-js";
import type { EventEmitter } from "node:events";
import type { AppContext } from "../app/context.ts";
import { authenticate, presentedKey } from "../http/auth.ts";
import { requestIdFor } from "../http/request-id.ts";
import type { CallOptions } from "../tts/types.ts";
import { isUnexpected, toGrpcError } from "./errors.ts";

/** How long after a stream's end a late client reset still counts it as cancelled. */
const CANCEL_SETTLE_MS = 50;

const CANCELLED = new DOMException("The client cancelled the call", "AbortError");

const elapsed = (started: number) => (performance.now() - started) / 1000;

/** A cancellation this close to the deadline is counted as the deadline passing (logs, metrics). */
const DEADLINE_SLACK_MS = 100;

/** Per-call state a method adapter gets. */
export interface CallScope {
  /** Options for the engine services (signal, caller's key id, deadline as timeoutMs). */
  readonly options: CallOptions & { readonly signal: AbortSignal };
  readonly requestId: string;
  /** The authenticated key's id (never the key itself). */
  readonly keyId: string;
}

/** What every kind of server call offers that {@link open} needs. */
type AnyCall = Pick<grpc.ServerUnaryCall<unknown, unknown>, "metadata" | "sendMetadata" | "getDeadline"> & Pick<EventEmitter, "once" | "removeListener">;

/** Reads metadata like HTTP headers (first string value of a name). */
export function metadataHeaders(metadata: grpc.Metadata): { get(name: string): string | null } {
  return {
    get(name) {
      const value = metadata.get(name)[0];
      return typeof value === "string" ? value : null;
    },
  };
}

/** The call's request id: the client's `x-request-id` metadata when well formed, else a new one (D9). */
function requestIdOf(call: AnyCall): string {
  // requestIdFor only reads headers; gRPC metadata follows the same rule.
  return requestIdFor({ headers: metadataHeaders(call.metadata) } as unknown as Request);
}

/** Authenticates, sends initial metadata (request id, rate-limit counters) and arms the signal. */
function open(ctx: AppContext, call: AnyCall, requestId: string): { scope: CallScope; dispose(): void } {
  const headers = metadataHeaders(call.metadata);
  const initial = new grpc.Metadata();
  initial.set("x-request-id", requestId);
  let caller: ReturnType<typeof authenticate>;
  try {
    caller = authenticate(ctx, presentedKey(headers));
  } catch (error) {
    call.sendMetadata(initial);
    throw error;
  }
  for (const [name, value] of Object.entries(caller.rateHeaders)) initial.set(name, value);
  call.sendMetadata(initial);
  const controller = new AbortController();
  const deadline = call.getDeadline();
  const deadlineMs = deadline instanceof Date ? deadline.getTime() : deadline;
  const onCancel = () =>
    controller.abort(
      // A client cancels its own call when its deadline passes, a moment before ours does.
      Date.now() >= deadlineMs - DEADLINE_SLACK_MS ? new DOMException("The call's deadline passed", "TimeoutError") : new DOMException("The client cancelled the call", "AbortError"),
    );
  call.once("cancelled", onCancel);
  let timer: ReturnType<typeof setTimeout> | undefined;
  let timeoutMs: number | undefined;
  if (Number.isFinite(deadlineMs)) {
    timeoutMs = Math.max(0, deadlineMs - Date.now());
    timer = setTimeout(() => controller.abort(new DOMException("The call's deadline passed", "TimeoutError")), timeoutMs);
  }
  return {
    scope: { requestId, keyId: caller.key.id, options: { signal: controller.signal, keyId: caller.key.id, timeoutMs } },
    dispose() {
      clearTimeout(timer);
      call.removeListener("cancelled", onCancel);
    },
  };
}

/** Logs and counts the outcome of a call (ids, codes, timings; never content — D18). */
function logCall(ctx: AppContext, method: string, requestId: string, seconds: number, thrown?: unknown): void {
  const code = grpc.status[thrown === undefined ? grpc.status.OK : toGrpcError(thrown).code];
  ctx.metrics.observeGrpcCall({ method, code, seconds });
  const fields = { request_id: requestId, method, code, ms: Math.round(seconds * 1000) };
  if (thrown === undefined) {
    ctx.log.info("grpc", fields);
    return;
  }
  if (isUnexpected(thrown)) ctx.log.error("grpc call failed", { ...fields, error: thrown instanceof Error ? thrown : String(thrown) });
  else ctx.log.info("grpc", fields);
}

/** A unary speech method: authenticated, mapped errors. */
export function unaryMethod<Req, Res>(ctx: AppContext, method: string, handler: (request: Req, scope: CallScope) => Promise<Res>): grpc.handleUnaryCall<Req, Res> {
  return (call, callback) => {
    const started = performance.now();
    const requestId = requestIdOf(call as AnyCall);
    let opened: ReturnType<typeof open> | undefined;
    (async () => {
      opened = open(ctx, call as AnyCall, requestId);
      return await handler(call.request, opened.scope);
    })().then(
      (response) => {
        opened?.dispose();
        logCall(ctx, method, requestId, elapsed(started));
        callback(null, response);
      },
      (thrown) => {
        opened?.dispose();
        logCall(ctx, method, requestId, elapsed(started), thrown);
        callback(toGrpcError(thrown));
      },
    );
  };
}

/** A streaming speech method (server or bidirectional): the handler writes; the call ends when it returns. */
export function streamingMethod<Call extends grpc.ServerWritableStream<any, any> | grpc.ServerDuplexStream<any, any>>(
  ctx: AppContext,
  method: string,
  handler: (call: Call, scope: CallScope) => Promise<void>,
): (call: Call) => void {
  return (call) => {
    const started = performance.now();
    const requestId = requestIdOf(call as AnyCall);
    let opened: ReturnType<typeof open> | undefined;
    (async () => {
      opened = open(ctx, call as AnyCall, requestId);
      await handler(call, opened.scope);
    })().then(
      () => {
        opened?.dispose();
        const seconds = elapsed(started);
        const cancelled = () => call.cancelled || opened?.scope.options.signal.aborted === true;
        if (cancelled()) {
          logCall(ctx, method, requestId, seconds, CANCELLED);
          return;
        }
        call.end();
        // A client's cancel can reach the handler as the end of its input, the reset a few ms
        // later: log once that settles, so a cancelled stream is not counted as OK.
        const settle = () => {
          clearTimeout(timer);
          call.removeListener("cancelled", settle);
          logCall(ctx, method, requestId, seconds, cancelled() ? CANCELLED : undefined);
        };
        const timer = setTimeout(settle, CANCEL_SETTLE_MS);
        call.once("cancelled", settle);
      },
      (thrown) => {
        opened?.dispose();
        logCall(ctx, method, requestId, elapsed(started), thrown);
        if (!call.cancelled) call.emit("error", toGrpcError(thrown));
      },
    );
  };
}

/** Writes one message, waiting for the client to read (backpressure); throws once the call is gone. */
export async function writeMessage(call: grpc.ServerWritableStream<any, any> | grpc.ServerDuplexStream<any, any>, message: unknown, signal: AbortSignal): Promise<void> {
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
