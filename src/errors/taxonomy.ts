/**
 * The one error taxonomy of Sawt. Every failure that reaches a client is an {@link AppError}
 * with a stable kind; the HTTP edge (src/http/errors.ts) and the gRPC edge (src/grpc/errors.ts)
 * each map it once to their wire shapes. Engines and services throw these, never HTTP codes.
 */

/** gRPC status codes used by the taxonomy (numeric values from grpc's status.proto). */
export const GrpcCode = {
  OK: 0,
  CANCELLED: 1,
  INVALID_ARGUMENT: 3,
  DEADLINE_EXCEEDED: 4,
  NOT_FOUND: 5,
  RESOURCE_EXHAUSTED: 8,
  FAILED_PRECONDITION: 9,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
  UNAVAILABLE: 14,
  UNAUTHENTICATED: 16,
} as const;

/** Body shape a kind is rendered in over HTTP (spec "Errors"). */
export type ErrorShape = "standard" | "auth" | "validation";

/** What each kind means on the wire. */
interface KindSpec {
  readonly http: number;
  readonly grpc: number;
  readonly shape: ErrorShape;
  /** `error` field of the body. */
  readonly error: string;
}

const KINDS = {
  bad_request: { http: 400, grpc: GrpcCode.INVALID_ARGUMENT, shape: "standard", error: "http_error" },
  unauthorized: { http: 401, grpc: GrpcCode.UNAUTHENTICATED, shape: "auth", error: "unauthorized" },
  forbidden: { http: 403, grpc: GrpcCode.UNAUTHENTICATED, shape: "standard", error: "http_error" },
  not_found: { http: 404, grpc: GrpcCode.NOT_FOUND, shape: "standard", error: "http_error" },
  method_not_allowed: { http: 405, grpc: GrpcCode.UNIMPLEMENTED, shape: "standard", error: "http_error" },
  payload_too_large: { http: 413, grpc: GrpcCode.RESOURCE_EXHAUSTED, shape: "standard", error: "http_error" },
  /** A WebSocket route asked for without the upgrade (RFC 9110 §15.5.22). */
  upgrade_required: { http: 426, grpc: GrpcCode.FAILED_PRECONDITION, shape: "standard", error: "http_error" },
  validation: { http: 422, grpc: GrpcCode.INVALID_ARGUMENT, shape: "validation", error: "validation_error" },
  /** The client went away before the answer (nginx's 499); nobody reads the body, metrics count it. */
  client_closed: { http: 499, grpc: GrpcCode.CANCELLED, shape: "standard", error: "http_error" },
  rate_limited: { http: 429, grpc: GrpcCode.RESOURCE_EXHAUSTED, shape: "auth", error: "rate_limit_exceeded" },
  internal: { http: 500, grpc: GrpcCode.INTERNAL, shape: "standard", error: "internal_error" },
  not_implemented: { http: 501, grpc: GrpcCode.UNIMPLEMENTED, shape: "standard", error: "http_error" },
  unavailable: { http: 503, grpc: GrpcCode.UNAVAILABLE, shape: "standard", error: "http_error" },
  timeout: { http: 504, grpc: GrpcCode.DEADLINE_EXCEEDED, shape: "standard", error: "http_error" },
} as const satisfies Record<string, KindSpec>;

/** Stable error kinds; see KINDS for their HTTP status and gRPC code. */
export type ErrorKind = keyof typeof KINDS;

/** One field problem of a 422 validation error. */
export interface FieldError {
  /** Location and name, e.g. `body.input`, `form.language`. */
  readonly field: string;
  readonly message: string;
}

/** Extra data an error may carry to the edge. */
export interface AppErrorOptions {
  /** Seconds for `Retry-After` (429, 503). */
  readonly retryAfter?: number;
  /** Field errors for kind `validation`. */
  readonly fields?: readonly FieldError[];
  /** Extra response headers (e.g. rate-limit counters). */
  readonly headers?: Readonly<Record<string, string>>;
  readonly cause?: unknown;
}

/** A failure with a stable kind and a client-safe detail text (never a path, key or user text). */
export class AppError extends Error {
  readonly kind: ErrorKind;
  readonly detail: string;
  readonly retryAfter: number | undefined;
  readonly fields: readonly FieldError[];
  readonly headers: Readonly<Record<string, string>>;

  constructor(kind: ErrorKind, detail: string, options: AppErrorOptions = {}) {
    super(detail, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "AppError";
    this.kind = kind;
    this.detail = detail;
    this.retryAfter = options.retryAfter;
    this.fields = options.fields ?? [];
    this.headers = options.headers ?? {};
  }

  /** The same error with `headers` added to its response (a route's rate-limit counters). */
  withHeaders(headers: Readonly<Record<string, string>>): AppError {
    return new AppError(this.kind, this.detail, {
      retryAfter: this.retryAfter,
      fields: this.fields,
      headers: { ...this.headers, ...headers },
      cause: this.cause,
    });
  }

  /** HTTP status of this error. */
  get status(): number {
    return KINDS[this.kind].http;
  }

  /** gRPC status code of this error. */
  get grpcCode(): number {
    return KINDS[this.kind].grpc;
  }

  /** HTTP body shape of this error. */
  get shape(): ErrorShape {
    return KINDS[this.kind].shape;
  }

  /** The `error` field of the HTTP body. */
  get errorField(): string {
    return KINDS[this.kind].error;
  }
}

/** Spec detail texts, reproduced character for character. */
export const Detail = {
  textEmpty: "Text cannot be empty",
  textTooLong: "Text exceeds maximum length of 51,200 characters",
  invalidFormat: "Invalid format. Allowed: aac, flac, mp3, opus, pcm, wav",
  invalidContent: "Text contains invalid content",
  ttsNotReady: "TTS engine not initialized",
  ttsBusy: "Service busy, please try again later",
  ttsTimeout: "Request timeout waiting for GPU",
  noFile: "No selected file",
  invalidFileType: "Invalid file type",
  cannotTranscribe: "Couldn't transcribe the file",
  asrNotReady: "ASR engine not initialized",
  asrBusy: "Service busy, try again later",
  asrTimeout: "Request timeout",
  apiKeyMissing: "X-API-Key header is required",
  apiKeyInvalid: "Invalid API key",
  rateLimited: "Rate limit exceeded",
  validationFailed: "Request validation failed",
  internal: "Internal server error",
} as const;

/** Wraps anything thrown into an AppError; unknown failures become `internal` (no message leaks). */
export function toAppError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  return new AppError("internal", Detail.internal, { cause: error });
}

/** The detail text for an unreadable upload: `Couldn't transcribe the file: <reason>`. */
export function cannotTranscribe(reason: string): AppError {
  return new AppError("bad_request", `${Detail.cannotTranscribe}: ${reason}`);
}
