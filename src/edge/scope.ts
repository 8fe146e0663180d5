/**
 * The per-call scope every front door opens around one unit of work (a gRPC call, a WebSocket
 * request; later a realtime session turn or a telephony call): the caller's key, an AbortSignal
 * that fires when the client goes away or its deadline passes (so queued work is dropped), the
 * deadline as the engines' `timeoutMs`, and, when the call ends, one log line (ids, codes,
 * timings; never content — D18) and one metrics observation. The transport only translates its
 * own events into {@link CallScope.cancel} and {@link CallScope.finish}.
 */
import type { CallOptions } from "../core/call.ts";
import type { AppContext } from "../core/context.ts";
import { AppError } from "../errors/taxonomy.ts";
import type { ApiKeyRecord } from "../store/keys.ts";
import { admit, authenticate, type Caller, presentedKey, verify } from "./auth.ts";
import type { HeaderGetter } from "./headers.ts";

/** A cancellation this close to the deadline is counted as the deadline passing (logs, metrics). */
const DEADLINE_SLACK_MS = 100;

/** A finished call as metrics see it. */
export interface CallObservation {
  readonly method: string;
  /** The transport's name for the outcome (a gRPC status name, an HTTP status…). */
  readonly code: string;
  readonly seconds: number;
}

/** What a transport knows when a call begins. */
export interface ScopeInit {
  /** Message of the call's log line, naming the transport ("grpc", "ws"). */
  readonly event: string;
  /** The method or route called, as logs and metrics name it. */
  readonly method: string;
  readonly requestId: string;
  /** When the client's deadline passes (ms since the epoch); none when absent or infinite. */
  readonly deadlineMs?: number;
  /** A wider signal the call also ends with (its WebSocket connection closing, say). */
  readonly parent?: AbortSignal;
  /** Records the finished call in the transport's metrics. */
  readonly observe?: (call: CallObservation) => void;
}

/** The reason a signal aborts with when the deadline passes. */
export function deadlinePassed(): DOMException {
  return new DOMException("The call's deadline passed", "TimeoutError");
}

/** The reason a signal aborts with when the client cancels. */
export function clientCancelled(): DOMException {
  return new DOMException("The client cancelled the call", "AbortError");
}

/** True when `thrown` is neither an AppError nor a cancellation: worth an error log line. */
function isUnexpected(thrown: unknown): boolean {
  if (thrown instanceof AppError) return false;
  return !(thrown instanceof DOMException && (thrown.name === "TimeoutError" || thrown.name === "AbortError"));
}

/** One call's scope; see the file comment. Open it with {@link openScope}. */
export class CallScope {
  readonly requestId: string;
  readonly signal: AbortSignal;
  /** Milliseconds left until the deadline when the call began; undefined without one. */
  readonly timeoutMs: number | undefined;
  private readonly controller = new AbortController();
  private readonly started = performance.now();
  private readonly timer: ReturnType<typeof setTimeout> | undefined;
  private caller: Caller | undefined;
  private finished = false;

  constructor(
    private readonly ctx: AppContext,
    private readonly init: ScopeInit,
  ) {
    this.requestId = init.requestId;
    this.signal = init.parent ? AbortSignal.any([init.parent, this.controller.signal]) : this.controller.signal;
    const deadlineMs = init.deadlineMs;
    if (deadlineMs !== undefined && Number.isFinite(deadlineMs)) {
      this.timeoutMs = Math.max(0, deadlineMs - Date.now());
      this.timer = setTimeout(() => this.controller.abort(deadlinePassed()), this.timeoutMs);
    }
  }

  /** Authenticates the presented key and consumes one request of its limit (401/429 AppErrors). */
  authenticate(headers: HeaderGetter): Caller {
    this.caller = authenticate(this.ctx, headers);
    return this.caller;
  }

  /**
   * Verifies the presented key without consuming its limit: for a call whose work counts itself (a
   * speech stream counts one request per context). 401 AppErrors.
   */
  verify(headers: HeaderGetter): ApiKeyRecord {
    const key = verify(this.ctx, presentedKey(headers));
    this.caller = { key, rateHeaders: {} };
    return key;
  }

  /** The authenticated key (never logged: its id is); undefined before authentication. */
  get key(): ApiKeyRecord | undefined {
    return this.caller?.key;
  }

  /** Consumes one request of an already verified key's limit (a WebSocket's key, checked at upgrade). */
  admit(key: ApiKeyRecord): Caller {
    this.caller = admit(this.ctx, key);
    return this.caller;
  }

  /** The authenticated key's id (never the key itself); undefined before authentication. */
  get keyId(): string | undefined {
    return this.caller?.key.id;
  }

  /** Options for the engine services: the signal, the caller's key id, the deadline as timeoutMs. */
  get options(): CallOptions & { readonly signal: AbortSignal } {
    return { signal: this.signal, keyId: this.keyId, timeoutMs: this.timeoutMs };
  }

  /** Seconds since the call began. */
  get seconds(): number {
    return (performance.now() - this.started) / 1000;
  }

  /** The client went away: aborts the call (as its deadline passing when that is what it was). */
  cancel(): void {
    // A client cancels its own call when its deadline passes, a moment before ours does.
    const deadline = this.init.deadlineMs;
    const late = deadline !== undefined && Date.now() >= deadline - DEADLINE_SLACK_MS;
    this.controller.abort(late ? deadlinePassed() : clientCancelled());
  }

  /** Stops the deadline timer; the call's work is over (its log line may follow later). */
  dispose(): void {
    clearTimeout(this.timer);
  }

  /**
   * Ends the call: one log line and one metrics observation, once (later calls are ignored).
   * `thrown` is what failed it, if anything; an unexpected failure is logged as an error.
   */
  finish(code: string, thrown?: unknown, seconds = this.seconds): void {
    this.dispose();
    if (this.finished) return;
    this.finished = true;
    const { event, method } = this.init;
    this.init.observe?.({ method, code, seconds });
    const fields = { request_id: this.requestId, method, code, ms: Math.round(seconds * 1000) };
    if (thrown !== undefined && isUnexpected(thrown)) {
      this.ctx.log.error(`${event} call failed`, {
        ...fields,
        error: thrown instanceof Error ? thrown : String(thrown),
      });
    } else this.ctx.log.info(event, fields);
  }
}

/** Opens the scope of one call; see {@link CallScope}. */
export function openScope(ctx: AppContext, init: ScopeInit): CallScope {
  return new CallScope(ctx, init);
}
