/**
 * The gRPC edge of the error taxonomy: every failure of a gRPC call becomes one status here, from
 * the same {@link AppError} kinds REST maps in src/http/errors.ts. Detail texts are the spec's;
 * validation field problems are appended; unknown failures are INTERNAL with no message leaked.
 */
import * as grpc from "@grpc/grpc-js";
import { AppError, Detail, GrpcCode } from "../errors/taxonomy.ts";

/** What a handler passes to its callback or `emit("error")`. */
export type GrpcFailure = Partial<grpc.StatusObject> & { code: grpc.status; details: string; metadata: grpc.Metadata };

/** The details text of an AppError: its detail, plus field problems of a validation error. */
export function grpcDetails(error: AppError): string {
  if (error.fields.length === 0) return error.detail;
  return `${error.detail}: ${error.fields.map((f) => `${f.field}: ${f.message}`).join("; ")}`;
}

/**
 * Trailing metadata of an error: `retry-after` (seconds) on RESOURCE_EXHAUSTED (60 when unknown, as
 * REST's 429) and on anything else that knows it, plus the error's own headers (rate-limit counters).
 */
export function grpcErrorMetadata(error: AppError): grpc.Metadata {
  const metadata = new grpc.Metadata();
  for (const [name, value] of Object.entries(error.headers)) metadata.set(name.toLowerCase(), value);
  if (error.kind === "rate_limited") metadata.set("retry-after", String(error.retryAfter ?? 60));
  else if (error.retryAfter !== undefined) metadata.set("retry-after", String(error.retryAfter));
  return metadata;
}

/**
 * Maps anything thrown to a gRPC status. An AbortSignal reason (client cancelled, deadline passed)
 * maps to CANCELLED / DEADLINE_EXCEEDED; grpc-js has then already ended the call, so it is moot.
 */
export function toGrpcError(thrown: unknown): GrpcFailure {
  if (thrown instanceof AppError) {
    return { code: thrown.grpcCode as grpc.status, details: grpcDetails(thrown), metadata: grpcErrorMetadata(thrown) };
  }
  if (thrown instanceof DOMException && thrown.name === "TimeoutError") {
    return {
      code: GrpcCode.DEADLINE_EXCEEDED as grpc.status,
      details: "Deadline exceeded",
      metadata: new grpc.Metadata(),
    };
  }
  if (thrown instanceof DOMException && thrown.name === "AbortError") {
    return { code: GrpcCode.CANCELLED as grpc.status, details: "Cancelled", metadata: new grpc.Metadata() };
  }
  return { code: GrpcCode.INTERNAL as grpc.status, details: Detail.internal, metadata: new grpc.Metadata() };
}
