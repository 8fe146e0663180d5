import { describe, expect, test } from "bun:test";
import { AppError } from "../errors/taxonomy.ts";
import { jsonDepth, MAX_JSON_DEPTH, readJsonBody } from "./body.ts";

const post = (body: string | Uint8Array | ReadableStream<Uint8Array> | null, headers: Record<string, string> = {}) =>
  new Request("http://sawt.test/x", { method: "POST", body, headers });

async function failure(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => undefined,
    (e) => e,
  );
  if (!(error instanceof AppError)) throw new Error(`expected an AppError, got ${error}`);
  return error;
}

describe("readJsonBody", () => {
  test("does parse JSON and read an empty body as undefined", async () => {
    expect(await readJsonBody(post('{"input":"مرحبا"}'), 1024)).toEqual({ input: "مرحبا" });
    expect(await readJsonBody(post(null), 1024)).toBeUndefined();
    expect(await readJsonBody(post(" \n"), 1024)).toBeUndefined();
  });

  test("does answer 400 for malformed JSON and invalid UTF-8", async () => {
    expect((await failure(readJsonBody(post("{bad"), 1024))).status).toBe(400);
    expect((await failure(readJsonBody(post(new Uint8Array([0x7b, 0xff, 0x7d])), 1024))).status).toBe(400);
  });

  test("does answer 413 when the declared or the streamed length is over the limit", async () => {
    const declared = await failure(readJsonBody(post("{}", { "content-length": "5000" }), 1024));
    expect([declared.status, declared.detail]).toEqual([413, "Request body exceeds maximum size of 1,024 bytes"]);
    let pulled = 0;
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled++;
        controller.enqueue(new Uint8Array(512).fill(0x20));
      },
    });
    expect((await failure(readJsonBody(post(endless), 1024))).status).toBe(413);
    expect(pulled).toBeLessThan(10);
  });

  test("does refuse nesting deeper than the limit but count brackets inside strings as text", async () => {
    const deep = "[".repeat(MAX_JSON_DEPTH + 1) + "]".repeat(MAX_JSON_DEPTH + 1);
    expect((await failure(readJsonBody(post(deep), 10_000))).detail).toContain("nested deeper");
    expect(jsonDepth('{"a":"[[[[[[[[\\"[[[["}')).toBe(1);
    expect(jsonDepth('{"a":[{"b":[]}]}')).toBe(4);
  });
});
