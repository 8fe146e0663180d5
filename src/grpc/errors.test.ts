import { describe, expect, test } from "bun:test";
import * as grpc from "@grpc/grpc-js";
import { AppError, Detail } from "../errors/taxonomy.ts";
import { toGrpcError } from "./errors.ts";

describe("toGrpcError", () => {
  test("does map every error kind to its gRPC status when thrown as AppError", () => {
    const cases: Array<[AppError, grpc.status]> = [
      [new AppError("bad_request", Detail.textEmpty), grpc.status.INVALID_ARGUMENT],
      [new AppError("validation", Detail.validationFailed), grpc.status.INVALID_ARGUMENT],
      [new AppError("unauthorized", Detail.apiKeyMissing), grpc.status.UNAUTHENTICATED],
      [new AppError("rate_limited", Detail.rateLimited), grpc.status.RESOURCE_EXHAUSTED],
      [new AppError("payload_too_large", "too large"), grpc.status.RESOURCE_EXHAUSTED],
      [new AppError("unavailable", Detail.ttsBusy), grpc.status.UNAVAILABLE],
      [new AppError("timeout", Detail.ttsTimeout), grpc.status.DEADLINE_EXCEEDED],
      [new AppError("not_found", "Voice not found"), grpc.status.NOT_FOUND],
      [new AppError("not_implemented", "Voice cloning needs a speaker-encoder pack"), grpc.status.UNIMPLEMENTED],
      [new AppError("internal", Detail.internal), grpc.status.INTERNAL],
    ];
    for (const [error, code] of cases) {
      const failure = toGrpcError(error);
      expect(failure.code).toBe(code);
      expect(failure.details).toBe(error.detail);
    }
  });

  test("does append field problems to the details when the error is a validation error", () => {
    const failure = toGrpcError(
      new AppError("validation", Detail.validationFailed, {
        fields: [{ field: "body.speed", message: "Expected number" }],
      }),
    );
    expect(failure.details).toBe("Request validation failed: body.speed: Expected number");
  });

  test("does put retry-after in the trailers, defaulting to 60, when rate limited", () => {
    const headers = { "x-ratelimit-limit": "1", "x-ratelimit-remaining": "0", "x-ratelimit-reset": "42" };
    const limited = toGrpcError(new AppError("rate_limited", Detail.rateLimited, { retryAfter: 42, headers }));
    expect(limited.metadata.get("retry-after")).toEqual(["42"]);
    expect(limited.metadata.get("x-ratelimit-reset")).toEqual(["42"]);
    expect(toGrpcError(new AppError("rate_limited", Detail.rateLimited)).metadata.get("retry-after")).toEqual(["60"]);
    expect(
      toGrpcError(new AppError("unavailable", Detail.ttsBusy, { retryAfter: 3 })).metadata.get("retry-after"),
    ).toEqual(["3"]);
    expect(toGrpcError(new AppError("timeout", Detail.ttsTimeout)).metadata.get("retry-after")).toEqual([]);
  });

  test("does hide the message when something unexpected is thrown", () => {
    const failure = toGrpcError(new Error("ENOENT: /var/lib/sawt/tmp/upload-123.wav"));
    expect(failure).toMatchObject({ code: grpc.status.INTERNAL, details: "Internal server error" });
    expect(toGrpcError("a string").code).toBe(grpc.status.INTERNAL);
  });

  test("does map an aborted call's reason to DEADLINE_EXCEEDED or CANCELLED when the signal fired", () => {
    expect(toGrpcError(new DOMException("late", "TimeoutError")).code).toBe(grpc.status.DEADLINE_EXCEEDED);
    expect(toGrpcError(new DOMException("gone", "AbortError")).code).toBe(grpc.status.CANCELLED);
  });
});
