import { describe, expect, test } from "bun:test";
import { AppError } from "../errors/taxonomy.ts";
import { closeCodeFor, errorStatusBody } from "./ws-route.ts";

describe("closeCodeFor", () => {
  test("does close normally when there is no error", () => {
    expect(closeCodeFor(undefined)).toBe(1000);
  });

  test.each([
    ["unavailable", 1013],
    ["internal", 1011],
    ["timeout", 1008],
    ["bad_request", 1008],
    ["rate_limited", 1008],
  ] as const)("does close a %s error with %d", (kind, code) => {
    expect(closeCodeFor(new AppError(kind, "x"))).toBe(code);
  });
});

describe("errorStatusBody", () => {
  test("does carry the HTTP status beside the REST body", () => {
    expect(errorStatusBody(new AppError("bad_request", "nope"))).toEqual({
      status: 400,
      error: "http_error",
      detail: "nope",
      code: "HTTP_400",
    });
  });
});
