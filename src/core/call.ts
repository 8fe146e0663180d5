/**
 * What every engine call carries, whatever front door it came through (REST, WebSocket, gRPC, a
 * later transport) or none (the CLI). Transports build it from their per-call scope (src/edge).
 */

/** Options every call carries. */
export interface CallOptions {
  /** Aborted when the client goes away or its deadline passes; queued work is then dropped. */
  readonly signal?: AbortSignal;
  /** Caller's key id (cloned voices are private to it). */
  readonly keyId?: string;
  /** A shorter queue timeout than the engine's (gRPC deadlines). */
  readonly timeoutMs?: number;
}
