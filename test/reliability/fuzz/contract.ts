/**
 * The contract invariants every reply must hold, whatever was sent (issue #16): a status from the
 * contract's set (never 500), an `X-Request-ID`, an error body in one of the spec's three shapes,
 * and nothing that leaks: no API key or secret, no server path, no stack trace.
 */

/**
 * HTTP statuses the contract allows for any request (202: a transcription job accepted, issue
 * #28). 500 is a server bug, so it is not here.
 */
export const ALLOWED_HTTP_STATUSES: ReadonlySet<number> = new Set([
  200, 201, 202, 204, 400, 401, 403, 404, 405, 413, 422, 426, 429, 501, 503, 504,
]);

/** gRPC codes the contract allows: OK, INVALID_ARGUMENT, DEADLINE_EXCEEDED, NOT_FOUND,
 * RESOURCE_EXHAUSTED, FAILED_PRECONDITION, UNIMPLEMENTED, UNAVAILABLE, UNAUTHENTICATED. */
export const ALLOWED_GRPC_CODES: ReadonlySet<number> = new Set([0, 3, 4, 5, 8, 9, 12, 14, 16]);

/**
 * The one 500 the contract pins (test/tts/doors.test.ts): a text with nothing speakable in it for
 * the voice that reads it. Any other 500 or INTERNAL is a violation.
 */
export const NO_AUDIO_DETAIL = "Synthesis produced no audio";

/** True for the pinned no-audio answer (HTTP 500 / gRPC INTERNAL with exactly that detail). */
export function isNoAudio(status: number, detail: unknown): boolean {
  return (status === 500 || status === 13) && detail === NO_AUDIO_DETAIL;
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const STACK = /\bat [^\s]+ \(?[^\s]*:\d+:\d+\)?|\n\s+at\s/;

/** A broken invariant, with what was sent so the seed's run can be read. */
export interface Violation {
  readonly door: "rest" | "ws" | "grpc";
  readonly what: string;
  readonly request: string;
}

/** Secrets and paths a reply must never contain. */
export interface Secrets {
  readonly needles: readonly string[];
}

/** Returns the needles found in `text`, if any. */
export function leaks(text: string, secrets: Secrets): string[] {
  const found = secrets.needles.filter((needle) => needle.length >= 6 && text.includes(needle));
  if (STACK.test(text)) found.push("stack trace");
  return found;
}

/**
 * The borrowed protocol a path speaks (issue 40), whose errors keep that protocol's shape instead
 * of Sawt's: Deepgram's `/v1/speak` and `/v1/listen`, ElevenLabs' `/v1/text-to-speech/…` and `/v1/voices`.
 */
export function borrowedProtocol(path: string): "deepgram" | "elevenlabs" | undefined {
  const pathname = path.split("?")[0]!;
  if (pathname === "/v1/speak" || pathname === "/v1/listen") return "deepgram";
  if (pathname.startsWith("/v1/text-to-speech/") || pathname === "/v1/voices") return "elevenlabs";
  return undefined;
}

/** Problems of an error object in a borrowed protocol's shape. */
export function checkBorrowedError(protocol: "deepgram" | "elevenlabs", json: Record<string, unknown>): string[] {
  if (protocol === "deepgram") {
    // A socket's `Error` message (its description and variant), or a REST body with its request id.
    const socket = json.type === "Error";
    const ok = socket
      ? typeof json.description === "string" && json.description.length > 0 && typeof json.variant === "string"
      : typeof json.err_code === "string" && typeof json.err_msg === "string" && json.err_msg.length > 0;
    return ok && (socket || typeof json.request_id === "string")
      ? []
      : [`deepgram shape ${Object.keys(json).sort().join(",")}`];
  }
  const detail = json.detail as unknown;
  if (Array.isArray(detail))
    return detail.every((d) => Array.isArray(d?.loc) && typeof d?.msg === "string") ? [] : ["elevenlabs 422 shape"];
  const object = detail as { status?: unknown; message?: unknown } | null;
  return typeof object?.status === "string" && typeof object.message === "string" && object.message.length > 0
    ? []
    : [`elevenlabs shape ${Object.keys(json).sort().join(",")}`];
}

/** Problems of one HTTP reply (empty when it holds the contract); `path` tells a borrowed protocol's. */
export function checkHttpReply(
  method: string,
  status: number,
  headers: Headers,
  body: string,
  secrets: Secrets,
  path = "",
): string[] {
  const problems: string[] = [];
  if (!ALLOWED_HTTP_STATUSES.has(status) && !(status === 500 && body.includes(NO_AUDIO_DETAIL)))
    problems.push(`status ${status}`);
  const id = headers.get("x-request-id");
  if (id === null || !REQUEST_ID.test(id)) problems.push(`X-Request-ID ${JSON.stringify(id)}`);
  const headerText = [...headers].map(([k, v]) => `${k}: ${v}`).join("\n");
  for (const leak of leaks(`${headerText}\n${body}`, secrets)) problems.push(`leak: ${leak}`);
  if (status === 405 && /\bWS\b/.test(headers.get("allow") ?? "")) problems.push("Allow lists WS");
  if (status === 426 && headers.get("upgrade")?.toLowerCase() !== "websocket") problems.push("426 without Upgrade");
  if (status >= 400 && method !== "HEAD") {
    const protocol = borrowedProtocol(path);
    if (protocol === undefined) problems.push(...checkErrorBody(status, headers.get("content-type"), body));
    else problems.push(...checkBorrowedBody(protocol, status, headers.get("content-type"), body));
  }
  return problems;
}

/**
 * A borrowed protocol's error body; the app's own routing answers on those paths (404, 405, 426,
 * a broken WebSocket handshake's 400), given before any door sees the request, keep Sawt's shape.
 */
function checkBorrowedBody(
  protocol: "deepgram" | "elevenlabs",
  status: number,
  contentType: string | null,
  body: string,
): string[] {
  if (!contentType?.startsWith("application/json")) return [`error content-type ${contentType}`];
  let json: Record<string, unknown>;
  try {
    json = JSON.parse(body) as Record<string, unknown>;
  } catch {
    return ["error body is not JSON"];
  }
  const problems = checkBorrowedError(protocol, json);
  const routing = [404, 405, 426].includes(status) || (status === 400 && json.detail === "Invalid WebSocket handshake");
  return problems.length > 0 && routing && checkErrorObject(status, json).length === 0 ? [] : problems;
}

/** Problems of an HTTP error body against the spec's three shapes. */
export function checkErrorBody(status: number, contentType: string | null, body: string): string[] {
  if (!contentType?.startsWith("application/json")) return [`error content-type ${contentType}`];
  let json: Record<string, unknown>;
  try {
    json = JSON.parse(body) as Record<string, unknown>;
  } catch {
    return ["error body is not JSON"];
  }
  return checkErrorObject(status, json);
}

/** Problems of a parsed error object (an HTTP body, or a WebSocket error frame without its extras). */
export function checkErrorObject(status: number, json: Record<string, unknown>): string[] {
  const keys = Object.keys(json).sort().join(",");
  const detailOk = typeof json.detail === "string" && json.detail.length > 0;
  if (!detailOk) return ["error without detail"];
  if (status === 401 || status === 429) {
    const error = status === 401 ? "unauthorized" : "rate_limit_exceeded";
    return keys === "detail,error" && json.error === error ? [] : [`auth shape ${keys}`];
  }
  if (status === 422) {
    const fieldsOk =
      Array.isArray(json.errors) &&
      json.errors.every((e) => typeof e?.field === "string" && typeof e?.message === "string");
    return keys === "detail,error,errors" && json.error === "validation_error" && fieldsOk
      ? []
      : [`validation shape ${keys}`];
  }
  if (isNoAudio(status, json.detail)) {
    return keys === "code,detail,error" && json.error === "internal_error" && json.code === "INTERNAL_ERROR"
      ? []
      : [`500 shape ${keys}`];
  }
  const standard = keys === "code,detail,error" && json.error === "http_error" && json.code === `HTTP_${status}`;
  return standard ? [] : [`standard shape ${keys} ${String(json.error)} ${String(json.code)}`];
}
