/**
 * Sawt's errors in ElevenLabs' shapes: REST bodies `{"detail": {"status", "message"}}` (validation
 * problems as `{"detail": [{"loc", "msg", "type"}]}`, as its API answers 422), and on a WebSocket
 * a message `{"error", "message", "code"}` (with `contextId` when it concerns one context, which
 * then ends) before, for what ends the socket, a close frame (1008 for what the client got wrong,
 * 1011 for a server failure).
 */
import type { KeySources } from "../../edge/auth.ts";
import type { AppError } from "../../errors/taxonomy.ts";
import type { ProtocolErrorShape } from "../../http/errors.ts";
import { isTextLimitError } from "../schema.ts";

/** How ElevenLabs' clients present the key: the `xi-api-key` header (or Sawt's own ways). */
export const ELEVENLABS_KEY_SOURCES: KeySources = { headers: ["xi-api-key"] };

/** ElevenLabs' `status` for each kind of refusal. */
const STATUSES: Partial<Record<AppError["kind"], string>> = {
  unauthorized: "invalid_api_key",
  forbidden: "missing_permissions",
  rate_limited: "too_many_concurrent_requests",
  not_found: "not_found",
  payload_too_large: "max_character_limit_exceeded",
  unavailable: "system_busy",
  timeout: "input_timeout_exceeded",
  internal: "internal_error",
};

/** ElevenLabs' name for an error. */
function elevenLabsStatus(error: AppError): string {
  if (error.kind === "unauthorized" && /required/.test(error.detail)) return "needs_authorization";
  if (isTextLimitError(error)) return "max_character_limit_exceeded";
  return STATUSES[error.kind] ?? "invalid_request";
}

/** ElevenLabs' REST error body. */
function elevenLabsBody(error: AppError): Record<string, unknown> {
  if (error.kind === "validation")
    return {
      detail: error.fields.map((f) => ({ loc: ["body", ...f.field.split(".")], msg: f.message, type: "value_error" })),
    };
  return { detail: { status: elevenLabsStatus(error), message: error.detail } };
}

/** ElevenLabs' routes' errors over HTTP (status and headers stay the taxonomy's). */
export const ELEVENLABS_ERRORS: ProtocolErrorShape = { body: (error) => elevenLabsBody(error) };

/** The close code of an error that ends an ElevenLabs socket. */
function elevenLabsCloseCode(error: AppError): number {
  return error.status >= 500 && error.status !== 504 ? 1011 : 1008;
}

/** The close frame of an error that ends an ElevenLabs socket: its code and the detail. */
export function elevenLabsCloseFrame(error: AppError): { code: number; reason: string } {
  return { code: elevenLabsCloseCode(error), reason: error.detail.slice(0, 120) };
}

/** ElevenLabs' WebSocket error message, naming the context it ends when it concerns one. */
export function elevenLabsErrorMessage(error: AppError, contextId?: string): Record<string, unknown> {
  const message = error.fields.length
    ? `${error.detail}: ${error.fields.map((f) => `${f.field}: ${f.message}`).join("; ")}`
    : error.detail;
  return {
    error: elevenLabsStatus(error),
    message,
    code: elevenLabsCloseCode(error),
    ...(contextId !== undefined ? { contextId } : {}),
  };
}
