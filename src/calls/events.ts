/**
 * The call API's events (issue 41): JSON objects with a `type` — `call.started`, `speech.started`,
 * `transcript.partial`, `transcript.final` (`text`, `words`, `dialect`, `channel`), `dtmf`
 * (`digit`), `mark` (`name`), `playback.done` (`context`, `ms_played`), `call.ended` (`reason`) and
 * `error` (`code`, `message`) — each with the `call_id` it is about, so one socket may follow many.
 */
import type { AppError } from "../errors/taxonomy.ts";
import { type CallFormat, formatName } from "./format.ts";

/** The call doors, as events, metrics and logs name them. */
export type CallDoor = "audiosocket" | "chan_websocket" | "external_media";

/** Why a call ended (`call.ended` `reason`). */
export type EndReason = "hangup" | "command" | "idle" | "max_call_s" | "error" | "shutdown";

/** One event, as the WebSocket sends it. */
export type CallEvent = { readonly type: string; readonly call_id?: string } & Readonly<Record<string, unknown>>;

/** What `call.started` (and the call list) says of a call. */
export interface CallFacts {
  readonly id: string;
  readonly startedAt: number;
  readonly init: {
    readonly door: CallDoor;
    readonly format: CallFormat;
    readonly voice?: string;
  };
}

/** A call as `GET /v1/calls` lists it and `call.started` announces it. */
export function callJson(call: CallFacts): Record<string, unknown> {
  return {
    id: call.id,
    door: call.init.door,
    format: formatName(call.init.format),
    sample_rate: call.init.format.sampleRate,
    started_at: new Date(call.startedAt).toISOString(),
    ...(call.init.voice !== undefined ? { voice: call.init.voice } : {}),
  };
}

/** The `call.started` event. */
export function startedEvent(call: CallFacts): CallEvent {
  const { id, ...facts } = callJson(call);
  return { type: "call.started", call_id: id as string, ...facts };
}

/**
 * The `error` event of an AppError: `code` (`HTTP_<status>`, as REST's standard body names it),
 * `message` (the detail, or the first field problem of a 422), `status`, and the context it is
 * about when a playback failed.
 */
export function errorEvent(error: AppError, callId?: string, context?: string): CallEvent {
  const field = error.kind === "validation" ? error.fields[0] : undefined;
  return {
    type: "error",
    ...(callId !== undefined ? { call_id: callId } : {}),
    code: `HTTP_${error.status}`,
    message: field ? `${field.field}: ${field.message}` : error.detail,
    status: error.status,
    ...(context !== undefined ? { context } : {}),
  };
}
