/**
 * Engine lifecycle (D15): initializing → ready → draining, or failed with a reason. REST health,
 * readiness, gRPC health and sd_notify all read this one state; listeners hear every change.
 */

/** Lifecycle of one engine. */
export type EngineStatus = "initializing" | "ready" | "draining" | "failed";

/** A snapshot of an engine's state. */
export interface EngineSnapshot {
  readonly name: string;
  readonly status: EngineStatus;
  /** Why it is failed or draining, when it is. */
  readonly reason: string | undefined;
  /** Engine-specific details for health endpoints (packs, provider, broken packs…). */
  readonly details: Readonly<Record<string, unknown>>;
}

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

  /** True when the engine accepts work. */
  isReady(): boolean {
    return this.status === "ready";
  }

  /** Moves to `status`; a draining engine never becomes ready again. */
  set(status: EngineStatus, reason?: string): void {
    if (this.status === "draining" && status !== "draining") return;
    if (this.status === status && this.reason === reason) return;
    this.status = status;
    this.reason = reason;
    this.emit();
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

  private emit(): void {
    const snapshot = this.snapshot();
    for (const listener of this.listeners) listener(snapshot);
  }
}
