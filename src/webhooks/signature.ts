/**
 * How a webhook is signed and marked (issue #28), for every feature that sends one (jobs, calls).
 * Signature, after Stripe's scheme: header `Sawt-Signature: t=<unix seconds>,v1=<hex>` where the
 * hex is HMAC-SHA256 with the server's `jobs.webhook_secret` over `<t>.<raw body>`. A receiver
 * recomputes it over the bytes it received, compares in constant time, and refuses a `t` far
 * from its clock (replays). `Idempotency-Key` is the delivery id, the same on every retry.
 */
import { createHmac, timingSafeEqual } from "node:crypto";

/** The header carrying the signature. */
export const SIGNATURE_HEADER = "Sawt-Signature";
/** The header naming the event (`file.completed`, `file.failed`, `job.completed`, `call.ended`). */
export const EVENT_HEADER = "Sawt-Event";
/** The header carrying the delivery id, stable across retries. */
export const IDEMPOTENCY_HEADER = "Idempotency-Key";

/** The `Sawt-Signature` value for `body` at `t` (unix seconds). */
export function signWebhook(secret: string, body: string, t = Math.floor(Date.now() / 1000)): string {
  const mac = createHmac("sha256", secret).update(`${t}.${body}`).digest("hex");
  return `t=${t},v1=${mac}`;
}

/**
 * Checks a `Sawt-Signature` header against the raw body: true when one `v1` matches and `t` is
 * within `toleranceSeconds` of now. What a receiver does; tests and `docs/jobs.md` use it.
 */
export function verifyWebhook(secret: string, header: string | null, body: string, toleranceSeconds = 300): boolean {
  if (header === null) return false;
  const parts = header.split(",").map((part) => part.trim().split("="));
  const t = Number(parts.find(([k]) => k === "t")?.[1]);
  if (!Number.isInteger(t) || Math.abs(Date.now() / 1000 - t) > toleranceSeconds) return false;
  const expected = Buffer.from(createHmac("sha256", secret).update(`${t}.${body}`).digest("hex"));
  return parts
    .filter(([k]) => k === "v1")
    .some(([, v]) => v !== undefined && v.length === expected.length && timingSafeEqual(Buffer.from(v), expected));
}
