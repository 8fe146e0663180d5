import { describe, expect, test } from "bun:test";
import { AppError } from "../errors/taxonomy.ts";
import { headerParams, multipartBoundary, readMultipart, type PartInfo } from "./multipart.ts";

const BOUNDARY = "----sawtBoundary7MA4YWxkTrZu0gW";

/** A body split into chunks of `size` bytes, as a socket might deliver it. */
function chunked(bytes: Uint8Array, size: number): ReadableStream<Uint8Array> {
  let offset = 0;
  return new ReadableStream({
    pull(controller) {
      if (offset >= bytes.length) return controller.close();
      controller.enqueue(bytes.slice(offset, offset + size));
      offset += size;
    },
  });
}

function form(
  parts: Array<{ headers: string; body: Uint8Array | string }>,
  options: { preamble?: string; close?: boolean } = {},
): Uint8Array {
  const out: Array<Uint8Array | string> = [options.preamble ?? ""];
  for (const part of parts) out.push(`--${BOUNDARY}\r\n${part.headers}\r\n\r\n`, part.body, "\r\n");
  if (options.close !== false) out.push(`--${BOUNDARY}--\r\n`);
  return new Uint8Array(Buffer.concat(out.map((p) => (typeof p === "string" ? Buffer.from(p) : Buffer.from(p)))));
}

async function collect(body: ReadableStream<Uint8Array>): Promise<Array<PartInfo & { data: Buffer }>> {
  const parts: Array<PartInfo & { data: Buffer }> = [];
  await readMultipart(body, BOUNDARY, (info) => {
    const chunks: Buffer[] = [];
    return {
      write: (chunk) => void chunks.push(Buffer.from(chunk)),
      end: () => void parts.push({ ...info, data: Buffer.concat(chunks) }),
    };
  });
  return parts;
}

// Binary data that contains CRLFs, dashes and a prefix of the delimiter, the cases that break naive parsers.
const TRICKY = Buffer.concat([
  Buffer.from(`\r\n--${BOUNDARY.slice(0, 10)}\r\n\r\n--`),
  Buffer.from(Array.from({ length: 3000 }, (_, i) => (i * 31) % 256)),
]);

describe("readMultipart", () => {
  for (const size of [1, 2, 7, 64, 1000, 1 << 20]) {
    test(`does split fields and a binary file exactly when chunks are ${size} bytes`, async () => {
      const body = form(
        [
          { headers: 'Content-Disposition: form-data; name="language"', body: "ar" },
          {
            headers: 'Content-Disposition: form-data; name="file"; filename="call.wav"\r\nContent-Type: audio/wav',
            body: TRICKY,
          },
          { headers: 'Content-Disposition: form-data; name="note"', body: "" },
        ],
        { preamble: "ignored preamble\r\n" },
      );
      const parts = await collect(chunked(body, size));
      expect(parts.map((p) => [p.name, p.filename, p.contentType])).toEqual([
        ["language", undefined, undefined],
        ["file", "call.wav", "audio/wav"],
        ["note", undefined, undefined],
      ]);
      expect(parts[0]!.data.toString()).toBe("ar");
      expect(Buffer.compare(parts[1]!.data, TRICKY)).toBe(0);
      expect(parts[2]!.data.length).toBe(0);
    });
  }

  test("does reject a body that ends before the closing boundary", async () => {
    const body = form([{ headers: 'Content-Disposition: form-data; name="file"; filename="a.wav"', body: "abc" }], {
      close: false,
    });
    const error = await collect(chunked(body.slice(0, body.length - 4), 5)).catch((e) => e);
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).status).toBe(400);
  });

  test("does reject a part without a form-data disposition", async () => {
    const body = form([{ headers: "Content-Type: text/plain", body: "x" }]);
    expect(((await collect(chunked(body, 100)).catch((e) => e)) as AppError).detail).toContain(
      "Malformed multipart body",
    );
  });

  test("does stop reading and cancel the stream when a sink throws", async () => {
    let cancelled = false;
    const body = form([
      { headers: 'Content-Disposition: form-data; name="file"; filename="a.wav"', body: "x".repeat(10_000) },
    ]);
    let offset = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (offset >= body.length) return controller.close();
        controller.enqueue(body.slice(offset, (offset += 100)));
      },
      cancel() {
        cancelled = true;
      },
    });
    const limit = new AppError("payload_too_large", "too big");
    let seen = 0;
    const error = await readMultipart(stream, BOUNDARY, () => ({
      write: (chunk) => {
        seen += chunk.length;
        if (seen > 1000) throw limit;
      },
      end: () => undefined,
    })).catch((e) => e);
    expect(error).toBe(limit);
    expect(cancelled).toBe(true);
    expect(offset).toBeLessThan(body.length);
  });
});

describe("multipart headers", () => {
  test("does read the boundary when quoted or bare and refuse other content types", () => {
    expect(multipartBoundary(`multipart/form-data; boundary=${BOUNDARY}`)).toBe(BOUNDARY);
    expect(multipartBoundary('multipart/form-data; charset=utf-8; boundary="a b:c"')).toBe("a b:c");
    expect(multipartBoundary("application/json")).toBeUndefined();
    expect(multipartBoundary("multipart/form-data")).toBeUndefined();
    expect(multipartBoundary(null)).toBeUndefined();
  });

  test("does decode quoted, escaped and RFC 5987 parameters", () => {
    const params = headerParams(
      `form-data; name="file"; filename="a \\"b\\".wav"; filename*=UTF-8''%D9%85%D9%83%D8%A7%D9%84%D9%85%D8%A9.wav`,
    );
    expect(params.get("name")).toBe("file");
    expect(params.get("filename")).toBe("مكالمة.wav");
    expect(headerParams('form-data; name="x"; filename="a \\"b\\".wav"').get("filename")).toBe('a "b".wav');
  });
});
