/**
 * Engine lifecycle (D15): initializing → ready → draining, or failed with a reason, or disabled
 * (nothing to serve by the operator's choice, e.g. ASR with no recogniser installed and the
 * built-in one turned off: not an error to alert on, and readiness does not wait for it). REST health,
 * readiness, gRPC health, metrics and sd_notify all read this one state; listeners hear every
 * change. The engine's service itself lives on the context (`ctx.tts`, `ctx.asr`), set by
 * startEngines before the state turns ready; the edge's readiness gate (src/edge/readiness.ts)
 * gives every front door the 503 a client should see when it is not.
 *
 * Allowed moves: initializing → ready | failed | disabled | draining; ready → failed | draining;
 * failed → draining; disabled → draining. Draining is final: an engine whose loading finishes after shutdown began
 * stays draining. Anything else is a programming error and throws.
 */
/** Lifecycle of one engine. */
export type EngineStatus = "initializing" | "ready" | "draining" | "failed" | "disabled";

/** Every status, in lifecycle order (metrics export one gauge series per status). */
export const ENGINE_STATUSES: readonly EngineStatus[] = ["initializing", "ready", "draining", "failed", "disabled"];

/** A snapshot of an engine's state. */
export interface EngineSnapshot {
  readonly name: string;
  readonly status: EngineStatus;
  /** Why it is failed, disabled or draining, when it is. */
  readonly reason: string | undefined;
  /** Engine-specific details for health endpoints (packs, provider, broken packs…). */
  readonly details: Readonly<Record<string, unknown>>;
}

const MOVES: Record<EngineStatus, readonly EngineStatus[]> = {
  initializing: ["ready", "failed", "disabled", "draining"],
  ready: ["failed", "draining"],
  failed: ["draining"],
  disabled: ["draining"],
  draining: [],
};

/** Observable state of one engine (`tts` or `asr`). */
export class EngineState {
  private status: EngineStatus = "initializing";
  private reason: string | undefined;
  private details: Record<string, unknown> = {};
  private readonly listeners = new Set<(snapshot: EngineSnapshot) => void>();

  constructor(readonly name: string) {}

  /** The current state. */
  snapshot(): EngineSnapshot {
    return { name: this.name, status: this.status, reason: this.reason, details: { ...this.details } };
  }

  /** The current status. */
  get state(): EngineStatus {
    return this.status;
  }

  /** True when the engine accepts work. */
  isReady(): boolean {
    return this.status === "ready";
  }

  /** Marks the engine ready with its health details. Ignored once draining. */
  ready(details: Record<string, unknown> = {}): void {
    if (this.status === "draining") return;
    this.details = { ...this.details, ...details };
    this.move("ready", undefined);
  }

  /** Marks the engine failed with a reason (and details naming what broke). Ignored once draining. */
  fail(reason: string, details: Record<string, unknown> = {}): void {
    if (this.status === "draining") return;
    this.details = { ...this.details, ...details };
    this.move("failed", reason);
  }

  /** Marks the engine disabled (nothing to serve) with the reason health and refusals show. Ignored once draining. */
  disable(reason: string, details: Record<string, unknown> = {}): void {
    if (this.status === "draining") return;
    this.details = { ...this.details, ...details };
    this.move("disabled", reason);
  }

  /**
   * A model reload's outcome (src/app/engines.ts): the engine is ready or failed anew with the
   * new generation's details, which replace the old ones (a removed pack must not linger in
   * health). Unlike the start-up moves, failed → ready is allowed: installing the missing pack
   * is the cure. Ignored once draining.
   */
  renew(
    outcome: { ready: true } | { ready: false; reason: string; disabled?: boolean },
    details: Record<string, unknown>,
  ): void {
    if (this.status === "draining") return;
    this.details = { ...details };
    this.status = outcome.ready ? "ready" : outcome.disabled ? "disabled" : "failed";
    this.reason = outcome.ready ? undefined : outcome.reason;
    this.emit();
  }

  /** Starts shutdown: health turns 503 and new work is refused; final. */
  drain(reason = "shutting down"): void {
    if (this.status !== "draining") this.move("draining", reason);
  }

  /** Merges health details (e.g. packs loaded, provider). */
  setDetails(details: Record<string, unknown>): void {
    this.details = { ...this.details, ...details };
    this.emit();
  }

  /** Subscribes to changes; returns the unsubscribe function. */
  onChange(listener: (snapshot: EngineSnapshot) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private move(status: EngineStatus, reason: string | undefined): void {
    if (this.status === "draining") return;
    if (status !== this.status && !MOVES[this.status].includes(status)) {
      throw new Error(`engine ${this.name}: ${this.status} → ${status} is not a valid move`);
    }
    this.status = status;
    this.reason = reason;
    this.emit();
  }

  private emit(): void {
    const snapshot = this.snapshot();
    for (const listener of this.listeners) listener(snapshot);
  }
}
