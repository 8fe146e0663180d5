/**
 * Delivers the webhooks a store queued (the jobs' deliveries, the calls' end-of-call webhooks):
 * one POST per delivery (JSON body as stored, signed, with its idempotency key), retried with
 * exponential backoff — the owner's retry setting (`jobs.webhook_retry_ms`), doubling, at most an
 * hour apart, given up after its retry hours (`jobs.webhook_retry_hours`) — and every attempt
 * recorded (the delivery log). Deliveries live in SQLite, so a restart resumes them where they
 * were; a delivery that was in flight at a crash is sent again with the same key.
 */
import type { Logger } from "../log/logger.ts";
import { EVENT_HEADER, IDEMPOTENCY_HEADER, SIGNATURE_HEADER, signWebhook } from "./signature.ts";

/** A delivery due to be sent, as its store keeps it. */
export interface PendingDelivery {
  /** The delivery id: the `Idempotency-Key`, the same on every retry. */
  readonly id: string;
  readonly callback_url: string;
  /** The event name (`Sawt-Event`). */
  readonly event: string;
  /** The JSON body, exactly as it is signed and sent. */
  readonly body: string;
  /** Attempts made so far. */
  readonly attempts: number;
  /** When it was queued (epoch ms): retries stop after the retry hours from here. */
  readonly created_at: number;
}

/** One attempt's outcome: delivered, retried at `nextAt`, or given up (`failed`). */
export interface AttemptOutcome {
  readonly status: "delivered" | "pending" | "failed";
  readonly nextAt?: number;
  readonly error?: string;
}

/** Where a sender finds its deliveries and records their attempts (the jobs store, the calls store). */
export interface DeliveryQueue<D extends PendingDelivery = PendingDelivery> {
  /** Pending deliveries due by `now`, oldest first, at most `limit`. */
  dueDeliveries(now: number, limit: number): D[];
  /** When the next pending delivery is due (ms), if any. */
  nextDeliveryAt(): number | undefined;
  /** Records one attempt: delivered, retried at `nextAt`, or given up (`failed`). */
  recordAttempt(id: string, outcome: AttemptOutcome): void;
}

/** How deliveries are sent. */
export interface WebhookOptions<D extends PendingDelivery = PendingDelivery> {
  readonly secret: string;
  readonly retryMs: number;
  readonly retryHours: number;
  readonly log: Logger;
  /** Hears each attempt's outcome (metrics). */
  readonly onAttempt?: (delivered: boolean) => void;
  /** What the "given up" log line names besides the delivery (the job, the call); never content. */
  readonly logFields?: (delivery: D) => Record<string, unknown>;
}

/** Longest a receiver may take to answer one delivery. */
const ATTEMPT_TIMEOUT_MS = 10_000;
/** Longest gap between two retries. */
const MAX_BACKOFF_MS = 3_600_000;
/** Deliveries sent at once. */
const BATCH = 8;

/** The delay before retry number `attempt` (1 = first retry), with ±10 % jitter. */
export function backoffMs(retryMs: number, attempt: number): number {
  const base = Math.min(MAX_BACKOFF_MS, retryMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(base * (0.9 + Math.random() * 0.2));
}

/** The delivery loop of one process over one store. */
export class WebhookSender<D extends PendingDelivery = PendingDelivery> {
  private timer: ReturnType<typeof setTimeout> | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;
  private again = false;
  /** Aborts attempts in flight when the sender stops. */
  private readonly stopping = new AbortController();

  constructor(
    private readonly store: DeliveryQueue<D>,
    private readonly options: WebhookOptions<D>,
  ) {}

  /** Sends what is due now, then sleeps until the next delivery is due. */
  wake(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    clearTimeout(this.timer);
    this.running = this.pass()
      .catch((error) => this.options.log.error("webhook pass failed", { error: String(error) }))
      .finally(() => {
        this.running = undefined;
        if (this.again) {
          this.again = false;
          this.wake();
        } else this.schedule();
      });
  }

  /**
   * Stops sending. Attempts in flight are abandoned, not recorded: each stays pending and is sent
   * again, with the same key, after the restart (as one in flight at a crash is), so a receiver
   * that is slow to answer never holds the service's shutdown.
   */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    this.stopping.abort();
    await this.running;
  }

  /**
   * Sends what is due now and waits for those attempts (and any due when they end), at most `ms`;
   * the sender keeps running. A shutdown calls it while its ports are still up, so the last
   * deliveries (the end-of-call webhooks of the calls it hung up) go out before anything closes.
   */
  async settle(ms: number): Promise<void> {
    const until = performance.now() + ms;
    this.wake();
    // A pass that finds more due deliveries when it ends starts another (wake's `again`).
    while (this.running && performance.now() < until) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const timeout = new Promise<void>((resolve) => (timer = setTimeout(resolve, until - performance.now())));
      await Promise.race([this.running, timeout]);
      clearTimeout(timer);
    }
  }

  /**
   * {@link settle}, then stops as {@link stop} does: what was not delivered by then stays pending
   * for the next start.
   */
  async stopAfter(ms: number): Promise<void> {
    await this.settle(ms);
    await this.stop();
  }

  private schedule(): void {
    if (this.stopped) return;
    const next = this.store.nextDeliveryAt();
    if (next === undefined) return;
    this.timer = setTimeout(() => this.wake(), Math.min(60_000, Math.max(0, next - Date.now())));
    this.timer.unref?.();
  }

  private async pass(): Promise<void> {
    for (;;) {
      const due = this.store.dueDeliveries(Date.now(), BATCH);
      if (due.length === 0 || this.stopped) return;
      this.options.log.debug("webhook pass", { due: due.length });
      await Promise.all(due.map((delivery) => this.attempt(delivery)));
    }
  }

  private async attempt(delivery: D): Promise<void> {
    let error: string | undefined;
    const started = performance.now();
    try {
      const response = await fetch(delivery.callback_url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "user-agent": "sawt-webhooks",
          [SIGNATURE_HEADER]: signWebhook(this.options.secret, delivery.body),
          [IDEMPOTENCY_HEADER]: delivery.id,
          [EVENT_HEADER]: delivery.event,
        },
        body: delivery.body,
        redirect: "manual",
        signal: AbortSignal.any([AbortSignal.timeout(ATTEMPT_TIMEOUT_MS), this.stopping.signal]),
      });
      await response.body?.cancel().catch(() => undefined);
      if (response.status >= 200 && response.status < 300) {
        this.store.recordAttempt(delivery.id, { status: "delivered" });
        this.options.onAttempt?.(true);
        this.trace(delivery, started, "delivered");
        return;
      }
      error = `HTTP ${response.status}`;
    } catch (cause) {
      if (this.stopped) {
        // Abandoned by stop(): still pending, sent again after the next start.
        this.trace(delivery, started, "left for the next start");
        return;
      }
      error = cause instanceof Error ? cause.name : "request failed";
    }
    this.trace(delivery, started, error);
    this.options.onAttempt?.(false);
    const giveUpAt = delivery.created_at + this.options.retryHours * 3_600_000;
    const nextAt = Date.now() + backoffMs(this.options.retryMs, delivery.attempts + 1);
    if (nextAt > giveUpAt) {
      this.store.recordAttempt(delivery.id, { status: "failed", error });
      this.options.log.warn("webhook given up", {
        ...this.options.logFields?.(delivery),
        delivery: delivery.id,
        error,
      });
    } else this.store.recordAttempt(delivery.id, { status: "pending", nextAt, error });
  }

  /** One attempt's outcome at debug level: the delivery, never its content. */
  private trace(delivery: D, started: number, outcome: string): void {
    this.options.log.debug("webhook attempt", {
      ...this.options.logFields?.(delivery),
      delivery: delivery.id,
      outcome,
      ms: Math.round(performance.now() - started),
    });
  }
}
