import { describe, expect, test } from "bun:test";
import { requestIdFrom } from "./request-id.ts";

const headers = (value: string | null) => ({ get: (name: string) => (name === "x-request-id" ? value : null) });

describe("requestIdFrom", () => {
  test("does echo a well-formed client id from any header getter", () => {
    expect(requestIdFrom(headers("client-id.42:a_b"))).toBe("client-id.42:a_b");
    expect(requestIdFrom(new Headers({ "X-Request-ID": "abc" }))).toBe("abc");
  });

  test("does make a new id for a missing or malformed one", () => {
    for (const sent of [null, "", "has space", "x".repeat(129)])
      expect(requestIdFrom(headers(sent))).toMatch(/^[0-9a-f-]{36}$/);
  });
});
