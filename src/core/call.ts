/**
 * What every call into an engine service carries, whatever door it came through (REST, WebSocket,
 * gRPC, the CLI): the caller's cancellation, identity and deadline.
 */

/** Options every service call carries. */
export interface CallOptions {
  /** Aborted when the client goes away or its deadline passes; queued work is then dropped. */
  readonly signal?: AbortSignal;
  /** Caller's key id (cloned voices and other per-key data are private to it). */
  readonly keyId?: string;
  /** A shorter queue timeout than the engine's (gRPC deadlines). */
  readonly timeoutMs?: number;
}
