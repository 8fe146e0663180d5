/**
 * What the open health routes share (D15): the OpenAPI operation of a health route and the body
 * and status of one engine's health. The routes themselves live with their owners: /health and
 * /ready in src/app/health-routes.ts, /v1/tts/health and /v1/asr/health in each feature's http/.
 */
import type { EngineState } from "../serving/engine-state.ts";
import { ref } from "./openapi.ts";

/** A health reply: its status and JSON body. */
export interface HealthReply {
  readonly status: number;
  readonly body: Record<string, unknown>;
}

/** OpenAPI operation of an open health route. */
export function healthDoc(operationId: string, summary: string, description: string) {
  const json = { "application/json": { schema: ref("schemas", "Health") } };
  const headers = { "X-Request-ID": ref("headers", "X-Request-ID") };
  return {
    operationId,
    summary,
    description,
    tags: ["Health"],
    security: [],
    responses: {
      "200": { description: "Healthy / ready.", headers, content: json },
      "503": { description: "Not (yet) able to serve; `detail` says why.", headers, content: json },
    },
  };
}

/** The body and status of one engine's health. */
export function engineHealth(state: EngineState): HealthReply {
  const snap = state.snapshot();
  if (snap.status === "ready") return { status: 200, body: { status: "healthy", engine: snap.name, ...snap.details } };
  const why =
    snap.reason ?? (snap.status === "initializing" ? `${snap.name.toUpperCase()} engine not initialized` : snap.status);
  return {
    status: 503,
    body: { status: "unavailable", engine: snap.name, state: snap.status, detail: why, ...snap.details },
  };
}

/** Sets the reply's status on Elysia's `set` and returns its body. */
export function sendHealth(set: { status?: number | string }, reply: HealthReply): Record<string, unknown> {
  set.status = reply.status;
  return reply.body;
}
